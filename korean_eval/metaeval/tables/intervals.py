"""Bootstrap confidence intervals of every correlation of one :class:`~korean_eval.model.results.Results`
(docs/design.md §5).

Resampling: every bootstrap resamples *items* (segments) with all their systems, using one seeded index matrix
(:func:`korean_eval.metaeval.stats.resampling.bootstrap_indices`, sacrebleu's draw for the same seed and size) shared by
every row, so all configurations are resampled identically (paired). Missing segments: a system without some
segment has NaN there in ``results.stats``, ``results.segment_matrices`` and ``results.human_matrix``; such entries
are *absent* — NaN statistics rows contribute zero to the summed statistics, so a system's metric score (full set
or resample) is computed over its own segments only, exactly as its reported system score, and its human score is
the mean over its own scored items. A resample that draws none of a system's segments leaves that system out.
System scores always come from **summed** statistics (``metric.scores_from_sums``), except for bring-your-own
metrics (no statistics), whose system score is the mean of their segment scores. System-level human scores given
directly (``results.human_system``) are not resampled: they stay fixed while the metric side is resampled.
Intervals keep the raw sign of ``results.correlations``.

The pairwise accuracies get intervals from the same draw (:mod:`korean_eval.metaeval.stats.accuracy_resampling`):
``acc_eq`` over items with ε chosen again in every resample, ``acc_eq`` over all pairs at the full set's ε (kept
fixed: re-searching it walks every pooled pair in every resample), pairwise accuracy of the resampled system scores,
and SPA of every resample (its permutation p-values recomputed with the run's SPA permutations and seed).
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd

from korean_eval.metaeval.stats.accuracy_resampling import (
    item_acc_eq_resamples,
    item_accuracy_steps,
    pairwise_accuracy_resamples,
    pooled_acc_eq_resamples,
    pooled_agreement,
    resampled_p_values,
    spa_from_p_values,
)
from korean_eval.metaeval.stats.resampling import (
    bootstrap_indices,
    bootstrap_segment_correlations,
    bootstrap_system_scores,
    count_weighted_means,
    percentile_ci,
    resample_counts,
    system_correlations,
)
from korean_eval.metaeval.tables.configs import has_human
from korean_eval.metaeval.tables.threads import map_threads
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import STATISTICS, Config, direction_sign, parse_config

#: Resamples per block of the pairwise accuracies' bootstrap (bounds the memory of one block).
RESAMPLE_BLOCK = 100


def bootstrap_counts(n_items: int, n_resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Item count matrix ``(n_resamples, n_items)`` of the run's seeded bootstrap index matrix
    (:func:`korean_eval.metaeval.stats.resampling.resample_counts` of
    :func:`korean_eval.metaeval.stats.resampling.bootstrap_indices`)."""
    return resample_counts(bootstrap_indices(n_items, n_resamples, seed), n_items)


def resampled_system_scores(results: Results, config: Config, counts: np.ndarray) -> np.ndarray:
    """Every system's metric score of ``config`` in every resample, ``(n_resamples, n_systems)``.

    From summed statistics (:func:`korean_eval.metaeval.stats.resampling.bootstrap_system_scores`: NaN statistics rows
    are absent and contribute zero) for pipeline metrics; the count-weighted mean of the present segment scores
    (:func:`korean_eval.metaeval.stats.resampling.count_weighted_means`) for bring-your-own metrics. NaN where a resample
    drew none of a system's segments.
    """
    key = parse_config(config)
    if key in results.stats and key in results.metrics:
        return bootstrap_system_scores(results.stats[key], results.metrics[key].scores_from_sums, counts)
    return count_weighted_means(counts, results.segment_matrices[key])


def in_resample_blocks(fn, rows: np.ndarray) -> np.ndarray:
    """``fn`` of consecutive blocks of :data:`RESAMPLE_BLOCK` rows of ``rows``, concatenated (a block's values do not
    depend on the others)."""
    return np.concatenate([fn(rows[i:i + RESAMPLE_BLOCK]) for i in range(0, len(rows), RESAMPLE_BLOCK)])


def accuracy_resamples(results: Results, key: tuple[str, str], row: pd.Series, counts: np.ndarray,
                       metric_sys: np.ndarray | None, human_sys: np.ndarray) -> np.ndarray:
    """The resampled ``acc_eq`` (groupings ``item`` and ``none``) or pairwise accuracy of one row of
    ``results.correlations``: ``(n_resamples,)`` (module docstring; NaN for another statistic or grouping, and for
    ``acc_eq`` over all pairs beyond :data:`korean_eval.metaeval.stats.tie_calibrated.MAX_PAIRS` pairs).
    ``metric_sys``: :func:`resampled_system_scores` of the configuration (pairwise accuracy only)."""
    sign = direction_sign(results.higher_is_better(key[1], key[0]))
    human = np.asarray(results.human_matrix, dtype=np.float64)
    if row["statistic"] == "pairwise_accuracy" and metric_sys is not None:
        return pairwise_accuracy_resamples(sign * metric_sys, human_sys)
    signed = sign * np.asarray(results.segment_matrices[key], dtype=np.float64)
    if row["statistic"] == "acc_eq" and row["grouping"] == "item":
        steps = item_accuracy_steps(signed, human)
        return in_resample_blocks(lambda block: item_acc_eq_resamples(steps, block), counts)
    if row["statistic"] == "acc_eq" and row["grouping"] == "none" and np.isfinite(row["epsilon"]):
        try:
            agreement = pooled_agreement(signed, human, float(row["epsilon"]))
        except ValueError:  # more pairs than the point estimate compares
            return np.full(len(counts), np.nan)
        return pooled_acc_eq_resamples(agreement, counts)  # (resamples × items) @ (items × items): one product
    return np.full(len(counts), np.nan)


def spa_resamples(results: Results, keys: list[tuple[str, str]], indices: np.ndarray) -> dict[tuple[str, str], np.ndarray]:
    """Resampled SPA of every configuration of ``keys``: key → ``(n_resamples,)``; empty when the run has no SPA
    (``settings["spa_permutations"]`` 0) or fewer than 2 systems.

    Resample ``r`` (row ``r`` of the index matrix ``indices``) is SPA of the resampled data
    (:func:`korean_eval.metaeval.stats.soft_pairwise.spa_of_segment_scores` of the drawn items, with the run's
    permutations and seed; :func:`korean_eval.metaeval.stats.accuracy_resampling.resampled_p_values`): an item is used
    where every system has a human and a metric score, so the identity resample gives the reported SPA. NaN in a
    resample that draws no usable item. The configurations that use the same items share their matrix products."""
    n_perm = int(results.settings.get("spa_permutations", 0) or 0)
    seed = int(results.settings.get("seed", SEED))
    human = np.asarray(results.human_matrix, dtype=np.float64)
    if n_perm <= 0 or human.shape[0] < 2 or not keys:
        return {}
    scored = np.isfinite(human).all(axis=0)
    groups: dict[bytes, list[tuple[str, str]]] = {}
    for key in keys:
        usable = scored & np.isfinite(results.segment_matrices[key]).all(axis=0)
        groups.setdefault(usable.tobytes(), []).append(key)
    out = {}
    for mask_key, members in groups.items():
        usable = np.frombuffer(mask_key, dtype=bool)
        stack = np.stack([np.where(usable, human, 0.0)]
                         + [direction_sign(results.higher_is_better(k[1], k[0]))
                            * np.where(usable, results.segment_matrices[k], 0.0) for k in members])

        def block_spa(block: np.ndarray, stack: np.ndarray = stack, usable: np.ndarray = usable) -> np.ndarray:
            p = resampled_p_values(stack, usable, n_perm, seed, block)
            return spa_from_p_values(p[:, :1], p[:, 1:])

        values = in_resample_blocks(block_spa, indices)  # (n_resamples, members)
        out.update({k: values[:, i] for i, k in enumerate(members)})
    return out


def bootstrap_correlations(
    results: Results, counts: np.ndarray, jobs: int | None = 1, indices: np.ndarray | None = None,
    statistics: Collection[str] | None = None,
) -> np.ndarray:
    """Resampled correlation of every row of ``results.correlations``: ``(n_rows, n_resamples)``, row order kept.

    Resample ``r`` weights item ``i`` by ``counts[r, i]`` (all systems of an item together):

    * segment rows: :func:`korean_eval.metaeval.stats.resampling.bootstrap_segment_correlations` of
      ``results.segment_matrices`` and ``results.human_matrix`` with the row's statistic and grouping;
    * system rows: each system's metric score recomputed from the resampled summed statistics
      (:func:`resampled_system_scores`) against its resampled mean human score (or its system-level human score
      given directly, ``results.human_system``, fixed), correlated across the systems
      (:func:`korean_eval.metaeval.stats.resampling.system_correlations`).

    * ``acc_eq`` and pairwise accuracy rows: :func:`accuracy_resamples`; ``spa`` rows: :func:`spa_resamples`, which
      needs the index matrix ``indices`` itself (whose count matrix ``counts`` is) — without it they are NaN.

    A row whose configuration is unknown, or any row when there are no human scores, is all NaN. With
    ``counts = np.ones((1, n_items))`` (and ``indices = np.arange(n_items)[None]``) every row reproduces its point
    estimate (``value``; SPA when every item is usable). ``jobs``: worker threads over configurations (``None``: one
    per CPU, at most 4); the values do not depend on it. ``statistics``: only rows of these statistics are resampled
    (the others stay NaN; a row's values do not depend on which others are computed); None: every row.
    """
    corr = results.correlations
    counts = np.asarray(counts, dtype=np.float64)
    out = np.full((len(corr), counts.shape[0]), np.nan)
    if corr.empty or not has_human(results):
        return out
    human = np.asarray(results.human_matrix, dtype=np.float64)
    if results.human_system is None:
        human_sys = count_weighted_means(counts, human)
    else:  # given at system level: one row shared by every resample
        human_sys = np.asarray(results.human_system, dtype=np.float64)
    positions: dict[tuple[str, str], list[int]] = {}
    for pos, (level, metric, statistic) in enumerate(zip(corr["level"], corr["metric"], corr["statistic"], strict=True)):
        if statistics is None or statistic in statistics:
            positions.setdefault((str(level), str(metric)), []).append(pos)
    keys = [k for k in positions if k in results.segment_matrices]

    def one_config(key: tuple[str, str]) -> list[tuple[int, np.ndarray]]:
        seg = results.segment_matrices[key]
        metric_sys: np.ndarray | None = None
        done = []
        for pos in positions[key]:
            row = corr.iloc[pos]
            if row["statistic"] == "spa":  # all configurations at once, below
                continue
            if row["statistic"] not in STATISTICS:
                if row["statistic"] == "pairwise_accuracy" and metric_sys is None:
                    metric_sys = resampled_system_scores(results, key, counts)
                done.append((pos, accuracy_resamples(results, key, row, counts, metric_sys, human_sys)))
                continue
            if row["granularity"] == "segment":
                values = bootstrap_segment_correlations(seg, human, row["statistic"], row["grouping"], counts)
            else:
                if metric_sys is None:
                    metric_sys = resampled_system_scores(results, key, counts)
                values = system_correlations(metric_sys, human_sys, row["statistic"])
            done.append((pos, values))
        return done

    for chunk in map_threads(one_config, keys, jobs):
        for pos, values in chunk:
            out[pos] = values
    with_spa = [k for k in keys if any(corr["statistic"].iloc[pos] == "spa" for pos in positions[k])]
    if indices is not None and with_spa:
        spa = spa_resamples(results, with_spa, np.asarray(indices))
        for key, values in spa.items():
            for pos in positions[key]:
                if corr["statistic"].iloc[pos] == "spa":
                    out[pos] = values
    return out


def add_confidence_intervals(
    results: Results,
    n_resamples: int = RESAMPLES,
    seed: int = SEED,
    alpha: float = ALPHA,
    jobs: int | None = 1,
    statistics: Collection[str] | None = None,
) -> pd.DataFrame:
    """A copy of ``results.correlations`` with ``ci_low``/``ci_high`` filled for every row (of ``statistics`` only,
    when given: the other rows' intervals stay NaN; each row's interval is the same either way).

    Percentile bootstrap intervals (``alpha/2`` and ``1 − alpha/2`` quantiles of the resampled correlations,
    resamples with an undefined correlation dropped; :func:`korean_eval.metaeval.stats.resampling.percentile_ci`) over
    ``n_resamples`` item resamples from one seeded index matrix shared by all rows (:func:`bootstrap_correlations`):

    * segment level — items resampled with all their systems, the correlation recomputed with the row's grouping
      (``none``: all (system, item) pairs; ``item``: mean of per-item across-system correlations; ``system``:
      mean of per-system across-item correlations);
    * system level — each system's metric score recomputed from the *summed* statistics of the resampled items
      (absent segments contribute nothing) and its human score as the mean over its resampled scored items; the
      correlation across systems recomputed;
    * the pairwise accuracies (``acc_eq``, ``pairwise_accuracy``, ``spa``) recomputed on the same resamples (module
      docstring).

    Values keep the raw sign (an agreeing error-rate metric has a negative interval). The result's
    ``attrs["confidence_intervals"]`` records method, ``n_resamples``, ``seed``, ``alpha`` and ``statistics``. ``jobs``: worker
    threads (see :func:`bootstrap_correlations`; 1 by default).
    """
    out = results.correlations.copy()
    n_items = len(results.seg_ids)
    if out.empty or n_items == 0:
        return out
    indices = bootstrap_indices(n_items, n_resamples, seed)
    values = bootstrap_correlations(results, resample_counts(indices, n_items), jobs, indices, statistics)
    return confidence_interval_table(results, values, n_resamples, seed, alpha, statistics)


def confidence_interval_table(
    results: Results, values: np.ndarray, n_resamples: int = RESAMPLES, seed: int = SEED, alpha: float = ALPHA,
    statistics: Collection[str] | None = None,
) -> pd.DataFrame:
    """A copy of ``results.correlations`` with the percentile intervals of ``values`` (one row of resampled values
    per correlation row, :func:`bootstrap_correlations`) as ``ci_low``/``ci_high``, and their settings in
    ``attrs["confidence_intervals"]`` (``statistics``: the statistics whose rows have intervals, None for all)."""
    out = results.correlations.copy()
    if out.empty or len(results.seg_ids) == 0:
        return out
    bounds = np.array([percentile_ci(v, alpha) for v in values]).reshape(-1, 2)
    out["ci_low"] = bounds[:, 0]
    out["ci_high"] = bounds[:, 1]
    out.attrs["confidence_intervals"] = {
        "method": "percentile bootstrap over items (system scores from summed statistics)",
        "n_resamples": int(n_resamples),
        "seed": int(seed),
        "alpha": float(alpha),
        "statistics": None if statistics is None else sorted(statistics),
    }
    return out


def merge_interval_tables(correlations: pd.DataFrame, tables: list[pd.DataFrame]) -> pd.DataFrame:
    """``correlations`` (a copy) with the intervals of ``tables`` — :func:`add_confidence_intervals` tables of the
    same results and resampling, each for some statistics — filled in for the rows of their statistics; the other
    rows' ``ci_low``/``ci_high`` are NaN; ``attrs["confidence_intervals"]`` lists the statistics covered."""
    merged = correlations.copy()
    merged["ci_low"], merged["ci_high"] = np.nan, np.nan
    covered: set[str] = set()
    for table in tables:
        meta = table.attrs["confidence_intervals"]
        statistics = meta["statistics"] if meta["statistics"] is not None else sorted(set(table["statistic"]))
        rows = table["statistic"].isin(statistics).to_numpy()
        merged.loc[rows, ["ci_low", "ci_high"]] = table.loc[rows, ["ci_low", "ci_high"]].to_numpy()
        covered.update(statistics)
    if tables:
        merged.attrs["confidence_intervals"] = {**tables[0].attrs["confidence_intervals"], "statistics": sorted(covered)}
    return merged
