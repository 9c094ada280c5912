"""Slow, readable definitions the fast statistics are tested against (docs/design.md §5): one scipy call per
resample or permutation, one Python loop per system. Nothing in the package calls them; the tests compare
:mod:`korean_eval.metaeval.stats.resampling`, :mod:`korean_eval.metaeval.stats.permutation` and the system-pair tables with
these loops (equal up to floating-point rounding).
"""

from __future__ import annotations

import itertools

import numpy as np

from korean_eval.metaeval.stats.correlation import (
    common_points,
    correlation,
    segment_correlation,
    system_correlation,
)
from korean_eval.metaeval.stats.pairwise import PairedBootstrap, paired_bootstrap_from_resamples
from korean_eval.metaeval.stats.permutation import PermutationDeltas, live_units, standardise, swap_patterns
from korean_eval.metaeval.stats.resampling import ScoresFromSums, check_indices, resample_counts


def _drawn_mean(values: np.ndarray) -> float:
    """Mean of the finite entries of ``values`` (each drawn copy counted); NaN if none."""
    present = values[np.isfinite(values)]
    return float(present.mean()) if present.size else float("nan")


def resampled_segment_correlations(
    metric: np.ndarray, human: np.ndarray, statistic: str, grouping: str, indices: np.ndarray
) -> np.ndarray:
    """Segment-level correlation of every resample: resample ``r`` takes the item columns ``indices[r]`` (with
    repetition) of both ``(n_systems, n_items)`` matrices, all systems of each drawn item together, and computes
    ``segment_correlation(metric[:, idx], human[:, idx], statistic, grouping)``."""
    metric = np.asarray(metric, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    indices = check_indices(indices, metric.shape[1])
    return np.array([segment_correlation(metric[:, idx], human[:, idx], statistic, grouping)[0] for idx in indices])


def resampled_system_correlations(
    stats: np.ndarray, scores_from_sums: ScoresFromSums, human: np.ndarray, statistic: str, indices: np.ndarray
) -> np.ndarray:
    """System-level correlation of every resample, system scores from *summed* statistics.

    ``stats``: ``(n_systems, n_items, k)`` (a row with a NaN = the system lacks that segment); ``human``:
    ``(n_systems, n_items)``, NaN where absent. In resample ``r``, system ``s``'s metric score is
    ``scores_from_sums`` of the sum of its drawn *present* rows (NaN if it drew none), its human score the mean of
    its drawn human scores (NaN if none); then the correlation across systems (``system_correlation``).
    """
    stats = np.asarray(stats, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    indices = check_indices(indices, stats.shape[1])
    values = []
    for idx in indices:
        metric_sys, human_sys = [], []
        for s in range(stats.shape[0]):
            rows = stats[s, idx]
            rows = rows[np.isfinite(rows).all(axis=1)]
            metric_sys.append(float(scores_from_sums(rows.sum(axis=0))) if len(rows) else float("nan"))
            human_sys.append(_drawn_mean(human[s, idx]))
        values.append(system_correlation(np.array(metric_sys), np.array(human_sys), statistic)[0])
    return np.array(values)


def resampled_system_correlations_from_scores(
    metric: np.ndarray, human: np.ndarray, statistic: str, indices: np.ndarray
) -> np.ndarray:
    """System-level correlation of every resample for metrics given only as segment scores (``(n_systems,
    n_items)``, NaN = absent): in resample ``r`` each system's metric and human score is the mean of its drawn
    present scores; then the correlation across systems."""
    metric = np.asarray(metric, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    indices = check_indices(indices, metric.shape[1])
    values = []
    for idx in indices:
        metric_sys = np.array([_drawn_mean(row[idx]) for row in metric])
        human_sys = np.array([_drawn_mean(row[idx]) for row in human])
        values.append(system_correlation(metric_sys, human_sys, statistic)[0])
    return np.array(values)


def _correlation_difference(
    x: np.ndarray, y: np.ndarray, h: np.ndarray, statistic: str, granularity: str, grouping: str
) -> float:
    """``correlation(x, h) − correlation(y, h)`` with the given statistic, granularity and grouping."""
    return correlation(x, h, statistic, granularity, grouping)[0] - correlation(y, h, statistic, granularity, grouping)[0]


def permutation_deltas_loop(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str,
    grouping: str,
    n_permutations: int,
    seed: int,
) -> PermutationDeltas:
    """Observed ``r(z_a, H) − r(z_b, H)`` and the permuted differences of the paired permutation test, one
    permutation at a time: the swap pattern ``p`` (:func:`korean_eval.metaeval.stats.permutation.swap_patterns`, one unit
    per item column at segment level, per system at system level) exchanges the two standardised configurations on
    the units it swaps, and both correlations are recomputed."""
    a, b, h, ok = common_points(metric_a, metric_b, human, granularity)
    za, zb = standardise(a, ok), standardise(b, ok)

    def delta(x: np.ndarray, y: np.ndarray) -> float:
        return _correlation_difference(x, y, h, statistic, granularity, grouping)

    patterns = swap_patterns(live_units(ok), n_permutations, seed)
    deltas = np.array([delta(np.where(swap, zb, za), np.where(swap, za, zb)) for swap in patterns.swaps])
    return PermutationDeltas(delta(za, zb), deltas, patterns.exact)


def permutation_deltas_wmt_loop(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    grouping: str,
    n_permutations: int,
    seed: int,
) -> PermutationDeltas:
    """WMT's permutation test at the segment level ("perm-wmt"), one permutation at a time: pattern ``p``
    (:func:`korean_eval.metaeval.stats.permutation.swap_patterns` over the flattened (system, item) grid) exchanges the two
    standardised configurations on every *point* it swaps, and both segment-level correlations are recomputed."""
    a, b, h, ok = common_points(metric_a, metric_b, human, "segment")
    za, zb = standardise(a, ok), standardise(b, ok)
    patterns = swap_patterns(ok.ravel(), n_permutations, seed)
    deltas = []
    for swap in patterns.swaps:
        grid = swap.reshape(ok.shape)
        deltas.append(
            _correlation_difference(np.where(grid, zb, za), np.where(grid, za, zb), h, statistic, "segment", grouping)
        )
    observed = _correlation_difference(za, zb, h, statistic, "segment", grouping)
    return PermutationDeltas(observed, np.array(deltas), patterns.exact)


def exact_permutation_p_loop(
    metric_a: np.ndarray, metric_b: np.ndarray, human: np.ndarray, statistic: str, granularity: str, grouping: str
) -> float:
    """The exact one-sided permutation p by brute force: ``itertools.product`` over every swap pattern of the live
    units (units with a common point), ``p = #{δ_p ≥ δ − 1e-12} / #{patterns with δ_p defined}``."""
    a, b, h, ok = common_points(metric_a, metric_b, human, granularity)
    za, zb = standardise(a, ok), standardise(b, ok)
    live = np.flatnonzero(live_units(ok))

    def delta(x: np.ndarray, y: np.ndarray) -> float:
        return _correlation_difference(x, y, h, statistic, granularity, grouping)

    observed = delta(za, zb)
    hits = valid = 0
    for pattern in itertools.product((False, True), repeat=live.size):
        swap = np.zeros(za.shape[-1], dtype=bool)
        swap[live] = pattern
        d = delta(np.where(swap, zb, za), np.where(swap, za, zb))
        if np.isfinite(d):
            valid += 1
            hits += d >= observed - 1e-12
    return hits / valid if np.isfinite(observed) and valid else float("nan")


def paired_bootstrap_metric(
    stats_a: np.ndarray,
    stats_b: np.ndarray,
    scores_from_sums: ScoresFromSums,
    indices: np.ndarray,
    dtype: type[np.floating] | np.dtype = np.float64,
) -> PairedBootstrap:
    """sacrebleu's paired bootstrap resampling (``sacrebleu.significance._paired_bs_test``) for two systems' metric.

    ``stats_a``, ``stats_b``: ``(n_items, k)`` per-segment statistics of two systems on the same items;
    ``indices``: ``(n_resamples, n_items)`` from :func:`korean_eval.metaeval.stats.resampling.bootstrap_indices`
    (sacrebleu draws ``default_rng(12345).choice(n, size=(1000, n), replace=True)`` — the same matrix for the
    default arguments). ``diff = scores_from_sums(Σ stats_a) - scores_from_sums(Σ stats_b)`` on the full set;
    per resample ``r``: ``s_a[r] = scores_from_sums(Σ_{i ∈ indices[r]} stats_a[i])``, likewise ``s_b[r]`` (the
    sums are cast to ``dtype`` before scoring; sacrebleu sums float32 statistics, so pass ``np.float32`` to
    reproduce its arithmetic bit for bit — for integer statistics below 2**24 the sums are then identical).
    p-value and interval: :func:`korean_eval.metaeval.stats.pairwise.paired_bootstrap_from_resamples`.
    """
    stats_a = np.asarray(stats_a, dtype=np.float64)
    stats_b = np.asarray(stats_b, dtype=np.float64)
    if stats_a.shape != stats_b.shape or stats_a.ndim != 2:
        raise ValueError(
            f"stats_a and stats_b must be equal (n_items, k) arrays, got {stats_a.shape}, {stats_b.shape}"
        )
    indices = check_indices(indices, stats_a.shape[0])
    full_a = float(scores_from_sums(stats_a.sum(axis=0)))
    full_b = float(scores_from_sums(stats_b.sum(axis=0)))
    counts = resample_counts(indices, stats_a.shape[0])
    res_a = np.asarray(scores_from_sums((counts @ stats_a).astype(dtype)), dtype=np.float64)
    res_b = np.asarray(scores_from_sums((counts @ stats_b).astype(dtype)), dtype=np.float64)
    return paired_bootstrap_from_resamples(full_a - full_b, res_a - res_b)


def paired_bootstrap_means_loop(values_a: np.ndarray, values_b: np.ndarray, indices: np.ndarray) -> PairedBootstrap:
    """The paired bootstrap of two systems' mean scores, one resample at a time: in resample ``r`` each system's
    mean over its drawn present items (each drawn copy counted), their difference; the full-set difference of the
    two means over their own present items. p-value and interval as sacrebleu's."""
    a = np.asarray(values_a, dtype=np.float64)
    b = np.asarray(values_b, dtype=np.float64)
    indices = check_indices(indices, a.shape[0])
    diffs = np.array([_drawn_mean(a[idx]) - _drawn_mean(b[idx]) for idx in indices])
    return paired_bootstrap_from_resamples(_drawn_mean(a) - _drawn_mean(b), diffs)
