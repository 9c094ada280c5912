"""The paired permutation test of two configurations' correlations with the same human scores (Deutsch, Dror & Roth
2021, "A Statistical Analysis of Summarization Evaluation Metrics using Resampling Methods"; mt-metrics-eval
``PermutationSigDiff``), vectorised (docs/design.md §5), in two variants: ``perm-inputs``
(:func:`permutation_deltas`: a segment's scores swapped for all systems together, respecting that scores are
clustered by segment) and ``perm-wmt`` (:func:`permutation_deltas_wmt`: each (system, segment) score swapped alone,
what mt-metrics-eval's ``PermutationSigDiff`` does, to reproduce WMT's p-values).

p-value convention: one-sided, "configuration a correlates better than b"; the reverse direction comes from the
same patterns (:meth:`PermutationDeltas.reversed`). Exact when small — every one of the ``2^n`` swap patterns when
there are ``n ≤ 16`` units, ``p = #{δ_p ≥ δ} / 2^n`` — Monte-Carlo otherwise, ``p = (#{δ_p ≥ δ} + 1) /
(n_permutations + 1)`` (:func:`permutation_p`). The slow loops this is tested against are
:func:`korean_eval.metaeval.stats.reference.permutation_deltas_loop` and
:func:`korean_eval.metaeval.stats.reference.exact_permutation_p_loop`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from korean_eval.metaeval.stats.correlation import MIN_SYSTEMS, common_points
from korean_eval.metaeval.stats.pdp import pdp_rows, permuted_pdp
from korean_eval.metaeval.stats.power import MAX_EXACT_UNITS
from korean_eval.metaeval.stats.resampling import count_weighted_means, mean_of_defined
from korean_eval.metaeval.stats.weighted import Counts, pearson_fixed_points, weighted_correlations
from korean_eval.model.defaults import RESAMPLES, SEED
from korean_eval.model.vocabulary import PERMUTATION_TESTS, check_choice, computed_statistic, grouping_used

# Absolute tolerance under which a permuted difference of correlations counts as equal to the observed one.
TIE_EPS = 1e-12


def standardise(x: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """z-scores over the present entries ``x[ok]`` (population sd); a constant input is only centred."""
    return standardise_rows(np.reshape(x, (1, -1)), np.ravel(ok))[0].reshape(np.shape(x))


def standardise_rows(xs: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """:func:`standardise` of every row of ``xs`` ``(n_rows, n)`` over the same present columns ``ok`` ``(n,)``, each
    row as if alone: numpy reduces each row of a row-major array as it reduces a 1-d array (``xs[:, ok]`` alone is
    column-major, whose rows numpy sums in another order)."""
    vals = np.ascontiguousarray(xs[:, ok])
    if vals.shape[1] == 0:
        return xs.copy()
    sd = vals.std(axis=1, keepdims=True)
    return (xs - vals.mean(axis=1, keepdims=True)) / np.where(sd > 0, sd, 1.0)


def permutation_coins(seed: int, n_permutations: int, n_units: int) -> np.ndarray:
    """The seeded fair coins of the Monte-Carlo test: ``np.random.default_rng(seed).integers(2, size=(n_permutations,
    n_units), dtype=bool)``; ``True`` swaps the two configurations on that unit in that permutation."""
    return np.random.default_rng(seed).integers(2, size=(n_permutations, n_units), dtype=bool)


class SwapPatterns(NamedTuple):
    """The swap patterns of one permutation test: ``swaps[p, u]`` True swaps the two configurations on unit ``u`` in
    pattern ``p``; ``exact`` says whether they are *every* pattern of the live units (else Monte-Carlo coins)."""

    swaps: np.ndarray
    exact: bool


def swap_patterns(live_units: np.ndarray, n_permutations: int, seed: int) -> SwapPatterns:
    """The patterns a permutation test runs over, given which units are *live* (hold at least one common point).

    With ``k`` live units, ``k ≤ MAX_EXACT_UNITS`` (16): all ``2^k`` patterns of the live units, pattern ``p``
    swapping live unit ``j`` iff bit ``j`` of ``p`` is set (pattern 0 is the identity; dead units are never swapped,
    which changes nothing) — the exact test. Otherwise ``n_permutations`` Monte-Carlo patterns over *all* units,
    :func:`permutation_coins` of ``seed``.
    """
    live = np.asarray(live_units, dtype=bool).ravel()
    n_live = int(live.sum())
    if n_live > MAX_EXACT_UNITS:
        return SwapPatterns(permutation_coins(seed, n_permutations, live.size), False)
    codes = np.arange(2**n_live, dtype=np.int64)
    swaps = np.zeros((codes.size, live.size), dtype=bool)
    swaps[:, live] = ((codes[:, None] >> np.arange(n_live, dtype=np.int64)) & 1).astype(bool)
    return SwapPatterns(swaps, True)


def permutation_method(exact: bool, n_patterns: int) -> str:
    """How a permutation p-value was computed, for the tables: ``"exact, 16 patterns"`` or ``"Monte-Carlo, 1000
    permutations"``."""
    return f"exact, {n_patterns} patterns" if exact else f"Monte-Carlo, {n_patterns} permutations"


class PermutationDeltas(NamedTuple):
    """Observed ``δ`` and the permuted ``δ_p`` of a permutation test, and whether the ``δ_p`` are every swap pattern
    (``exact``, the identity among them) or Monte-Carlo draws (the identity not among them)."""

    observed: float
    deltas: np.ndarray
    exact: bool

    @property
    def method(self) -> str:
        """:func:`permutation_method` of these deltas."""
        return permutation_method(self.exact, len(self.deltas))

    def p_value(self) -> float:
        """:func:`permutation_p` of these deltas: the one-sided p that a beats b."""
        return permutation_p(self.observed, self.deltas, self.exact)

    def reversed(self) -> PermutationDeltas:
        """The same test for the pair (b, a): every difference negated (the same patterns)."""
        return PermutationDeltas(-self.observed, -np.asarray(self.deltas), self.exact)


def live_units(ok: np.ndarray) -> np.ndarray:
    """Which units of a test hold a common point: per item column of a ``(n_systems, n_items)`` mask, per system of
    a per-system mask."""
    ok = np.asarray(ok, dtype=bool)
    return ok.any(axis=0) if ok.ndim == 2 else ok


@lru_cache(maxsize=4)
def _swap_weights(seed: int, n_permutations: int, live_key: bytes) -> tuple[np.ndarray, np.ndarray, bool]:
    """The patterns of :func:`swap_patterns` (live units given as the bytes of the bool mask) as the transposed
    weights ``(2·n_units, 1 + n_patterns)`` of (a's copies, b's copies) for the permuted a and for the permuted b;
    column 0 is the identity (no swap). Cached and read-only: every pair of a significance table uses the same
    patterns."""
    patterns = swap_patterns(np.frombuffer(live_key, dtype=bool), n_permutations, seed)
    n_patterns, n_units = patterns.swaps.shape
    heads_t = np.zeros((n_units, n_patterns + 1))
    heads_t[:, 1:] = patterns.swaps.T
    tails_t = 1.0 - heads_t
    keep_a, keep_b = np.vstack([tails_t, heads_t]), np.vstack([heads_t, tails_t])
    keep_a.flags.writeable = False
    keep_b.flags.writeable = False
    return keep_a, keep_b, patterns.exact


def permutation_deltas(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = RESAMPLES,
    seed: int = SEED,
) -> PermutationDeltas:
    """Observed ``δ = r(z_a, H) − r(z_b, H)`` and the permuted differences ``δ_p`` of :func:`permutation_test`
    (every swap pattern when there are at most 16 live units, else ``n_permutations`` Monte-Carlo ones;
    :func:`swap_patterns`), vectorised.

    A permutation keeps, per unit (item at segment level, system at system level), either a's or b's standardised
    scores. Both candidates of every unit form one point set of twice the size; a permutation is a 0/1 weighting
    of it (heads: b's copy for the permuted a, a's copy for the permuted b), so every permutation is one row of
    :func:`korean_eval.metaeval.stats.weighted.weighted_correlations` — no re-sorting per permutation. Item grouping
    needs no recomputation at all: an item's correlation is either a's or b's. The identity weighting gives ``δ``,
    so a permutation equal to the identity reproduces ``δ`` exactly. ``.p_value()`` of the result is the p. Grouped
    ``pdp``: :func:`korean_eval.metaeval.stats.pdp.permuted_pdp` (its pooled sums under the same weights).
    """
    grouping = grouping_used(granularity, grouping)
    if granularity == "system":
        return system_permutation_deltas([(metric_a, metric_b)], human, statistic, n_permutations, seed)[0]
    a, b, h, ok = common_points(metric_a, metric_b, human, granularity)
    statistic = computed_statistic(statistic, granularity, grouping)
    za, zb = standardise(a, ok), standardise(b, ok)
    keep_a_t, keep_b_t, exact = _swap_weights(seed, n_permutations, live_units(ok).tobytes())  # a unit per column
    keep = (Counts(t=keep_a_t), Counts(t=keep_b_t))
    if grouping == "none":
        n_sys, n_items = a.shape
        cols = np.concatenate([np.tile(np.arange(n_items), n_sys), n_items + np.tile(np.arange(n_items), n_sys)])
        za, zb, h = za.ravel(), zb.ravel(), h.ravel()
        diff = _pooled(statistic, za, zb, h, keep[0], cols) - _pooled(statistic, za, zb, h, keep[1], cols)
    elif statistic == "pdp":
        diff = permuted_pdp(za, zb, h, grouping, keep[0]) - permuted_pdp(za, zb, h, grouping, keep[1])
    elif grouping == "item":
        per_item = np.concatenate(
            [weighted_correlations(za.T, h.T, statistic), weighted_correlations(zb.T, h.T, statistic)]
        )
        diff = count_weighted_means(keep[0], per_item)[:, 0] - count_weighted_means(keep[1], per_item)[:, 0]
    else:
        per_a = [_pooled(statistic, za[s], zb[s], h[s], keep[0]) for s in range(a.shape[0])]
        per_b = [_pooled(statistic, za[s], zb[s], h[s], keep[1]) for s in range(a.shape[0])]
        diff = mean_of_defined(np.stack(per_a)) - mean_of_defined(np.stack(per_b))
    return PermutationDeltas(float(diff[0]), diff[1:], exact)


def system_permutation_deltas(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    human: np.ndarray,
    statistic: str,
    n_permutations: int = RESAMPLES,
    seed: int = SEED,
) -> list[PermutationDeltas]:
    """:func:`permutation_deltas` at the system level of every pair ``(metric_a, metric_b)`` of per-system vectors,
    identical values: the pairs whose common systems are the same share their swap patterns, and for Pearson (and
    PDP, its Pearson r here) their pooled correlations are one :func:`~korean_eval.metaeval.stats.weighted.
    pearson_fixed_points` call (each pair computed as if alone); Spearman and Kendall pool each pair by itself."""
    statistic = computed_statistic(statistic, "system", "none")
    common = [common_points(a, b, human, "system") for a, b in pairs]
    out: list[PermutationDeltas | None] = [None] * len(pairs)
    by_mask: dict[bytes, list[int]] = {}
    for index, (_, _, _, ok) in enumerate(common):
        by_mask.setdefault(ok.tobytes(), []).append(index)
    for mask_key, members in by_mask.items():
        _, _, h, ok = common[members[0]]
        za = standardise_rows(np.stack([common[i][0] for i in members]), ok)
        zb = standardise_rows(np.stack([common[i][1] for i in members]), ok)
        keep_a_t, keep_b_t, exact = _swap_weights(seed, n_permutations, mask_key)
        diff = _pooled_rows(statistic, za, zb, h, Counts(t=keep_a_t)) - _pooled_rows(statistic, za, zb, h,
                                                                                       Counts(t=keep_b_t))
        if ok.sum() < MIN_SYSTEMS:  # as system_correlation: undefined with too few systems
            diff = np.full_like(diff, np.nan)
        for row, index in enumerate(members):
            out[index] = PermutationDeltas(float(diff[row, 0]), diff[row, 1:], exact)
    return out  # type: ignore[return-value]


def _pooled_rows(statistic: str, za: np.ndarray, zb: np.ndarray, h: np.ndarray, keep: Counts) -> np.ndarray:
    """:func:`_pooled` of every row pair ``(za[r], zb[r])`` (per-system vectors, all with the same present systems
    as ``h``): ``(n_rows, n_weight_rows)``."""
    xs, y = np.concatenate([za, zb], axis=1), np.concatenate([h, h])
    present = np.isfinite(xs) & np.isfinite(y)  # the points weighted_correlations keeps
    if statistic != "pearson" or not (present == present[:1]).all():
        return np.stack([_pooled(statistic, a, b, h, keep) for a, b in zip(za, zb, strict=True)])
    cols = np.flatnonzero(present[0])
    return pearson_fixed_points(np.ascontiguousarray(xs[:, cols]), y[cols], keep, cols)


def permutation_deltas_wmt(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = RESAMPLES,
    seed: int = SEED,
) -> PermutationDeltas:
    """Observed ``δ`` and permuted ``δ_p`` of WMT's permutation test ("perm-wmt"): mt-metrics-eval
    ``PermutationSigDiff``, which swaps every (system, segment) score *independently* (``w1 =
    np.random.binomial(1, 0.5, len(mscores1))`` over the flattened vector of present scores).

    Standardisation, ``δ`` and the p-value convention as in :func:`permutation_deltas`; the units are the
    (system, item) points of the ``(n_systems, n_items)`` grid (row-major), exact over every pattern of the present
    points when there are at most 16 of them (:func:`swap_patterns`), else ``n_permutations`` seeded coin patterns
    over the grid. The correlation of each permuted matrix is recomputed with ``grouping``. This ignores that the
    scores of one segment are clustered (Deutsch et al. 2021 call it PERM-BOTH); :func:`permutation_deltas` swaps
    whole segments. At the system level a unit is a system in both variants, so this *is*
    :func:`permutation_deltas`.
    """
    if granularity == "system":
        return permutation_deltas(metric_a, metric_b, human, statistic, granularity, grouping, n_permutations, seed)
    a, b, h, ok = common_points(metric_a, metric_b, human, granularity)
    grouping = grouping_used(granularity, grouping)
    statistic = computed_statistic(statistic, granularity, grouping)
    za, zb = standardise(a, ok), standardise(b, ok)
    patterns = swap_patterns(ok.ravel(), n_permutations, seed)
    swaps = np.vstack([np.zeros((1, ok.size), dtype=bool), patterns.swaps]).reshape(-1, *ok.shape)
    chunk = max(1, (1 << 20) // max(ok.size, 1))
    diff = np.concatenate(
        [
            _grid_correlations(np.where(s, zb, za), h, statistic, grouping)
            - _grid_correlations(np.where(s, za, zb), h, statistic, grouping)
            for s in (swaps[i : i + chunk] for i in range(0, len(swaps), chunk))
        ]
    )
    return PermutationDeltas(float(diff[0]), diff[1:], patterns.exact)


def deltas_of_test(
    test: str,
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = RESAMPLES,
    seed: int = SEED,
) -> PermutationDeltas:
    """The permutation test named ``test``: ``"perm-inputs"`` (:func:`permutation_deltas`, whole segments swapped)
    or ``"perm-wmt"`` (:func:`permutation_deltas_wmt`, each (system, segment) score swapped alone)."""
    check_choice("permutation test", test, PERMUTATION_TESTS)
    run = permutation_deltas if test == "perm-inputs" else permutation_deltas_wmt
    return run(metric_a, metric_b, human, statistic, granularity, grouping, n_permutations, seed)


def _grid_correlations(x: np.ndarray, h: np.ndarray, statistic: str, grouping: str) -> np.ndarray:
    """Segment-level correlation with ``h`` (``(n_systems, n_items)``) of every matrix of ``x`` (``(n_rows,
    n_systems, n_items)``), NaN = absent: over all points (``none``) or the mean of the defined per-item / per-system
    correlations; grouped ``pdp``: :func:`korean_eval.metaeval.stats.pdp.pdp_rows`."""
    n_rows, n_sys, n_items = x.shape
    if statistic == "pdp":
        return pdp_rows(x, h, grouping)
    if grouping == "none":
        return weighted_correlations(x.reshape(n_rows, -1), h.ravel(), statistic)
    if grouping == "item":
        per_group = weighted_correlations(
            x.transpose(0, 2, 1).reshape(-1, n_sys), np.tile(h.T, (n_rows, 1)), statistic
        ).reshape(n_rows, n_items)
    else:
        per_group = weighted_correlations(x.reshape(-1, n_items), np.tile(h, (n_rows, 1)), statistic).reshape(
            n_rows, n_sys
        )
    return mean_of_defined(per_group.T)


def _pooled(
    statistic: str, za: np.ndarray, zb: np.ndarray, h: np.ndarray, keep: Counts, cols: np.ndarray | None = None
) -> np.ndarray:
    """Correlation with ``h`` of the point set "a's copies then b's copies" (``za``, ``zb`` 1-d) under every
    row of the 0/1 weights ``keep`` (``cols``: the weight column of each point; default one per point)."""
    return weighted_correlations(np.concatenate([za, zb]), np.concatenate([h, h]), statistic, keep, cols)


def permutation_p(observed: float, deltas: np.ndarray, exact: bool = False) -> float:
    """One-sided permutation p-value of :func:`permutation_test` from ``(observed, deltas, exact)``, over the finite
    ``δ_p`` (``n_valid`` of them); NaN if ``δ`` is not finite:

    * exact (``deltas`` are every swap pattern, the identity among them): ``#{δ_p ≥ δ − 1e-12} / n_valid`` — the
      probability of a difference at least as large under the null, so ``p ≥ 1/2^n`` (Fisher 1935; Good 2005,
      "Permutation, Parametric and Bootstrap Tests of Hypotheses", §3);
    * Monte-Carlo (random patterns, the identity not among them): ``(#{δ_p ≥ δ − 1e-12} + 1) / (n_valid + 1)``, the
      observed data counted as one more permutation (Phipson & Smyth 2010, "Permutation P-values Should Never Be
      Zero"; mt-metrics-eval's ``PermutationSigDiff`` reports ``#{δ_p ≥ δ} / k`` instead).

    For the opposite direction ("b beats a") pass ``(-observed, -deltas, exact)``."""
    if not np.isfinite(observed):
        return float("nan")
    d = np.asarray(deltas, dtype=np.float64)
    d = d[np.isfinite(d)]
    hits = int(np.sum(d >= observed - TIE_EPS))
    if exact:
        return float(hits / d.size) if d.size else float("nan")
    return float((hits + 1) / (d.size + 1))


def permutation_test(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = RESAMPLES,
    seed: int = SEED,
) -> float:
    """One-sided paired permutation test (Deutsch et al., 2021) that configuration a correlates better than b.

    Points missing in any of the three inputs are dropped from all three. Each configuration's scores are
    standardised (z-score over all its present scores, population sd). Observed statistic ``δ = r(z_a, H) - r(z_b,
    H)``. Permutation ``p`` flips a seeded fair coin per *unit* — per item (column, all systems of that item
    together) at segment level (``granularity="segment"``, ``(n_systems, n_items)`` matrices, correlation
    :func:`korean_eval.metaeval.stats.correlation.segment_correlation` with ``grouping``), per system at system level
    (``granularity="system"``, per-system vectors) — and swaps the two configurations' standardised scores on the
    units that came up heads, giving ``δ_p``. This is Deutsch et al.'s PERM-INPUTS over whole units ("perm-inputs"
    in the tables: the systems of an item are swapped together, respecting the clustering of scores by segment).

    Exact when small: with ``n ≤ 16`` live units (units holding a common point) every one of the ``2^n`` swap
    patterns is evaluated and ``p = #{patterns : δ_p ≥ δ} / 2^n`` (the identity is one of them, so ``p ≥ 1/2^n``:
    with 4 systems at the system level no p below 1/16 = 0.0625 exists). Otherwise Monte-Carlo: ``n_permutations``
    seeded coin patterns (:func:`permutation_coins`) and ``p = (#{p : δ_p ≥ δ} + 1) / (n_valid + 1)``. Both
    one-sided, ``≥`` with a 1e-12 tolerance; patterns whose correlation is undefined are dropped from count and
    ``n_valid`` (:func:`permutation_p`). NaN if ``δ`` is undefined. Computed by :func:`permutation_deltas`.
    """
    return permutation_deltas(
        metric_a, metric_b, human, statistic, granularity, grouping, n_permutations, seed
    ).p_value()
