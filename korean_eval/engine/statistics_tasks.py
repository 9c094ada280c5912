"""The statistics stage as tasks on the executor: confidence intervals and system pairs in chunks of
configurations, significance tests in chunks of configuration pairs, the human ceiling as one task.

Every task is a plain function of a trimmed :class:`~korean_eval.model.results.Results` (only the arrays its
configurations need) and the run's settings, so it runs the same in this process, in a local worker process or on
a Dask worker. The chunks are cut by the configurations' order alone, every task draws its resamples from the run's
seed (the same index matrix for every chunk), and the caller assembles the pieces in configuration order: the
tables are byte-identical to one call over every configuration, whatever runs the tasks and in whatever order they
finish.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import TypeVar

import numpy as np
import pandas as pd

from korean_eval.engine.blas_threads import pin_blas_threads
from korean_eval.model.results import Results

T = TypeVar("T")

Key = tuple[str, str]

#: Configurations per interval or system-pair task; configuration pairs per significance task.
CONFIGS_PER_TASK = 4
PAIRS_PER_TASK = 24


def trimmed(results: Results, keys: Sequence[Key] | None, with_stats: bool) -> Results:
    """``results`` with only what a statistics task reads: the segment matrices (and, ``with_stats``, the
    sufficient statistics) of ``keys`` (None: every configuration), no tokens and no per-segment score table."""
    chosen = list(results.segment_matrices) if keys is None else list(keys)
    return dataclasses.replace(
        results,
        segment_scores=results.segment_scores.iloc[:0],
        token_stats=results.token_stats.iloc[:0],
        timings=results.timings.iloc[:0],
        tokens={},
        segment_matrices={k: results.segment_matrices[k] for k in chosen},
        stats={k: results.stats[k] for k in chosen if k in results.stats} if with_stats else {},
        metrics={k: results.metrics[k] for k in chosen if k in results.metrics},
        human_ratings=None,
        spans=None,
        statistics={},
        evalset=None,
    )


def task_intervals(results: Results, n_resamples: int, seed: int) -> tuple[np.ndarray, float]:
    """Resampled correlations (:func:`korean_eval.metaeval.tables.intervals.bootstrap_correlations`) of the rows
    of the configurations ``results`` holds (NaN elsewhere); (values, CPU seconds)."""
    from korean_eval.metaeval.stats.resampling import bootstrap_indices, resample_counts
    from korean_eval.metaeval.tables.intervals import bootstrap_correlations

    start = time.process_time()
    pin_blas_threads()
    n_items = len(results.seg_ids)
    indices = bootstrap_indices(n_items, n_resamples, seed)
    values = bootstrap_correlations(results, resample_counts(indices, n_items), 1, indices)
    return values, time.process_time() - start


def task_significance(
    results: Results, pairs: list[tuple[Key, Key]], statistic: str, granularity: str, grouping: str,
    n_permutations: int, seed: int,
) -> tuple[pd.DataFrame, float]:
    """The significance rows of ``pairs`` (:func:`korean_eval.metaeval.tables.significance.significance_table`);
    (rows, CPU seconds)."""
    from korean_eval.metaeval.tables.significance import significance_table

    start = time.process_time()
    pin_blas_threads()
    table = significance_table(results, statistic=statistic, granularity=granularity, grouping=grouping,
                               n_permutations=n_permutations, seed=seed, pairs=pairs)
    return table, time.process_time() - start


def task_system_pairs(results: Results, configs: list[Key], n_resamples: int, seed: int) -> tuple[pd.DataFrame, float]:
    """The system-pair rows of ``configs`` (:func:`korean_eval.metaeval.tables.system_pairs.system_pairs_table`);
    (rows, CPU seconds)."""
    from korean_eval.metaeval.tables.system_pairs import system_pairs_table

    start = time.process_time()
    pin_blas_threads()
    table = system_pairs_table(results, n_resamples=n_resamples, seed=seed, configs=configs)
    return table, time.process_time() - start


def task_accuracy(results: Results, n_permutations: int, seed: int, statistic: str
                  ) -> tuple[tuple[pd.DataFrame, pd.DataFrame], float]:
    """Significance rows and clusters by one accuracy (``acc_eq`` or ``spa``) over every configuration
    (:func:`korean_eval.metaeval.tables.accuracy_significance.accuracy_tables`); (tables, CPU seconds)."""
    from korean_eval.metaeval.tables.accuracy_significance import accuracy_tables

    start = time.process_time()
    pin_blas_threads()
    tables = accuracy_tables(results, n_permutations=n_permutations, seed=seed, statistics=(statistic,))
    return tables, time.process_time() - start


def task_call(fn: Callable[..., T], *args) -> tuple[T, float]:
    """``fn(*args)`` as a statistics task, BLAS on one thread: (value, CPU seconds)."""
    start = time.process_time()
    pin_blas_threads()
    return fn(*args), time.process_time() - start


def task_ceiling(ratings: pd.DataFrame, systems: list[str], seg_ids: list[str], settings: dict, n_resamples: int,
                 seed: int) -> tuple[pd.DataFrame, float]:
    """The human ceiling with its intervals (:func:`korean_eval.metaeval.tables.human_ceiling.run_ceiling`);
    (table, CPU seconds)."""
    from korean_eval.metaeval.tables.human_ceiling import run_ceiling

    start = time.process_time()
    pin_blas_threads()
    table, _ = run_ceiling(ratings, systems, seg_ids, settings, resamples=n_resamples, seed=seed)
    return table, time.process_time() - start


def config_chunks(keys: Sequence[Key], size: int = CONFIGS_PER_TASK) -> list[list[Key]]:
    """``keys`` in consecutive chunks of ``size``."""
    return [list(keys[i:i + size]) for i in range(0, len(keys), size)]


def pair_chunks(keys: Sequence[Key], size: int = PAIRS_PER_TASK) -> list[list[tuple[Key, Key]]]:
    """Every unordered pair of ``keys`` (in :func:`itertools.combinations` order) in consecutive chunks."""
    pairs = list(combinations(keys, 2))
    return [pairs[i:i + size] for i in range(0, len(pairs), size)]


def merge_intervals(parts: Sequence[tuple[list[Key], np.ndarray]], correlations: pd.DataFrame) -> np.ndarray:
    """The resampled values of every correlation row: each row from the task that held its configuration."""
    n_resamples = parts[0][1].shape[1] if parts else 0
    out = np.full((len(correlations), n_resamples), np.nan)
    owner = {key: values for keys, values in parts for key in keys}
    for pos, key in enumerate(zip(correlations["level"].astype(str), correlations["metric"].astype(str),
                                  strict=True)):
        values = owner.get(key)
        if values is not None:
            out[pos] = values[pos]
    return out


def in_table_order(parts: Sequence[pd.DataFrame], keys: Sequence[Key], columns: Sequence[str]) -> pd.DataFrame:
    """Significance rows of several pair chunks in the order of one call over every pair: by ``config_a``, then
    ``config_b`` (configuration order), each pair's tests in the order each chunk gave them."""
    frames = [p for p in parts if not p.empty]
    if not frames:
        return pd.DataFrame(columns=list(columns))
    table = pd.concat(frames, ignore_index=True)
    position = {f"{level}/{metric}": i for i, (level, metric) in enumerate(keys)}
    order = np.lexsort((np.arange(len(table)), table["config_b"].map(position).to_numpy(),
                        table["config_a"].map(position).to_numpy()))
    return table.iloc[order].reset_index(drop=True)


def task_ranking(results: Results, configs: list[Key], settings) -> tuple[tuple[pd.DataFrame, pd.DataFrame], float]:
    """The ranking checks of ``configs`` (:func:`korean_eval.metaeval.tables.system_ranking.metric_pairs_table` and
    :func:`~korean_eval.metaeval.tables.system_ranking.system_ranking_table`, ``settings`` a
    :class:`~korean_eval.metaeval.tables.system_ranking.RankingSettings`); ((pairs, ranking), CPU seconds)."""
    from korean_eval.metaeval.tables.system_ranking import metric_pairs_table, system_ranking_table

    start = time.process_time()
    pin_blas_threads()
    pairs = metric_pairs_table(results, settings, configs)
    return (pairs, system_ranking_table(results, pairs, settings, configs)), time.process_time() - start
