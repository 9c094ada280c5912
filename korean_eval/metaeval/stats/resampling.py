"""Bootstrap resampling of items (docs/design.md §5): index and count matrices, percentile intervals, count-weighted
means, and the resampled correlations of the segment and system level, vectorised.

Layouts:

* a *metric matrix* ``M`` / *human matrix* ``H``: shape ``(n_systems, n_items)``, float64, ``NaN`` where a
  (system, item) pair has no score;
* per-segment *sufficient statistics* ``stats``: shape ``(n_systems, n_items, k)``, turned into system (corpus)
  scores only through a metric's vectorised ``scores_from_sums((..., k)) -> (...)`` applied to statistics *summed*
  over items — never by averaging segment scores;
* a *bootstrap index matrix* ``indices``: shape ``(n_resamples, n_items)``, row ``r`` the item indices of resample
  ``r`` (drawn with replacement). One seeded matrix (:func:`bootstrap_indices`) is drawn per run and reused by every
  bootstrap of that run, so all configurations are resampled identically (paired).

Every bootstrap resamples *items* (columns) with all their systems. Resampled statistics are summed with the item
*count matrix* ``C`` (:func:`resample_counts`; ``C[r, i]`` = how many times item ``i`` occurs in resample ``r``),
i.e. ``C @ stats``, which equals summing the drawn rows. The slow loops these functions are tested against are in
:mod:`korean_eval.metaeval.stats.reference`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from korean_eval.metaeval.stats.correlation import MIN_SYSTEMS
from korean_eval.metaeval.stats.pdp import bootstrap_pdp
from korean_eval.metaeval.stats.weighted import (
    Counts,
    check_counts,
    counts_matmul,
    rows2d,
    weighted_correlations,
)
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from korean_eval.model.vocabulary import GROUPINGS, check_choice, computed_statistic

ScoresFromSums = Callable[[np.ndarray], np.ndarray]


def bootstrap_indices(n_items: int, n_resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """The bootstrap index matrix of a run: shape ``(n_resamples, n_items)``, int64, items drawn with replacement.

    Drawn exactly as sacrebleu's paired bootstrap draws them:
    ``np.random.default_rng(seed).choice(n_items, size=(n_resamples, n_items), replace=True)`` (sacrebleu's default
    seed is 12345, its default resample count 1000), so with the same seed and count the resamples are identical.
    """
    if n_items < 1 or n_resamples < 1:
        raise ValueError(f"need n_items >= 1 and n_resamples >= 1, got {n_items}, {n_resamples}")
    rng = np.random.default_rng(seed)
    return np.asarray(rng.choice(n_items, size=(n_resamples, n_items), replace=True), dtype=np.int64)


def resample_counts(indices: np.ndarray, n_items: int) -> np.ndarray:
    """Count matrix ``C`` (``(n_resamples, n_items)``, float64): ``C[r, i]`` = occurrences of item ``i`` in row ``r``."""
    indices = np.asarray(indices)
    if indices.ndim != 2:
        raise ValueError(f"indices must be (n_resamples, n_items_drawn), got shape {indices.shape}")
    if indices.size and (indices.min() < 0 or indices.max() >= n_items):
        raise ValueError(f"indices out of range for {n_items} items")
    n_res = indices.shape[0]
    flat = (indices + np.arange(n_res)[:, None] * n_items).ravel()
    return np.bincount(flat, minlength=n_res * n_items).reshape(n_res, n_items).astype(np.float64)


def check_indices(indices: np.ndarray, n_items: int) -> np.ndarray:
    """``indices`` as an array, if it is an index matrix ``(n_resamples, n_items)`` (else ValueError)."""
    indices = np.asarray(indices)
    if indices.ndim != 2 or indices.shape[1] != n_items:
        raise ValueError(f"indices must be shaped (n_resamples, {n_items}), got {indices.shape}")
    return indices


def percentile_ci(values: np.ndarray, alpha: float = ALPHA) -> tuple[float, float]:
    """Percentile bootstrap interval (Efron & Tibshirani 1993, ch. 13): the ``alpha/2`` and ``1 - alpha/2``
    quantiles (numpy "linear" interpolation) of the finite ``values``; ``(NaN, NaN)`` if none is finite (resamples
    with an undefined statistic are dropped)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(v, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(lo), float(hi)


def count_weighted_means(counts: np.ndarray | Counts, values: np.ndarray) -> np.ndarray:
    """Per resample and row of ``values`` (``(n_rows, n_items)`` or one row ``(n_items,)``; NaN = absent), the mean
    over the resampled items where the value is present, each item weighted by its count:
    ``Σ_i C[r, i]·v[i] / Σ_i C[r, i]`` over present ``i`` — ``(n_resamples, n_rows)``, NaN where no present item
    was drawn. (E.g. each system's mean human score in every resample.)"""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[None, :]
    present = np.isfinite(values)
    both = np.ascontiguousarray(np.hstack([np.where(present, values, 0.0).T, present.T.astype(np.float64)]))
    sums = counts_matmul(counts, both)
    num, den = sums[:, : values.shape[0]], sums[:, values.shape[0] :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def mean_of_defined(values: np.ndarray) -> np.ndarray:
    """Column-wise mean of the finite entries of ``(n_rows, n)``; NaN where none is finite (no warning). The mean
    over groups of a grouped correlation, per resample."""
    defined = np.isfinite(values)
    n_def = defined.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_def > 0, np.where(defined, values, 0.0).sum(axis=0) / np.maximum(n_def, 1), np.nan)


def bootstrap_segment_correlations(
    metric: np.ndarray, human: np.ndarray, statistic: str, grouping: str, counts: np.ndarray
) -> np.ndarray:
    """Resampled segment-level correlations, vectorised: ``(n_resamples,)``.

    ``metric``, ``human``: ``(n_systems, n_items)`` (NaN = absent); ``counts``: :func:`resample_counts` of the index
    matrix. Entry ``r`` equals ``segment_correlation(metric[:, idx_r], human[:, idx_r], statistic, grouping)[0]``
    (up to rounding; the loop is :func:`korean_eval.metaeval.stats.reference.resampled_segment_correlations`):

    * ``none``: one weighted point set of all (system, item) points, each weighted by its item's count;
    * ``item``: a drawn column's across-system correlation does not change with resampling, so each item's
      correlation is computed once and resample ``r`` takes their ``counts[r]``-weighted mean over the items where
      it is defined (repeated columns counted repeatedly);
    * ``system``: per system, the correlation across items weighted by ``counts[r]``; the mean over the systems
      where it is defined.

    ``pdp`` (grouped): :func:`korean_eval.metaeval.stats.pdp.bootstrap_pdp`, its pooled sums weighted by the counts;
    ungrouped it is Pearson.
    """
    check_choice("grouping", grouping, GROUPINGS)
    statistic = computed_statistic(statistic, "segment", grouping)
    metric = np.asarray(metric, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    if metric.shape != human.shape or metric.ndim != 2:
        raise ValueError(
            f"metric and human must be equal (n_systems, n_items) matrices, got {metric.shape}, {human.shape}"
        )
    n_sys, n_items = metric.shape
    checked = check_counts(counts)
    if checked.shape[1] != n_items:
        raise ValueError(f"counts must have {n_items} columns, got {checked.shape}")
    weights = Counts(rows=checked)  # both layouts made once, shared by every call below
    if statistic == "pdp":
        return bootstrap_pdp(metric, human, grouping, weights)
    if grouping == "none":
        cols = np.tile(np.arange(n_items, dtype=np.int64), n_sys)
        return weighted_correlations(metric.ravel(), human.ravel(), statistic, weights, cols)
    if grouping == "item":
        per_item = weighted_correlations(metric.T, human.T, statistic)
        defined = np.isfinite(per_item)
        return count_weighted_means(weights, np.where(defined, per_item, np.nan))[:, 0]
    per_sys = np.stack([weighted_correlations(metric[s], human[s], statistic, weights) for s in range(n_sys)])
    return mean_of_defined(per_sys)


def bootstrap_system_scores(stats: np.ndarray, scores_from_sums: ScoresFromSums, counts: np.ndarray) -> np.ndarray:
    """Every system's metric score in every resample, from *summed* statistics: ``(n_resamples, n_systems)``.

    ``stats``: ``(n_systems, n_items, k)``; a row that is not entirely finite (a system without that segment — the
    pipeline's NaN rows) is *absent*: it contributes zero to the sums, so a system's score is computed over its own
    segments only, as its full-set system score is. Score of system ``s`` in resample ``r`` =
    ``scores_from_sums(Σ_i counts[r, i] · stats[s, i])`` over its present rows (one vectorised call); NaN when the
    resample drew none of its segments.
    """
    stats = np.asarray(stats, dtype=np.float64)
    if stats.ndim != 3:
        raise ValueError(f"stats must be (n_systems, n_items, k), got {stats.shape}")
    counts = check_counts(counts)
    if counts.shape[1] != stats.shape[1]:
        raise ValueError(f"counts must have {stats.shape[1]} columns, got {counts.shape}")
    present = np.all(np.isfinite(stats), axis=2)
    filled = np.where(present[..., None], stats, 0.0)
    n_sys, n_items, k = stats.shape
    flat = np.ascontiguousarray(np.concatenate([filled, present[..., None]], axis=2).transpose(1, 0, 2))
    prods = counts_matmul(counts, flat.reshape(n_items, n_sys * (k + 1))).reshape(-1, n_sys, k + 1)
    sums, drawn = prods[..., :k], prods[..., k]  # summed statistics (n_resamples, n_systems, k), drawn segments
    out = np.full(drawn.shape, np.nan)
    some = drawn > 0
    if some.any():
        out[some] = np.asarray(scores_from_sums(sums[some]), dtype=np.float64)
    return out


def system_correlations(metric_sys: np.ndarray, human_sys: np.ndarray, statistic: str) -> np.ndarray:
    """Row-wise :func:`korean_eval.metaeval.stats.correlation.system_correlation`, vectorised: ``(n_rows,)``.

    ``metric_sys``, ``human_sys``: ``(n_systems,)`` or ``(n_rows, n_systems)`` per-system scores (NaN = absent; one
    row may be shared), e.g. :func:`bootstrap_system_scores` and :func:`count_weighted_means` of the human matrix.
    Row ``b`` is the correlation across the systems with both scores, NaN when fewer than
    :data:`korean_eval.metaeval.stats.correlation.MIN_SYSTEMS` systems have both (or the correlation is undefined).
    """
    statistic = computed_statistic(statistic, "system", "none")
    xs, ys = rows2d(metric_sys, "metric_sys"), rows2d(human_sys, "human_sys")
    if xs.shape[1] != ys.shape[1] or len({xs.shape[0], ys.shape[0]} - {1}) > 1:
        raise ValueError(f"metric_sys and human_sys must be compatible (rows, systems), got {xs.shape}, {ys.shape}")
    values = weighted_correlations(xs, ys, statistic)
    n_both = (np.isfinite(xs) & np.isfinite(ys)).sum(axis=1)
    return np.where(n_both < MIN_SYSTEMS, np.nan, values)
