"""The statistics of one evaluation — bootstrap intervals, significance tests, rank clusters, system pairs — cached
like the scores (docs/design.md §5).

:func:`statistics_tables` computes, for a :class:`~korean_eval.model.results.Results` with human scores:

* the ``correlations`` table with its bootstrap confidence intervals
  (:func:`korean_eval.metaeval.tables.intervals.add_confidence_intervals`);
* ``significance.csv``: the significance table of both granularities
  (:func:`korean_eval.metaeval.tables.significance.significance_table`; segment level with the statistic's
  :func:`~korean_eval.model.vocabulary.headline_grouping`: ``item`` for PDP, else ``none``);
* ``clusters.csv``: WMT-style rank clusters from those tables (:func:`~korean_eval.metaeval.tables.significance.rank_clusters_table`);
* in both, the rows of WMT's pairwise accuracies — ``acc_eq`` over items (test ``perm-pairs``) and SPA (test
  ``perm-wmt``) — with their ``statistic`` (:func:`korean_eval.metaeval.tables.accuracy_significance.accuracy_tables`);
* ``system_pairs.csv``: the system-pair tests (:func:`korean_eval.metaeval.tables.system_pairs.system_pairs_table`),
* ``human_ceiling.csv``, when the human scores come from several raters: the human ceiling with its bootstrap
  intervals on the same resamples (:func:`korean_eval.metaeval.tables.human_ceiling.human_ceiling`),

and :func:`ranking_tables`, for every run of two or more systems, human scores or not: ``metric_pairs.csv``,
``system_ranking.csv`` and ``order_splits.csv`` (:mod:`korean_eval.metaeval.tables.system_ranking`: sacrebleu's
paired bootstrap and approximate randomization between every two systems, clusters of systems),

every resampling with ``resamples`` draws and one ``seed``. The tables are a function of the evaluation and of these
settings only, so they are stored in the cache (blob kind ``statistics``, at most
:data:`korean_eval.engine.cache.MAX_RESULTS` kept) under a key made of the evaluation's stored-result key
(:func:`korean_eval.engine.result_store.result_key`: data, settings, versions, package source) and the settings; an
unchanged rerun loads them instead of resampling again. A result that is not stored (no cache, ``--no-cache``) is
computed each time. The statistics modules (scipy, numba) are imported only when something is computed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from korean_eval.engine.blas_threads import one_blas_thread
from korean_eval.engine.cache import NullCache
from korean_eval.engine.progress import Progress, Ticker
from korean_eval.engine.result_store import digest, load_result, store_result
from korean_eval.engine.stopping import StopSignal, check_stop
from korean_eval.model.config import EvalConfig, RankingSettings
from korean_eval.model.defaults import AR_TRIALS, RESAMPLES, SEED
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import GRANULARITIES, headline_grouping

STATISTICS_CACHE_VERSION = 3
RANKING_CACHE_VERSION = 1
CLUSTER_FILE_COLUMNS = ["granularity", "statistic", "level", "metric", "value", "correlation", "cluster"]


@dataclass(frozen=True)
class StatisticsSettings:
    """What the statistics depend on besides the evaluation: resamples (bootstrap draws and permutations; 0 = none),
    their seed, the correlation statistic the significance tests and clusters compare, and the approximate
    randomization trials of the ranking checks (0 = that test skipped)."""

    resamples: int = RESAMPLES
    seed: int = SEED
    statistic: str = "pearson"
    ar_trials: int = AR_TRIALS


@dataclass
class StatisticsTables:
    """The correlations with their intervals, and the other tables by file name (``significance.csv``,
    ``clusters.csv``, ``system_pairs.csv``); ``loaded``: whether they came from the cache."""

    correlations: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    loaded: bool = False


def wants_statistics(results: Results, settings: StatisticsSettings) -> bool:
    """Whether there is anything to compute: resamples > 0 and at least one human score."""
    return settings.resamples > 0 and results.human_matrix.size > 0 and bool(np.isfinite(results.human_matrix).any())


def statistics_key(results: Results, settings: StatisticsSettings) -> str | None:
    """The cache key of the statistics of ``results`` with ``settings``; None when the result is not stored."""
    if not results.result_key:
        return None
    fields = asdict(settings)
    fields.pop("ar_trials")  # read by the ranking checks only
    return digest({"version": STATISTICS_CACHE_VERSION, "result": results.result_key, "settings": fields})


def compute_statistics(results: Results, settings: StatisticsSettings, config: EvalConfig | None = None,
                       progress: Progress | None = None, stop: StopSignal | None = None) -> StatisticsTables:
    """Every statistics table of ``results`` (see the module docstring), computed now: as tasks
    (:mod:`korean_eval.engine.statistics_tasks`) on the workers of ``config`` (its ``jobs`` or ``scheduler``) when
    the run is large enough for them, else in this process; the same bytes either way. ``progress`` hears
    ``statistics: n of m tasks done``; ``stop`` is checked between the tasks
    (:mod:`korean_eval.engine.stopping`)."""
    from korean_eval.engine.workers import Scheduler, make_scheduler

    sched = make_scheduler(config) if config is not None else Scheduler(1)  # Scheduler(1): this process
    ticker = Ticker(progress, 1, stop)
    with sched:  # a lease on the pools; queued tasks cancelled if the stage stops early
        sched.watch = ticker.watch
        return _compute(results, settings, sched, ticker)


def _compute(results: Results, settings: StatisticsSettings, sched, ticker: Ticker) -> StatisticsTables:
    """:func:`compute_statistics` on ``sched``."""
    from korean_eval.engine import statistics_tasks as st
    from korean_eval.metaeval.tables.accuracy_significance import ACCURACY_TESTS, accuracy_tables
    from korean_eval.metaeval.tables.intervals import confidence_interval_table
    from korean_eval.metaeval.tables.significance import SIGNIFICANCE_COLUMNS, rank_clusters_table

    n, seed, statistic = settings.resamples, settings.seed, settings.statistic
    grouping = headline_grouping(statistic)  # segment level: item for PDP, else none
    keys = list(results.segment_matrices)
    pool = sched.pool(int(np.isfinite(results.human_matrix).sum()))
    jobs = []

    def submit(fn, *args):
        jobs.append(sched.submit(fn, args, ("statistics", fn.__name__), pool))
        return jobs[-1]

    interval_jobs = [(chunk, submit(st.task_intervals, st.trimmed(results, chunk, True), n, seed))
                     for chunk in st.config_chunks(keys)]
    shared = st.trimmed(results, None, False)
    significance_jobs = {
        g: [submit(st.task_significance, shared, pairs, statistic, g, grouping, n, seed)
            for pairs in st.pair_chunks(keys)]
        for g in GRANULARITIES
    }
    pair_jobs = [submit(st.task_system_pairs, st.trimmed(results, chunk, True), chunk, n, seed)
                 for chunk in st.config_chunks(keys)]
    accuracy_results = st.trimmed(results, None, True)
    # acc_eq's test is one task; SPA's permutation blocks are tasks of their own, dispatched from here
    accuracy_jobs = [submit(st.task_accuracy, accuracy_results, n, seed, name) for name in ACCURACY_TESTS
                     if name != "spa"]
    ceiling_job = None
    if results.human_ratings is not None:
        ceiling_job = submit(st.task_ceiling, results.human_ratings, results.systems, results.seg_ids,
                             results.settings, n, seed)
    ticker.track("statistics", jobs, "tasks done")
    spa_tables = []
    if "spa" in ACCURACY_TESTS:  # its permutation blocks, tasks of their own, dispatched from here

        def map_blocks(fn, arguments: list[tuple]) -> list:
            spa_jobs = [sched.submit(st.task_call, (fn, *a), ("statistics", fn.__name__), pool) for a in arguments]
            ticker.track("statistics", [*jobs, *spa_jobs], "tasks done")
            return [job.result() for job in spa_jobs]

        spa_tables.append(accuracy_tables(accuracy_results, n_permutations=n, seed=seed, statistics=("spa",),
                                          map_blocks=map_blocks))
    accuracy_tables_by = [job.result() for job in accuracy_jobs] + spa_tables  # acc_eq, then SPA
    values = st.merge_intervals([(chunk, job.result()) for chunk, job in interval_jobs], results.correlations)
    with_ci = confidence_interval_table(results, values, n_resamples=n, seed=seed)
    frames = [st.in_table_order([job.result() for job in significance_jobs[g]], keys, SIGNIFICANCE_COLUMNS)
              for g in GRANULARITIES]
    clusters = [
        rank_clusters_table(results, statistic=statistic, granularity=g, grouping=grouping, table=table).assign(
            granularity=g, statistic=statistic
        )
        for g, table in zip(GRANULARITIES, frames, strict=True)
    ]
    for accuracy_significance, accuracy_clusters in accuracy_tables_by:  # acc_eq, then SPA
        frames.append(accuracy_significance)
        clusters.append(accuracy_clusters)
    pair_frames = [job.result() for job in pair_jobs]
    tables = {
        "significance.csv": pd.concat([f for f in frames if len(f)] or frames[:1], ignore_index=True),
        "clusters.csv": pd.concat([c for c in clusters if len(c)] or clusters[:1],
                                  ignore_index=True)[CLUSTER_FILE_COLUMNS],
        "system_pairs.csv": pd.concat(pair_frames, ignore_index=True) if pair_frames else _empty_pairs(),
    }
    if ceiling_job is not None:
        tables["human_ceiling.csv"] = ceiling_job.result()
    return StatisticsTables(with_ci, tables)


def _empty_pairs() -> pd.DataFrame:
    from korean_eval.metaeval.tables.system_pairs import SYSTEM_PAIR_COLUMNS

    return pd.DataFrame(columns=SYSTEM_PAIR_COLUMNS)


def statistics_tables(
    results: Results, settings: StatisticsSettings, cache: NullCache | None = None,
    config: EvalConfig | None = None, progress: Progress | None = None, stop: StopSignal | None = None,
) -> StatisticsTables | None:
    """The statistics of ``results`` (None when :func:`wants_statistics` is false), from the cache when an
    identical evaluation's were stored, else computed (and stored when the result is; ``progress`` and ``stop``:
    :func:`compute_statistics`)."""
    if not wants_statistics(results, settings):
        return None
    cache = cache or NullCache()
    key = statistics_key(results, settings) if cache.enabled and cache.store_results else None
    if key is not None:
        stored = load_result(cache, key, kind="statistics")
        if isinstance(stored, StatisticsTables):
            stored.loaded = True
            return stored
    with one_blas_thread():
        computed = compute_statistics(results, settings, config, progress, stop)
    if key is not None:
        store_result(cache, key, computed, kind="statistics")
    return computed


def ranking_tables(
    results: Results, settings: StatisticsSettings, cache: NullCache | None = None,
    config: EvalConfig | None = None, progress: Progress | None = None, stop: StopSignal | None = None,
) -> dict[str, pd.DataFrame]:
    """The ranking checks of ``results`` by file name (``metric_pairs.csv``, ``system_ranking.csv``,
    ``order_splits.csv``; :mod:`korean_eval.metaeval.tables.system_ranking`) with ``settings``' resamples, trials
    and seed: ``{}`` without resamples or with fewer than two systems. As tasks of a few configurations each on the
    workers of ``config`` when the run is large enough (the same bytes either way), cached like the statistics."""
    if settings.resamples <= 0 or len(results.systems) < 2 or not results.segment_matrices:
        return {}
    ranking = RankingSettings(resamples=settings.resamples, ar_trials=settings.ar_trials, seed=settings.seed)
    cache = cache or NullCache()
    key = None
    if cache.enabled and cache.store_results and results.result_key:
        key = digest({"version": RANKING_CACHE_VERSION, "result": results.result_key, "settings": asdict(ranking)})
        stored = load_result(cache, key, kind="statistics")
        if isinstance(stored, dict):
            return stored
    from korean_eval.engine import statistics_tasks as st
    from korean_eval.engine.workers import Scheduler, make_scheduler
    from korean_eval.metaeval.tables.system_ranking import order_splits_table

    keys = list(results.segment_matrices)
    sched = make_scheduler(config) if config is not None else Scheduler(1)
    ticker = Ticker(progress, 1, stop)
    with sched, one_blas_thread():
        sched.watch = ticker.watch
        pool = sched.pool(len(results.systems) * len(results.seg_ids) * len(keys))
        jobs = [sched.submit(st.task_ranking, (st.trimmed(results, chunk, True), chunk, ranking),
                             ("statistics", "task_ranking"), pool) for chunk in st.config_chunks(keys)]
        ticker.track("ranking checks", jobs, "tasks done")
        parts = [job.result() for job in jobs]
    pairs = pd.concat([p for p, _ in parts], ignore_index=True)
    tables = {
        "metric_pairs.csv": pairs,
        "system_ranking.csv": pd.concat([r for _, r in parts], ignore_index=True),
        "order_splits.csv": order_splits_table(pairs),
    }
    if key is not None:
        store_result(cache, key, tables, kind="statistics")
    return tables


def evaluation_tables(
    results: Results, evalset, settings: StatisticsSettings, cache: NullCache | None = None,
    config: EvalConfig | None = None, progress: Progress | None = None, stop: StopSignal | None = None,
) -> dict[str, pd.DataFrame]:
    """Every table of a run beside the result's own, by file name: the statistics (:func:`statistics_tables`;
    ``results.correlations`` gets their intervals), per-domain tables, the ratings and the human ceiling, and with
    error spans the span tables; ``results.notes`` gets the degenerate-data notes of the correlations
    (:func:`korean_eval.metaeval.tables.degenerate.degenerate_notes`); on few systems or segments, notes beside the
    values (:func:`korean_eval.engine.small_samples.annotate_small_samples`). The one entry point of the CLI's
    ``run`` and of :func:`korean_eval.evaluate`. ``progress`` hears the statistics' tasks, then ``done`` at 1;
    ``stop`` is checked between the tasks and the tables (:mod:`korean_eval.engine.stopping`)."""
    from korean_eval.engine.small_samples import annotate_small_samples
    from korean_eval.exports.csv_zip import domain_tables, rating_tables
    from korean_eval.metaeval.tables.degenerate import degenerate_notes

    extra: dict[str, pd.DataFrame] = {}
    found = statistics_tables(results, settings, cache, config, progress, stop)
    check_stop(stop)
    if found is not None:
        results.correlations = found.correlations
        extra.update(found.tables)
    check_stop(stop)
    extra.update(ranking_tables(results, settings, cache, config, None, stop))
    results.notes = results.notes + [n for n in degenerate_notes(results.correlations) if n not in results.notes]
    extra.update(domain_tables(results, evalset))
    extra.update(rating_tables(results, extra))
    if results.spans is not None:
        from korean_eval.lens.span_detection import span_tables  # Kiwi: only with error spans

        check_stop(stop)
        extra.update(span_tables(results, evalset.systems, settings.statistic, settings.resamples, settings.seed,
                                 cache))
    annotate_small_samples(results, extra)
    check_stop(stop)
    if progress is not None:
        progress(1.0, "done")
    return extra
