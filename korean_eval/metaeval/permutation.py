"""The paired permutation test of two configurations' correlations with the same human scores (Deutsch, Dror & Roth
2021, "A Statistical Analysis of Summarization Evaluation Metrics using Resampling Methods"; mt-metrics-eval
``PermutationSigDiff``), vectorised (docs/design.md §5).

p-value convention: one-sided, "configuration a correlates better than b"; the reverse direction comes from the
same coins (:func:`permutation_p` of the negated differences). The slow loop this is tested against is
:func:`korean_eval.metaeval.reference.permutation_deltas_loop`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from korean_eval.metaeval.correlation import MIN_SYSTEMS, common_points
from korean_eval.metaeval.names import grouping_used
from korean_eval.metaeval.resampling import count_weighted_means, mean_of_defined
from korean_eval.metaeval.weighted import Counts, weighted_correlations

# Absolute tolerance under which a permuted difference of correlations counts as equal to the observed one.
TIE_EPS = 1e-12


def standardise(x: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """z-scores over the present entries ``x[ok]`` (population sd); a constant input is only centred."""
    vals = x[ok]
    if vals.size == 0:
        return x.copy()
    sd = float(vals.std())
    return (x - vals.mean()) / (sd if sd > 0 else 1.0)


def permutation_coins(seed: int, n_permutations: int, n_units: int) -> np.ndarray:
    """The seeded fair coins of the test: ``np.random.default_rng(seed).integers(2, size=(n_permutations, n_units),
    dtype=bool)``; ``True`` swaps the two configurations on that unit in that permutation."""
    return np.random.default_rng(seed).integers(2, size=(n_permutations, n_units), dtype=bool)


@lru_cache(maxsize=4)
def _coin_weights(seed: int, n_permutations: int, n_units: int) -> tuple[np.ndarray, np.ndarray]:
    """The coins of :func:`permutation_coins` as the transposed weights ``(2·n_units, 1 + n_permutations)`` of (a's
    copies, b's copies) for the permuted a and for the permuted b; column 0 is the identity (no swap). Cached and
    read-only: every pair of a significance table uses the same coins."""
    flips = permutation_coins(seed, n_permutations, n_units)
    heads_t = np.zeros((n_units, n_permutations + 1))
    heads_t[:, 1:] = flips.T
    tails_t = 1.0 - heads_t
    keep_a, keep_b = np.vstack([tails_t, heads_t]), np.vstack([heads_t, tails_t])
    keep_a.flags.writeable = False
    keep_b.flags.writeable = False
    return keep_a, keep_b


def permutation_deltas(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = 1000,
    seed: int = 12345,
) -> tuple[float, np.ndarray]:
    """Observed ``δ = r(z_a, H) − r(z_b, H)`` and the ``n_permutations`` permuted differences ``δ_p`` of
    :func:`permutation_test`, vectorised.

    A permutation keeps, per unit (item at segment level, system at system level), either a's or b's standardised
    scores. Both candidates of every unit form one point set of twice the size; a permutation is a 0/1 weighting
    of it (heads: b's copy for the permuted a, a's copy for the permuted b), so every permutation is one row of
    :func:`korean_eval.metaeval.weighted.weighted_correlations` — no re-sorting per permutation. Item grouping
    needs no recomputation at all: an item's correlation is either a's or b's. The identity weighting gives ``δ``,
    so a permutation equal to the identity reproduces ``δ`` exactly. Pass the result to :func:`permutation_p`.
    """
    a, b, h, ok = common_points(metric_a, metric_b, human, granularity)
    grouping = grouping_used(granularity, grouping)
    za, zb = standardise(a, ok), standardise(b, ok)
    keep_a_t, keep_b_t = _coin_weights(seed, n_permutations, a.shape[-1])  # one unit per column (or system)
    keep = (Counts(t=keep_a_t), Counts(t=keep_b_t))
    if granularity == "system":
        diff = _pooled(statistic, za, zb, h, keep[0]) - _pooled(statistic, za, zb, h, keep[1])
        if ok.sum() < MIN_SYSTEMS:  # as system_correlation: undefined with too few systems
            diff = np.full_like(diff, np.nan)
    elif grouping == "none":
        n_sys, n_items = a.shape
        cols = np.concatenate([np.tile(np.arange(n_items), n_sys), n_items + np.tile(np.arange(n_items), n_sys)])
        za, zb, h = za.ravel(), zb.ravel(), h.ravel()
        diff = _pooled(statistic, za, zb, h, keep[0], cols) - _pooled(statistic, za, zb, h, keep[1], cols)
    elif grouping == "item":
        per_item = np.concatenate(
            [weighted_correlations(za.T, h.T, statistic), weighted_correlations(zb.T, h.T, statistic)]
        )
        diff = count_weighted_means(keep[0], per_item)[:, 0] - count_weighted_means(keep[1], per_item)[:, 0]
    else:
        per_a = [_pooled(statistic, za[s], zb[s], h[s], keep[0]) for s in range(a.shape[0])]
        per_b = [_pooled(statistic, za[s], zb[s], h[s], keep[1]) for s in range(a.shape[0])]
        diff = mean_of_defined(np.stack(per_a)) - mean_of_defined(np.stack(per_b))
    return float(diff[0]), diff[1:]


def _pooled(
    statistic: str, za: np.ndarray, zb: np.ndarray, h: np.ndarray, keep: Counts, cols: np.ndarray | None = None
) -> np.ndarray:
    """Correlation with ``h`` of the point set "a's copies then b's copies" (``za``, ``zb`` 1-d) under every
    row of the 0/1 weights ``keep`` (``cols``: the weight column of each point; default one per point)."""
    return weighted_correlations(np.concatenate([za, zb]), np.concatenate([h, h]), statistic, keep, cols)


def permutation_p(observed: float, deltas: np.ndarray) -> float:
    """One-sided permutation p-value of :func:`permutation_test` from ``(observed, deltas)``:
    ``(#{δ_p ≥ δ − 1e-12} + 1) / (n_valid + 1)`` over the finite ``δ_p``; NaN if ``δ`` is not finite. For the
    opposite direction ("b beats a") pass ``(-observed, -deltas)``."""
    if not np.isfinite(observed):
        return float("nan")
    d = np.asarray(deltas, dtype=np.float64)
    d = d[np.isfinite(d)]
    return float((np.sum(d >= observed - TIE_EPS) + 1) / (d.size + 1))


def permutation_test(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = 1000,
    seed: int = 12345,
) -> float:
    """One-sided paired permutation test (Deutsch et al., 2021) that configuration a correlates better than b.

    Points missing in any of the three inputs are dropped from all three. Each configuration's scores are
    standardised (z-score over all its present scores, population sd). Observed statistic ``δ = r(z_a, H) - r(z_b,
    H)``. Permutation ``p`` flips a seeded fair coin per *unit* — per item (column, all systems of that item
    together) at segment level (``granularity="segment"``, ``(n_systems, n_items)`` matrices, correlation
    :func:`korean_eval.metaeval.correlation.segment_correlation` with ``grouping``), per system at system level
    (``granularity="system"``, per-system vectors) — and swaps the two configurations' standardised scores on the
    units that came up heads, giving ``δ_p``. Coins: :func:`permutation_coins`.

    ``p = (#{p : δ_p ≥ δ} + 1) / (n_valid + 1)`` (one-sided; ``≥`` with a 1e-12 tolerance; permutations whose
    correlation is undefined are dropped from count and ``n_valid``). NaN if ``δ`` is undefined. Computed by
    :func:`permutation_deltas` and :func:`permutation_p`.
    """
    return permutation_p(
        *permutation_deltas(metric_a, metric_b, human, statistic, granularity, grouping, n_permutations, seed)
    )
