"""Session state of the dashboard: the current data, the settings, and cached results.

* The current :class:`EvalSet` lives in ``st.session_state`` (the bundled sample until the user loads other data).
* Results are kept in a small in-process store keyed by ``EvalSet.content_hash()`` + ``EvalConfig.as_dict()``
  (+ the hash of a user-supplied SentencePiece model), shared by all sessions: switching pages or changing a display
  option (statistic, grouping, chart toggles) never recomputes; the backend's :class:`DiskCache` makes even a new
  setting cheap for tokenisations and statistics seen before. Tables a page derives from the results only to draw
  them (the correlation view, the score tables) are kept the same way (:func:`display_table`), so a rerun that
  changes nothing in them does not build them again.
* While computing, a progress bar follows the pipeline's ``progress(fraction, message)`` callback; its Stop button
  stops the evaluation, and the pages then wait for a button rather than start it again (:mod:`ui.stopping`).
* Several users (:mod:`ui.service`): an evaluation larger than the server's limit (pairs × levels) is refused with
  a message; a new one computes when the queue gives it a turn ("Waiting: position 2 of 3" meanwhile); sessions that
  ask for the same evaluation at the same time (same content hash and settings) share one computation; a stored
  result no session used for ``result_idle_seconds`` leaves memory (:meth:`_Store.sweep`; the disk cache keeps it).
  Every store is keyed by content hashes, never by a file name or by which session came first, and nothing a user
  uploads is written to a file.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import streamlit as st

from korean_eval.engine import stored_views
from korean_eval.engine.cache import NullCache, open_cache
from korean_eval.engine.limits import size_problem
from korean_eval.engine.pipeline import evaluate
from korean_eval.engine.pools import analyzers_in_workers
from korean_eval.engine.tokenise_stage import prepare_level
from korean_eval.engine.worker_call import run_in_worker
from korean_eval.engine.workers import (
    WORKER_ANALYZER_LEVELS,
    level_role,
    task_tokenize,
)
from korean_eval.inputs.sample import shared_sample
from korean_eval.model.config import EvalConfig
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from korean_eval.model.evalset import EvalSet
from korean_eval.model.results import Results
from ui import directions, service, stopping
from ui.widgets import input_error, md_escape, safe_file_name

EVALSET_KEY = "ke_evalset"
SOURCE_KEY = "ke_source"
SETTINGS_KEY = "ke_settings"
TARGET_KEY = "ke_target_page"
SAMPLE_LABEL = "bundled sample"
MAX_RESULTS = 6
#: The button that starts a stopped evaluation again.
EVALUATE_BUTTON = "Evaluate"
T = TypeVar("T")


@dataclass(frozen=True)
class Settings:
    """The sidebar's choices: what to compute (``config``) and how to show correlations."""

    config: EvalConfig
    statistic: str = "pearson"
    grouping: str = "none"


@dataclass
class Context:
    evalset: EvalSet
    settings: Settings
    results: Results
    key: str

    @property
    def has_human(self) -> bool:
        return self.evalset.human is not None and not self.results.correlations.empty


# ------------------------------------------------------------------------------------------- navigation

_run = threading.local()


@contextmanager
def app_run():
    """Marks a page run as started by app.py (which draws the shared sidebar and settings)."""
    _run.active = True
    try:
        yield
    finally:
        _run.active = False


def enter_page(path: str) -> None:
    """First line of every page: a page opened without app.py goes through it and comes back.

    Streamlit runs ``pages/*.py`` on their own (its older multipage mode, because the folder is called ``pages``)
    for a link straight to a page until some session has run app.py's ``st.navigation`` since the server started.
    """
    if not getattr(_run, "active", False):
        st.session_state[TARGET_KEY] = path
        st.switch_page("app.py")


def resume_target_page() -> None:
    """Called by app.py after ``st.navigation``: finish a redirect started by :func:`enter_page`."""
    target = st.session_state.pop(TARGET_KEY, None)
    if target:
        st.switch_page(target)


# ------------------------------------------------------------------------------------------------- data


@st.cache_resource(show_spinner=False)
def disk_cache() -> NullCache:
    return open_cache()


def evalset() -> EvalSet | None:
    """The current evaluation set (the sample unless the user loaded data); None if the sample cannot load."""
    current = st.session_state.get(EVALSET_KEY)
    if current is not None:
        return current
    try:
        return shared_sample()
    except (OSError, ValueError) as err:
        st.error(f"The bundled sample could not be loaded ({md_escape(err)}). Load data on the Data page.")
        return None


def source() -> str:
    return st.session_state.get(SOURCE_KEY, SAMPLE_LABEL)


def is_sample() -> bool:
    return EVALSET_KEY not in st.session_state


def use(evalset: EvalSet, label: str) -> None:
    """Make ``evalset`` the data of every page."""
    st.session_state[EVALSET_KEY] = evalset
    st.session_state[SOURCE_KEY] = label


def use_sample() -> None:
    st.session_state.pop(EVALSET_KEY, None)
    st.session_state.pop(SOURCE_KEY, None)


def upload_limit_bytes() -> int:
    """Per-file upload limit of the dashboard: ``server.maxUploadSize`` (MB, ``.streamlit/config.toml``). The
    server refuses bigger uploads itself; the Data page checks again, so a file that arrives some other way is
    refused with a message naming it too."""
    return int(st.config.get_option("server.maxUploadSize")) * 2**20


# --------------------------------------------------------------------------------------------- settings


def store_settings(settings: Settings) -> None:
    st.session_state[SETTINGS_KEY] = settings


def settings() -> Settings:
    return st.session_state.get(SETTINGS_KEY) or Settings(EvalConfig())


# ---------------------------------------------------------------------------------------------- results


class _Store:
    """A small thread-safe LRU (results, or tables derived from them) keyed by content hash + settings: at most
    ``size`` entries, and none unused for more than ``idle_seconds`` (None: no such limit) once :meth:`sweep` ran
    (the housekeeping thread of :mod:`ui.service` runs it every few seconds)."""

    def __init__(self, size: int, idle_seconds: float | None = None):
        self.size = size
        self.idle_seconds = idle_seconds
        self.items: OrderedDict[str, Any] = OrderedDict()
        self.used: dict[str, float] = {}
        self.lock = threading.Lock()
        service.janitor().register(self)

    def get(self, key: str) -> Any:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                self.used[key] = time.monotonic()
                return self.items[key]
        return None

    def put(self, key: str, value: Any) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            self.used[key] = time.monotonic()
            while len(self.items) > self.size:
                old, _ = self.items.popitem(last=False)
                self.used.pop(old, None)

    def items_with_prefix(self, prefix: str) -> list[tuple[str, Any]]:
        with self.lock:
            return [(k, v) for k, v in self.items.items() if k.startswith(prefix)]

    def sweep(self, now: float | None = None) -> int:
        """Drop the entries unused for more than ``idle_seconds``; how many were dropped."""
        if self.idle_seconds is None:
            return 0
        now = time.monotonic() if now is None else now
        with self.lock:
            stale = [k for k, t in self.used.items() if now - t > self.idle_seconds]
            for key in stale:
                self.items.pop(key, None)
                self.used.pop(key, None)
        return len(stale)


#: Statistics tables (significance, system pairs, intervals) are small beside a result and cost minutes to
#: compute again: they stay this long unused (results: ``result_idle_seconds``).
STATISTICS_IDLE_SECONDS = 1800.0


@st.cache_resource(show_spinner=False)
def _store() -> _Store:
    return _Store(MAX_RESULTS, service.limits().result_idle_seconds)


class _Flights:
    """Evaluations being computed now, by key, so that a second session asking for the same one waits for it
    instead of computing it again; each with the last progress (fraction, message) its computing session saw."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: dict[str, tuple[threading.Event, list]] = {}

    def lead(self, key: str) -> tuple[threading.Event, list] | None:
        """None when the caller now computes ``key`` (it must call :meth:`done`); else the running computation's
        (event set at its end, [fraction, message])."""
        with self.lock:
            if key in self.running:
                return self.running[key]
            self.running[key] = (threading.Event(), [0.0, "Starting the evaluation…"])
            return None

    def report(self, key: str, fraction: float, message: str) -> None:
        with self.lock:
            if key in self.running:
                self.running[key][1][:] = [fraction, message]

    def done(self, key: str) -> None:
        with self.lock:
            entry = self.running.pop(key, None)
        if entry is not None:
            entry[0].set()


@st.cache_resource(show_spinner=False)
def _flights() -> _Flights:
    return _Flights()


def results_key(evalset: EvalSet, config: EvalConfig) -> str:
    """Content hash of the data + every setting that changes the numbers (:func:`stored_views.content_key`)."""
    return stored_views.content_key(evalset, config)


def results(evalset: EvalSet, config: EvalConfig) -> Results | None:
    """Cached results, computed with a progress bar when new; None (after a message) if they cannot be: too large
    for the server's limit, the queue full, an error of the data, or stopped by the user (the bar's Stop button,
    :mod:`ui.stopping`: the page then says so and waits for the :data:`EVALUATE_BUTTON` button).

    A new evaluation waits for its turn in the server's queue (:func:`ui.service.queued`). While one session
    computes it, another asking for the same key (same content and settings) follows that computation's progress
    and takes its result; if the computing session goes away, the next one computes it."""
    key = results_key(evalset, config)
    store = _store()
    hit = store.get(key)
    if hit is not None:
        return hit
    if stopping.stopped(key):  # the user stopped this evaluation: it waits for the button
        stopping.stopped_notice(key, EVALUATE_BUTTON)
        return None
    pairs = evalset.system_pairs()
    problem = size_problem(pairs, len(config.levels), service.limits())
    if problem:
        st.error(problem, icon=":material/block:")
        return None
    with stopping.Interruption(key) as interruption:
        return _evaluate_with_bar(key, evalset, config, pairs, store, interruption)


def _evaluate_with_bar(key: str, evalset: EvalSet, config: EvalConfig, pairs: int, store,
                       interruption: stopping.Interruption):
    """:func:`results`' computation: the bar, the other session's progress when it computes the same key, the
    server's queue, then the evaluation."""
    bar = stopping.StoppableBar(key, "Starting the evaluation…")
    flights = _flights()
    while (running := flights.lead(key)) is not None:
        event, last = running
        while not event.wait(0.5):  # the other session's progress, twice a second
            bar.progress(last[0], f"{last[1]} ({last[0]:.0%})")
        hit = store.get(key)
        if hit is not None:
            bar.empty()
            return hit

    @interruption.guard
    def progress(fraction: float, message: str) -> None:
        flights.report(key, fraction, message)
        bar.progress(fraction, f"{message} ({fraction:.0%})")

    @interruption.guard
    def show(text: str) -> None:
        bar.progress(0.0, text)

    try:
        res = service.queued(lambda: evaluate(evalset, config, progress=progress, cache=disk_cache()), pairs, show)
    except (ValueError, RuntimeError) as err:
        bar.empty()
        input_error(err)
        return None
    finally:
        flights.done(key)
    bar.empty()
    if res is not None:
        store.put(key, res)
    return res


def context() -> Context:
    """What a results page needs; stops the page with a message when there is no data or no result."""
    data = evalset()
    if data is None:
        st.stop()
    cfg = settings()
    if not cfg.config.levels and data.given is None:
        st.warning("Choose at least one token level in the sidebar.")
        st.stop()
    if not cfg.config.metrics and data.given is None:
        st.warning("Choose at least one metric in the sidebar.")
        st.stop()
    res = results(data, cfg.config)
    if res is None:
        st.stop()
    if data.given is not None:
        directions.warning(res)
    return Context(data, cfg, res, results_key(data, cfg.config))


# ------------------------------------------------------------------------------------------- statistics


@st.cache_resource(show_spinner=False)
def _ci_store() -> _Store:
    return _Store(MAX_RESULTS, STATISTICS_IDLE_SECONDS)


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
        with st.spinner(f"Bootstrapping 95% confidence intervals ({n_resamples} resamples of the segments)…"):
            return stored_views.intervals(ctx.results, n_resamples, statistics)

    return _remembered(_ci_store(), stored_views.intervals_key(ctx.key, n_resamples, statistics), compute)


def _remembered(store: _Store, key: str, compute: Callable[[], Any]) -> Any:
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


#: Up to this many (item × configuration) cells the bootstrap intervals are on when the page opens (the bundled
#: sample: 120 × 15 = 1,800): a few seconds at most; beyond, they are on once computed (cached) or asked for.
CHEAP_INTERVAL_CELLS = 5_000


def intervals_by_default(ctx: Context, statistics: tuple[str, ...], n_resamples: int = RESAMPLES) -> bool:
    """Whether the Correlations page opens with its intervals (of ``statistics``) on: already computed for these
    results (cached), or cheap (at most :data:`CHEAP_INTERVAL_CELLS` item × configuration cells)."""
    if cached_confidence_intervals(ctx, n_resamples, statistics) is not None:
        return True
    return len(ctx.results.seg_ids) * len(ctx.results.segment_matrices) <= CHEAP_INTERVAL_CELLS


#: Resampling settings of every significance test on the dashboard (shown next to the results, for citing).
N_RESAMPLES = RESAMPLES


@st.cache_resource(show_spinner=False)
def _stats_store() -> _Store:
    return _Store(4 * MAX_RESULTS, STATISTICS_IDLE_SECONDS)


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
    """The rank clusters the headline needs (:func:`stored_views.top_cluster`): cluster 1 in full, then at most the
    first configuration below it. Taken from the full significance matrix of the same settings when that was
    computed already; else from the caches, or computed with a progress bar and cached."""
    from korean_eval.model.vocabulary import grouping_used

    grouping = grouping_used(granularity, grouping)
    full = _stats_store().get(_stats_key(ctx, "significance", statistic, granularity, grouping, HEADLINE_TEST))
    if full is not None:
        return full[1][1]

    def compute():
        bar = st.progress(0.0, text=f"Finding the top significance cluster, {granularity} level…")

        def progress(fraction: float, message: str) -> None:
            bar.progress(fraction, text=f"Top significance cluster, {granularity} level: {message}")

        value = stored_views.top_cluster(ctx.results, statistic, granularity, grouping, progress=progress)
        bar.empty()
        return stored_views.top_cluster_name(statistic, granularity, grouping), value

    key = stored_views.top_cluster_key(ctx.key, statistic, granularity, grouping)
    return _remembered(_stats_store(), key, compute)[1][1]


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
    """The rank clusters a headline by ``acc_eq`` or ``spa`` needs
    (:func:`korean_eval.metaeval.tables.accuracy_significance.accuracy_top_cluster`): taken from the full table when
    it was computed already, else computed with a progress bar and cached."""
    from korean_eval.metaeval.tables import accuracy_significance as acc

    granularity, grouping, test = acc.ACCURACY_TESTS[statistic]
    full = _stats_store().get(_stats_key(ctx, "significance", statistic, granularity, grouping, test))
    if full is not None:
        return full[1][1]
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
    return hit[1][1]


def accuracy_comparison(ctx: Context, config_a: str, config_b: str, statistic: str) -> dict[str, Any]:
    """Whether ``config_a`` agrees more than ``config_b`` by ``acc_eq`` or ``spa`` (the test of
    :func:`accuracy_significance` for this one pair): ``{"p_values": {test: p}, "significant": p < α}``, cached."""
    from korean_eval.metaeval.tables import accuracy_significance as acc

    key = _stats_key(ctx, "compare-accuracy", config_a, config_b, statistic)
    store = _comparison_store()
    hit = store.get(key)
    if hit is None:
        table = acc.accuracy_significance_table(ctx.results, statistic, N_RESAMPLES, SEED, [config_a, config_b],
                                                [(config_a, config_b)])
        row = table[(table["config_a"] == config_a) & (table["config_b"] == config_b)]
        p = float(row["p_value"].iloc[0]) if len(row) else float("nan")
        hit = {"p_values": {acc.ACCURACY_TESTS[statistic][2]: p}, "significant": bool(p < ALPHA)}
        store.put(key, hit)
    return hit


@st.cache_resource(show_spinner=False)
def _comparison_store() -> _Store:
    return _Store(16 * MAX_RESULTS, STATISTICS_IDLE_SECONDS)


def comparison(ctx: Context, config_a: str, config_b: str, statistic: str, granularity: str, grouping: str,
               tests: tuple[str, ...] | None = None) -> dict[str, Any]:
    """``compare_two`` of two configurations with the dashboard's resampling settings, cached by content hash +
    settings."""
    from korean_eval.metaeval.tables.compare import compare_two

    key = _stats_key(ctx, "compare", config_a, config_b, statistic, granularity, grouping, tests)
    store = _comparison_store()
    hit = store.get(key)
    if hit is None:
        hit = compare_two(ctx.results, config_a, config_b, statistic=statistic, granularity=granularity,
                          grouping=grouping, n_permutations=N_RESAMPLES, seed=SEED, alpha=ALPHA, tests=tests)
        store.put(key, hit)
    return hit


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
def _display_store() -> _Store:
    return _Store(16 * MAX_RESULTS, service.limits().result_idle_seconds)


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
    """Every statistics table computed so far for these results (never computes): CSV file name → table."""
    out: dict[str, Any] = {}
    for _key, (name, value) in _stats_store().items_with_prefix(ctx.key + "|"):
        stem = safe_file_name(name)
        if isinstance(value, dict):  # several files (e.g. the error-span tables)
            out.update(value)
        elif isinstance(value, tuple):
            out[f"{stem}.csv"] = value[0]
            out[f"{stem.replace('significance_', 'clusters_', 1)}.csv"] = value[1]
        else:
            out[f"{stem}.csv"] = value
    return out


# ----------------------------------------------------------------------------------------------- tokens


@st.cache_resource(show_spinner="Starting the tokenizer…", max_entries=32)
def _level(name: str, data_hash: str, spm: str, _evalset: EvalSet, _config: EvalConfig):
    return prepare_level(name, _evalset, _config)


def spm_key(config: EvalConfig) -> str:
    """What decides the SentencePiece pieces: the vocabulary of the trained model, or the user's model (hash)."""
    return config.spm_model_id or f"trained:{config.spm_vocab}"


def tokenize(text: str, levels: list[str], evalset: EvalSet, config: EvalConfig) -> dict[str, list[str]]:
    """``text`` tokenised at each level (SentencePiece trained on the current references, as in the pipeline). The
    analyzers with a large model tokenise in a worker process when the server keeps them there
    (:func:`korean_eval.engine.pools.analyzers_in_workers`): their tokens are then the space-joined tokens the
    pipeline scores, split again."""
    out: dict[str, list[str]] = {}
    for name in levels:
        if name in WORKER_ANALYZER_LEVELS and analyzers_in_workers():
            (joined, _seconds, _fallbacks), _cpu = run_in_worker(task_tokenize, (name, [text]), level_role(name))
            out[name] = joined[0].split()
            continue
        level = _level(name, evalset.content_hash() if name == "spm" else "", spm_key(config), evalset, config)
        out[name] = level.tokenize_one(text)
    return out


@st.cache_data(show_spinner="Timing the tokenizers without the cache…", max_entries=8)
def tokenizer_timing(
    data_hash: str, levels: tuple[str, ...], spm: str, _evalset: EvalSet, _config: EvalConfig
) -> list[dict]:
    """Seconds each level takes to tokenise every distinct text of the data from scratch (no cache)."""
    texts = [r for stream in _evalset.refs for r in stream]
    texts += [h for hyps in _evalset.systems.values() for h in hyps if h is not None]
    rows = []
    for name in levels:
        if name in WORKER_ANALYZER_LEVELS and analyzers_in_workers():  # the model stays out of the server
            (_joined, seconds, _fallbacks), _cpu = run_in_worker(task_tokenize, (name, list(set(texts))),
                                                                 level_role(name))
            rows.append({"level": name, "seconds": seconds, "texts": len(set(texts))})
            continue
        level = prepare_level(
            name, _evalset, EvalConfig(levels=(name,), spm_vocab=_config.spm_vocab, spm_model=_config.spm_model)
        )
        result = level.tokenize(texts)
        rows.append({"level": name, "seconds": result.seconds, "texts": len(set(texts))})
    return rows
