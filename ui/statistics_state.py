"""The statistics a dashboard page computes from one result — bootstrap intervals, significance matrices and their
clusters, the headline's top clusters and comparisons, system pairs, the tables pages draw — computed once per
result and settings and kept for every session holding the same result.

Every key starts with the result's key (:attr:`ui.state.Context.key`, the content hash of the data and the settings)
so a table computed from one user's data is found only by a session holding the same data. Tables that take long to
compute again are kept in the persistent cache too (:func:`_remembered`: the intervals, the top clusters, every
significance table); each table computed with a progress bar or spinner says what it computes. The resampling
settings of every test (:data:`N_RESAMPLES`, :data:`SEED`, :data:`ALPHA`) are shown next to the results, for citing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from korean_eval.engine import stored_views
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from ui import service
from ui.formats import duration
from ui.shared_store import SharedStore
from ui.state import MAX_RESULTS, Context, disk_cache
from ui.widgets import safe_file_name

T = TypeVar("T")

#: Statistics tables (significance, system pairs, intervals) are small beside a result and cost minutes to
#: compute again: they stay this long unused (results: ``result_idle_seconds``).
STATISTICS_IDLE_SECONDS = 1800.0


@st.cache_resource(show_spinner=False)
def _ci_store() -> SharedStore:
    return SharedStore(MAX_RESULTS, STATISTICS_IDLE_SECONDS)


def cached_confidence_intervals(ctx: Context, n_resamples: int = RESAMPLES, statistics: tuple[str, ...] | None = None):
    """The intervals of :func:`correlations_with_ci` for ``statistics`` if they were computed already (never
    computes): the table of every statistic when that was, else the one of ``statistics``; None otherwise."""
    store = _ci_store()
    every = store.get(stored_views.intervals_key(ctx.key, n_resamples))
    if every is not None or statistics is None:
        return every
    return store.get(stored_views.intervals_key(ctx.key, n_resamples, statistics))


def computed_confidence_intervals(ctx: Context, n_resamples: int = RESAMPLES):
    """``results.correlations`` with every interval computed so far for these results (never computes): the rows of
    statistics whose intervals were not asked for keep empty ``ci_low``/``ci_high``; None when none was computed."""
    every = cached_confidence_intervals(ctx, n_resamples)
    if every is not None:
        return every
    parts = [table for _key, table in _ci_store().items_with_prefix(stored_views.intervals_key(ctx.key, n_resamples) + "|")]
    if not parts:
        return None
    from korean_eval.metaeval.tables.intervals import merge_interval_tables

    return merge_interval_tables(ctx.results.correlations, parts)


def correlations_with_ci(ctx: Context, n_resamples: int = RESAMPLES, statistics: tuple[str, ...] | None = None):
    """``results.correlations`` with bootstrap 95% intervals — the correlations' and the pairwise accuracies'
    (acc_eq, pairwise accuracy, SPA) — for the rows of ``statistics`` (None: every row; the table of every statistic
    when it was computed already), cached per result, in memory and in the persistent cache."""
    hit = cached_confidence_intervals(ctx, n_resamples, statistics)
    if hit is not None:
        return hit

    def compute():
        estimate = duration(interval_seconds(ctx, statistics or tuple(ctx.results.correlations["statistic"].unique()),
                                             n_resamples))
        with st.spinner(f"Bootstrapping 95% confidence intervals ({n_resamples} resamples of the segments, "
                        f"{estimate})…"):
            return stored_views.intervals(ctx.results, n_resamples, statistics)

    return _remembered(_ci_store(), stored_views.intervals_key(ctx.key, n_resamples, statistics), compute)


def _remembered(store: SharedStore, key: str, compute: Callable[[], Any]) -> Any:
    """The view under ``key``: from ``store`` (this process's memory), else from the persistent cache, else
    ``compute()`` (then stored in both)."""
    hit = store.get(key)
    if hit is None:
        hit = stored_views.load_view(disk_cache(), key)
    if hit is None:
        hit = compute()
        stored_views.store_view(disk_cache(), key, hit)
    store.put(key, hit)
    return hit


#: Up to this many estimated seconds (:func:`interval_seconds`) the bootstrap intervals are on when the page opens
#: (the user's data as the bundled sample); beyond, they are on once computed (cached) or asked for.
AUTO_INTERVAL_SECONDS = 2.0


def interval_seconds(ctx: Context, statistics: tuple[str, ...], n_resamples: int = RESAMPLES) -> float:
    """The estimated seconds of the intervals of ``statistics`` for these results, from the measured costs
    (:func:`korean_eval.metaeval.tables.costs.intervals_seconds`)."""
    from korean_eval.metaeval.tables.costs import intervals_seconds

    res = ctx.results
    return intervals_seconds(statistics, len(res.segment_matrices), len(res.systems) * len(res.seg_ids), n_resamples,
                             int(res.settings.get("spa_permutations", 0) or 0))


def intervals_by_default(ctx: Context, statistics: tuple[str, ...], n_resamples: int = RESAMPLES) -> bool:
    """Whether the Correlations page opens with its intervals (of ``statistics``) on: already computed for these
    results (cached), or estimated to take at most :data:`AUTO_INTERVAL_SECONDS` (:func:`interval_seconds`)."""
    if cached_confidence_intervals(ctx, n_resamples, statistics) is not None:
        return True
    return interval_seconds(ctx, statistics, n_resamples) <= AUTO_INTERVAL_SECONDS


def intervals_note(ctx: Context, statistics: tuple[str, ...], n_resamples: int = RESAMPLES) -> str:
    """What the Correlations page says beside its intervals switch while it is off: their estimate, when they are
    not computed yet and not on by default (:func:`intervals_by_default`); "" otherwise."""
    if intervals_by_default(ctx, statistics, n_resamples):
        return ""
    return (f"The 95% intervals take {duration(interval_seconds(ctx, statistics, n_resamples))} of computing for "
            "these data: switch them on to compute them (they are kept once computed).")


#: Resampling settings of every significance test on the dashboard (shown next to the results, for citing).
N_RESAMPLES = RESAMPLES


@st.cache_resource(show_spinner=False)
def _stats_store() -> SharedStore:
    return SharedStore(4 * MAX_RESULTS, STATISTICS_IDLE_SECONDS)


def _stats_key(ctx: Context, kind: str, *settings: object) -> str:
    """``<results key>|<sha256 of kind + settings + resampling>`` (:func:`stored_views.view_key`): the results key is
    itself the content hash of the data + the config, so a table computed from one user's data is found only by a
    session holding the same data."""
    return stored_views.view_key(ctx.key, kind, *settings)


def _cached_stat(key: str, message: str, name: str, compute):
    """``compute()`` kept as ``(name, value)`` under ``key``, in memory and in the persistent cache."""

    def named():
        with st.spinner(message):
            return name, compute()

    return _remembered(_stats_store(), key, named)[1]


def cached_significance(ctx: Context, statistic: str, granularity: str, grouping: str, test: str):
    """The :func:`significance` tables of these settings if they were computed already (never computes), else None."""
    from korean_eval.model.vocabulary import grouping_used

    key = _stats_key(ctx, "significance", statistic, granularity, grouping_used(granularity, grouping), test)
    hit = _stats_store().get(key)
    return None if hit is None else hit[1]


def significance(ctx: Context, statistic: str, granularity: str, grouping: str, test: str):
    """``(significance_table, rank_clusters_table)`` over every configuration, cached by content hash + settings."""
    from korean_eval.metaeval.tables import significance as sig
    from korean_eval.model.vocabulary import grouping_used

    grouping = grouping_used(granularity, grouping)
    key = _stats_key(ctx, "significance", statistic, granularity, grouping, test)

    def compute():
        n = len(ctx.results.segment_matrices)
        bar = st.progress(0.0, text=f"Testing {n * (n - 1) // 2:,} pairs of configurations ({N_RESAMPLES} "
                                    "permutations each)…")
        table = sig.significance_table(
            ctx.results, statistic, granularity, grouping, n_permutations=N_RESAMPLES, seed=SEED, tests=(test,),
            jobs=None, progress=lambda fraction, message: bar.progress(fraction, text=message),
        )
        bar.empty()
        clusters = sig.rank_clusters_table(
            ctx.results, statistic, granularity, grouping, test=test, alpha=ALPHA, seed=SEED, table=table
        )
        return table, clusters

    return _cached_stat(key, "Ranking the configurations…", f"significance_{statistic}_{granularity}_{grouping}_{test}",
                        compute)


#: The test behind the headline's top cluster: valid for every correlation, granularity and grouping.
HEADLINE_TEST = stored_views.HEADLINE_TEST


def top_cluster(ctx: Context, statistic: str, granularity: str, grouping: str):
    """The rank clusters the headline needs (:func:`top_cluster_tables`)."""
    return top_cluster_tables(ctx, statistic, granularity, grouping)[1]


def top_cluster_tables(ctx: Context, statistic: str, granularity: str, grouping: str):
    """``(significance rows, rank clusters)`` the headline needs (:func:`stored_views.top_cluster`): cluster 1 in
    full, then at most the first configuration below it, and the tests that decided it (their ``method`` and
    ``min_p``). Taken from the full significance matrix of the same settings when that was computed already; else
    from the caches, or computed with a progress bar and cached."""
    from korean_eval.model.vocabulary import grouping_used

    grouping = grouping_used(granularity, grouping)
    full = _stats_store().get(_stats_key(ctx, "significance", statistic, granularity, grouping, HEADLINE_TEST))
    if full is not None:
        return full[1]

    def compute():
        bar = st.progress(0.0, text=f"Finding the top significance cluster, {granularity} level…")

        def progress(fraction: float, message: str) -> None:
            bar.progress(fraction, text=f"Top significance cluster, {granularity} level: {message}")

        value = stored_views.top_cluster(ctx.results, statistic, granularity, grouping, progress=progress)
        bar.empty()
        return stored_views.top_cluster_name(statistic, granularity, grouping), value

    key = stored_views.top_cluster_key(ctx.key, statistic, granularity, grouping)
    return _remembered(_stats_store(), key, compute)[1]


def accuracy_significance(ctx: Context, statistic: str):
    """``(significance table, rank clusters)`` of every configuration by ``acc_eq`` or ``spa``
    (:func:`korean_eval.metaeval.tables.accuracy_significance.accuracy_significance_table`), cached by content hash +
    statistic."""
    from korean_eval.metaeval.tables import accuracy_significance as acc

    def compute():
        n = len(ctx.results.segment_matrices)
        with st.spinner(f"Testing {n * (n - 1) // 2:,} pairs of configurations by {statistic} ({N_RESAMPLES} "
                        "permutations each)…"):
            table = acc.accuracy_significance_table(ctx.results, statistic, n_permutations=N_RESAMPLES, seed=SEED)
            return table, acc.accuracy_clusters_table(ctx.results, statistic, table, alpha=ALPHA)

    granularity, grouping, test = acc.ACCURACY_TESTS[statistic]
    return _cached_stat(_stats_key(ctx, "significance", statistic, granularity, grouping, test), "Ranking…",
                        f"significance_{statistic}_{granularity}_{grouping}_{test}", compute)


def accuracy_top_cluster(ctx: Context, statistic: str):
    """The rank clusters a headline by ``acc_eq`` or ``spa`` needs (:func:`accuracy_top_cluster_tables`)."""
    return accuracy_top_cluster_tables(ctx, statistic)[1]


def accuracy_top_cluster_tables(ctx: Context, statistic: str):
    """``(significance rows, rank clusters)`` a headline by ``acc_eq`` or ``spa`` needs
    (:func:`korean_eval.metaeval.tables.accuracy_significance.accuracy_top_cluster`): taken from the full table when
    it was computed already, else computed with a progress bar and cached."""
    from korean_eval.metaeval.tables import accuracy_significance as acc

    granularity, grouping, test = acc.ACCURACY_TESTS[statistic]
    full = _stats_store().get(_stats_key(ctx, "significance", statistic, granularity, grouping, test))
    if full is not None:
        return full[1]
    key = _stats_key(ctx, "top-cluster", statistic, granularity, grouping, test)
    store = _stats_store()
    hit = store.get(key)
    if hit is None:
        bar = st.progress(0.0, text=f"Finding the top significance cluster by {statistic}…")
        value = acc.accuracy_top_cluster(ctx.results, statistic, n_permutations=N_RESAMPLES, seed=SEED, alpha=ALPHA,
                                         progress=lambda f, m: bar.progress(f, text=f"Top cluster by {statistic}: {m}"))
        bar.empty()
        hit = (f"significance_top_{statistic}_{granularity}_{grouping}_{test}", value)
        store.put(key, hit)
    return hit[1]


def accuracy_comparison(ctx: Context, config_a: str, config_b: str, statistic: str) -> dict[str, Any]:
    """Whether ``config_a`` agrees more than ``config_b`` by ``acc_eq`` or ``spa`` (the test of
    :func:`accuracy_significance` for this one pair): ``{"p_values": {test: p}, "methods": {test: method},
    "significant": p < α}``, cached."""
    from korean_eval.metaeval.tables import accuracy_significance as acc

    key = _stats_key(ctx, "compare-accuracy", config_a, config_b, statistic)
    store = _comparison_store()
    hit = store.get(key)
    if hit is None:
        table = acc.accuracy_significance_table(ctx.results, statistic, N_RESAMPLES, SEED, [config_a, config_b],
                                                [(config_a, config_b)])
        row = table[(table["config_a"] == config_a) & (table["config_b"] == config_b)]
        p = float(row["p_value"].iloc[0]) if len(row) else float("nan")
        test = acc.ACCURACY_TESTS[statistic][2]
        hit = {"p_values": {test: p}, "methods": {test: str(row["method"].iloc[0]) if len(row) else ""},
               "significant": bool(p < ALPHA)}
        store.put(key, hit)
    return hit


@st.cache_resource(show_spinner=False)
def _comparison_store() -> SharedStore:
    return SharedStore(16 * MAX_RESULTS, STATISTICS_IDLE_SECONDS)


def comparison(ctx: Context, config_a: str, config_b: str, statistic: str, granularity: str, grouping: str,
               tests: tuple[str, ...] | None = None) -> dict[str, Any]:
    """:func:`korean_eval.engine.stored_views.comparison` of two configurations, cached by content hash + settings
    in memory and in the persistent cache (``korean-eval compile`` stores the bundled sample's headline test)."""
    key = stored_views.comparison_key(ctx.key, config_a, config_b, statistic, granularity, grouping, tests)
    return _remembered(_comparison_store(), key, lambda: stored_views.comparison(
        ctx.results, config_a, config_b, statistic, granularity, grouping, tests))


def system_pairs(ctx: Context, metric: str, human_test: str):
    """``system_pairs_table`` for every level of ``metric`` (cached by content hash + metric + human test)."""
    from korean_eval.metaeval.tables import system_pairs as sp
    configs = [k for k in ctx.results.segment_matrices if k[1] == metric]
    key = _stats_key(ctx, "pairs", metric, human_test)
    return _cached_stat(
        key,
        f"Paired bootstrap over the segments ({N_RESAMPLES} resamples) for every system pair…",
        f"system_pairs_{metric}_{human_test}",
        lambda: sp.system_pairs_table(
            ctx.results, n_resamples=N_RESAMPLES, seed=SEED, human_test=human_test, alpha=ALPHA, configs=configs,
            jobs=None,
        ),
    )


def ranking_view(ctx: Context, metric: str, human_test: str):
    """``ranking_view`` of every level of ``metric`` with the labels of :func:`system_pairs`."""
    from korean_eval.metaeval.tables import system_pairs as sp
    configs = [k for k in ctx.results.segment_matrices if k[1] == metric]
    return sp.ranking_view(ctx.results, pairs=system_pairs(ctx, metric, human_test), configs=configs)


@st.cache_resource(show_spinner=False)
def _display_store() -> SharedStore:
    return SharedStore(16 * MAX_RESULTS, service.limits().result_idle_seconds)


def display_table(ctx: Context, kind: str, compute: Callable[[], T], *settings: object) -> T:
    """``compute()``, a table a page derives from these results to draw them (never offered for download), once per
    results and ``settings`` rather than on every rerun: the same object is handed to every rerun and session holding
    the same results, so a caller copies before it changes anything."""
    key = _stats_key(ctx, kind, *settings)
    store = _display_store()
    hit = store.get(key)
    if hit is None:
        hit = compute()
        store.put(key, hit)
    return hit


def cached_table(ctx: Context, kind: str, message: str, compute):
    """``compute()`` for these results, once (the statistics store, keyed by the result and ``kind``; what it
    returns is listed on the Downloads page under ``kind``)."""
    return _cached_stat(_stats_key(ctx, kind), message, kind, compute)


def human_ceiling(ctx: Context, with_ci: bool = False):
    """The human ceiling of the results (:func:`korean_eval.metaeval.tables.human_ceiling.human_ceiling`): the pipeline's (no
    intervals), or with bootstrap intervals on the dashboard's resamples (cached per result); None without ratings."""
    res = ctx.results
    if res.human_ceiling is None or not with_ci:
        return res.human_ceiling
    from korean_eval.metaeval.tables.human_ceiling import run_ceiling

    return _cached_stat(
        _stats_key(ctx, "human_ceiling"), f"Bootstrapping the human ceiling ({N_RESAMPLES} resamples)…", "human_ceiling",
        lambda: run_ceiling(res.human_ratings, res.systems, res.seg_ids, res.settings, N_RESAMPLES, SEED)[0],
    )


def pairwise_accuracy(ctx: Context):
    from korean_eval.metaeval.tables import system_pairs as sp
    return sp.pairwise_accuracy_table(ctx.results)


def computed_statistics(ctx: Context) -> dict[str, Any]:
    """Every statistics table computed so far for these results (never computes): CSV file name → table; a
    significance table with a ``note`` on each test whose design cannot reach α
    (:func:`korean_eval.metaeval.tables.resolution.with_resolution_notes`)."""
    from korean_eval.metaeval.tables.resolution import with_resolution_notes

    out: dict[str, Any] = {}
    for _key, (name, value) in _stats_store().items_with_prefix(ctx.key + "|"):
        stem = safe_file_name(name)
        if isinstance(value, dict):  # several files (e.g. the error-span tables)
            out.update(value)
        elif isinstance(value, tuple):
            out[f"{stem}.csv"] = with_resolution_notes(value[0], ALPHA, N_RESAMPLES)
            out[f"{stem.replace('significance_', 'clusters_', 1)}.csv"] = value[1]
        else:
            out[f"{stem}.csv"] = value
    return out
