"""Paired permutation tests of WMT's pairwise accuracies between two configurations (docs/design.md §5): does
configuration a agree with the humans more than b by ``acc_eq`` (over items) or by SPA?

* ``acc_eq`` — ``perm-pairs`` (:func:`pair_swap_deltas`): mt-metrics-eval's ``PairwisePermutationSigDiff`` (WMT23–25's
  segment-level test, ``perm_test='pairs'``). Each configuration keeps its own ε (chosen on the full set); a
  permutation takes, for every system pair of every item independently, the comparison (tie or order, and whether
  it agrees with the humans) of one configuration or of the other, and recomputes both hybrids' accuracies over
  items. Swapping comparisons rather than scores lets two configurations with different ε be compared without
  re-calibrating ε in every permutation.
* SPA — ``perm-wmt`` (:func:`spa_swap_deltas`): mt-metrics-eval's ``PermutationSigDiff`` with
  ``PairwiseConfidenceError`` as the statistic (WMT24–25's system-level test): both configurations' segment scores
  are z-scored (over all their scores), a permutation swaps every (system, item) score between the two
  independently, and both hybrids' SPA are recomputed against the same human p-values, with the same sign patterns.

The observed statistic is ``δ = s(a) − s(b)``; permutation ``j`` gives ``δ_j = s(a′_j) − s(b′_j)`` with ``a′`` the
hybrid holding a's part where nothing was swapped. The p-value (one-sided, "a agrees more than b") is
:func:`korean_eval.metaeval.stats.permutation.permutation_p`: exact over every swap pattern when at most
:data:`korean_eval.metaeval.stats.permutation.MAX_EXACT_UNITS` units can change the result, else Monte-Carlo
``(#{δ_j ≥ δ} + 1)/(k + 1)`` (mt-metrics-eval reports ``#{δ_j ≥ δ}/k``; the two differ by less than ``1/k``).

Random swaps come in blocks of :data:`PERMUTATION_BLOCK` permutations, block ``j`` drawn from its own generator
``default_rng([seed, stream, j])`` (:func:`swap_coins`): a block is a self-contained task, and the p-values do not
depend on how the blocks are dispatched.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from korean_eval.metaeval.stats.permutation import MAX_EXACT_UNITS, PermutationDeltas
from korean_eval.metaeval.stats.sign_projection import project, projection_bounds, single_precision

#: Permutations per block of swap coins (:func:`swap_coins`).
PERMUTATION_BLOCK = 100
#: The streams of :func:`swap_coins`: separate from each other and from SPA's sign patterns (``default_rng(seed)``).
PAIRS_STREAM, SCORES_STREAM = 1, 2
_REL_TOL = 1e-12  # as korean_eval.metaeval.stats.soft_pairwise: a permuted difference this close counts as equal


def n_blocks(n_permutations: int) -> int:
    """Blocks of :data:`PERMUTATION_BLOCK` permutations that make ``n_permutations``."""
    return -(-int(n_permutations) // PERMUTATION_BLOCK)


def swap_coins(seed: int, stream: int, block: int, n_permutations: int, n_units: int) -> np.ndarray:
    """Block ``block`` of the Monte-Carlo swap coins: ``(rows, n_units)`` bool, True = swap the unit; the rows are
    permutations ``block·B … min(n_permutations, (block + 1)·B) − 1`` (``B`` = :data:`PERMUTATION_BLOCK`), drawn
    by ``np.random.default_rng([seed, stream, block]).integers(2, size=(rows, n_units), dtype=bool)``."""
    rows = min(PERMUTATION_BLOCK, int(n_permutations) - block * PERMUTATION_BLOCK)
    return np.random.default_rng([seed, stream, block]).integers(2, size=(rows, n_units), dtype=bool)


def all_patterns(n_units: int) -> np.ndarray:
    """Every swap pattern of ``n_units`` units, ``(2^n_units, n_units)`` bool: pattern ``p`` swaps unit ``u`` iff bit
    ``u`` of ``p`` is set (pattern 0 is the identity)."""
    codes = np.arange(2**n_units, dtype=np.int64)
    return ((codes[:, None] >> np.arange(n_units, dtype=np.int64)) & 1).astype(bool)


# ---- acc_eq: comparisons swapped --------------------------------------------------------------------------------------


def pair_agreements(metric: np.ndarray, human: np.ndarray, epsilon: float) -> np.ndarray:
    """Per comparison unit — every system pair ``a < b`` (``triu`` order) of every item, ``(n_items, n_pairs)`` —
    whether the metric agrees with the humans at ``epsilon`` (1.0 / 0.0; NaN where either side lacks a score).

    Agreement as in :func:`korean_eval.metaeval.stats.tie_calibrated.acc_eq`: both sides tie the pair (metric
    ``|Δ| ≤ ε``, humans ``Δ = 0``), or neither does and both order it the same way. ``metric`` already negated for
    an error rate."""
    metric, human = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    first, second = np.triu_indices(metric.shape[0], 1)
    dm, dh = (metric[first] - metric[second]).T, (human[first] - human[second]).T
    metric_tie, human_tie = np.abs(dm) <= epsilon, dh == 0
    agree = (metric_tie & human_tie) | (~metric_tie & ~human_tie & (np.sign(dm) == np.sign(dh)))
    return np.where(np.isfinite(dm) & np.isfinite(dh), agree.astype(np.float64), np.nan)


def pair_swap_values(agree_a: np.ndarray, agree_b: np.ndarray) -> tuple[np.ndarray, int]:
    """``(v, n_items)``: each unit's weighted contribution ``v_u = (agree_a − agree_b) / (G·n_i)`` to ``δ =
    acc_eq(a) − acc_eq(b)`` over the units both configurations compared (``n_i`` such units in item ``i``, ``G``
    items with one; 0 elsewhere), flattened, and ``G``. ``Σ v = δ``; swapping unit ``u`` negates its ``v_u``."""
    a, b = np.asarray(agree_a, dtype=np.float64), np.asarray(agree_b, dtype=np.float64)
    both = np.isfinite(a) & np.isfinite(b)
    per_item = both.sum(axis=1)
    n_items = int(np.count_nonzero(per_item))
    weight = np.where(both, 1.0 / (max(n_items, 1) * np.maximum(per_item, 1))[:, None], 0.0)
    return (np.where(both, a - b, 0.0) * weight).ravel(), n_items


def pair_swap_deltas(values: np.ndarray, coins: np.ndarray) -> np.ndarray:
    """Permuted ``δ_j = Σ_u ±v_u`` (minus where ``coins[j, u]`` swaps) of every column of ``values`` (``(n_units,
    n_columns)``: :func:`pair_swap_values` of several configuration pairs side by side) under a block of coins
    (``(n_permutations, n_units)``): ``(n_columns, n_permutations)``."""
    signs = 1.0 - 2.0 * np.asarray(coins, dtype=np.float64)
    return (signs @ np.asarray(values, dtype=np.float64)).T


def pair_swap_test(values: np.ndarray, n_permutations: int, seed: int) -> PermutationDeltas:
    """The ``perm-pairs`` test of one pair from its :func:`pair_swap_values`: exact over every pattern of the units
    that differ (``v_u ≠ 0``) when there are at most 16 of them, else ``n_permutations`` Monte-Carlo permutations over
    all units (:func:`swap_coins`, stream :data:`PAIRS_STREAM`)."""
    values = np.asarray(values, dtype=np.float64)
    live = np.flatnonzero(values != 0.0)
    if live.size <= MAX_EXACT_UNITS:
        deltas = pair_swap_deltas(values[live, None], all_patterns(live.size))[0]
        return PermutationDeltas(float(values.sum()), deltas, True)
    blocks = [pair_swap_deltas(values[:, None], swap_coins(seed, PAIRS_STREAM, j, n_permutations, values.size))[0]
              for j in range(n_blocks(n_permutations))]
    return PermutationDeltas(float(values.sum()), np.concatenate(blocks), False)


# ---- SPA: scores swapped ----------------------------------------------------------------------------------------------


def standardise_scores(scores: np.ndarray) -> np.ndarray:
    """z-scores of all entries of a ``(n_systems, n_items)`` matrix together (population sd; a constant matrix is
    only centred), as mt-metrics-eval's ``PermutationSigDiff`` standardises each metric's scores."""
    scores = np.asarray(scores, dtype=np.float64)
    sd = scores.std()
    return (scores - scores.mean()) / (sd if sd > 0 else 1.0)


#: Permutations per matrix product inside :func:`spa_swap_block` (bounds its memory: configurations × this ×
#: systems × sign patterns single-precision numbers).
SPA_CHUNK = 10


@njit(cache=True, nogil=True)
def _hybrid_difference(
    z: np.ndarray, swaps: np.ndarray, signs: np.ndarray, p: int, j: int, own: int, other: int, s: int, t: int
) -> float:
    """``σ_p·(h_s − h_t)`` in double precision, ``h`` the hybrid holding ``other``'s z-scores where ``swaps[j]`` swaps
    and ``own``'s elsewhere."""
    total = 0.0
    for i in range(z.shape[2]):
        x_s = z[other, s, i] if swaps[j, s, i] else z[own, s, i]
        x_t = z[other, t, i] if swaps[j, t, i] else z[own, t, i]
        total += signs[p, i] * (x_s - x_t)
    return total


@njit(cache=True, nogil=True, inline="always")
def _relative(projected: np.ndarray, j: int, c: int, s: int, p: int) -> float:
    """``σ_p·(W_s∘z_s − W_0∘z_0)`` of configuration ``c`` in permutation ``j`` (0 for system 0 itself)."""
    return np.float64(projected[j, c, s - 1, p]) if s > 0 else 0.0


@njit(cache=True, nogil=True)
def _hybrid_spa_deltas(
    full: np.ndarray, total: np.ndarray, projected: np.ndarray, bound: np.ndarray, swapped_total: np.ndarray,
    pairs: np.ndarray, p_human: np.ndarray, z: np.ndarray, swaps: np.ndarray, signs: np.ndarray, first: np.ndarray,
    second: np.ndarray,
) -> np.ndarray:
    """``δ_j = SPA(a′_j) − SPA(b′_j)`` of every configuration pair and permutation (see :func:`spa_swap_block`);
    permutation by permutation, so that one permutation's terms of every configuration stay in the cache while all
    pairs read them. ``projected`` ``(k, C, S − 1, P)``: the single-precision projections of each system's swapped
    entries less system 0's, each within ``bound`` ``(k, C, S − 1)`` of the exact value; a comparison the bounds
    cannot decide is summed again in double precision (:func:`_hybrid_difference`)."""
    n_perm_j = projected.shape[0]
    n_patterns = projected.shape[3]
    n_pairs = first.size
    out = np.empty((pairs.shape[0], n_perm_j))
    for j in range(n_perm_j):
        for r in range(pairs.shape[0]):
            a, b = pairs[r, 0], pairs[r, 1]
            error_a = 0.0
            error_b = 0.0
            for q in range(n_pairs):
                s, t = first[q], second[q]
                # a′ = a with the swapped entries taken from b; b′ = a + b − a′ (entry by entry)
                observed_a = total[a, q] - swapped_total[j, a, q] + swapped_total[j, b, q]
                observed_b = total[a, q] + total[b, q] - observed_a
                bar_a = observed_a - 1e-12 * max(1.0, abs(observed_a))
                bar_b = observed_b - 1e-12 * max(1.0, abs(observed_b))
                margin = bound[j, a, t - 1] + bound[j, b, t - 1]
                if s > 0:
                    margin += bound[j, a, s - 1] + bound[j, b, s - 1]
                hits_a, hits_b, maybe_a, maybe_b = 0, 0, 0, 0
                for p in range(n_patterns):  # branch-free: the comparisons the bound decides, and the undecided
                    null_a = (full[a, q, p] - (_relative(projected, j, a, s, p) - _relative(projected, j, a, t, p))
                              + (_relative(projected, j, b, s, p) - _relative(projected, j, b, t, p)))
                    null_b = full[a, q, p] + full[b, q, p] - null_a
                    hits_a += null_a >= bar_a + margin
                    hits_b += null_b >= bar_b + margin
                    maybe_a += null_a >= bar_a - margin
                    maybe_b += null_b >= bar_b - margin
                if maybe_a > hits_a or maybe_b > hits_b:  # some comparison within the bound: sum it in double
                    for p in range(n_patterns):
                        null_a = (full[a, q, p] - (_relative(projected, j, a, s, p) - _relative(projected, j, a, t, p))
                                  + (_relative(projected, j, b, s, p) - _relative(projected, j, b, t, p)))
                        null_b = full[a, q, p] + full[b, q, p] - null_a
                        if bar_a - margin <= null_a < bar_a + margin:
                            hits_a += _hybrid_difference(z, swaps, signs, p, j, a, b, s, t) >= bar_a
                        if bar_b - margin <= null_b < bar_b + margin:
                            hits_b += _hybrid_difference(z, swaps, signs, p, j, b, a, s, t) >= bar_b
                error_a += abs(p_human[q] - hits_a / n_patterns)
                error_b += abs(p_human[q] - hits_b / n_patterns)
            out[r, j] = (error_b - error_a) / n_pairs
    return out


def spa_swap_block(
    z: np.ndarray, pairs: np.ndarray, signs: np.ndarray, p_human: np.ndarray, coins: np.ndarray
) -> np.ndarray:
    """Permuted ``δ_j = SPA(a′_j) − SPA(b′_j)`` of configuration pairs under one block of coins: ``(n_pairs, k)``.

    ``z``: ``(n_configs, S, n)`` every configuration's z-scores (:func:`standardise_scores`, error rates negated
    first) on the same ``n`` items; ``pairs``: ``(n_pairs, 2)`` configuration indices ``(a, b)``; ``signs``: the
    sign patterns ``σ`` ``(P, n)`` (±1) of the humans' p-values ``p_human`` ``(Q,)`` (system pairs ``s < t`` in
    ``triu`` order); ``coins``: ``(k, S·n)`` row-major over (system, item), True = swap. Hybrid ``a′_j`` holds b's
    z-score where ``coins[j]`` swaps and a's elsewhere, ``b′_j`` the rest; a hybrid's p-value of pair ``(s, t)`` is
    ``#{p : σ_p·(x_s − x_t) ≥ Σ_i (x_s − x_t)} / P`` (a permuted sum within 1e-12 of the observed one, relative,
    counts as equal — :func:`korean_eval.metaeval.stats.soft_pairwise.pairwise_permutation_p_values`) and its SPA
    ``1 − mean |p_human − p|``.

    Computed without forming the hybrids: ``σ·(x′_s − x′_t)`` is ``σ·d_a − σ·(W∘z_a)_{st} + σ·(W∘z_b)_{st}`` with
    ``d_a`` a's differences and ``(W∘z)_{st} = W_s∘z_s − W_t∘z_t``, and ``σ·(W∘z_c)`` is one matrix product per
    configuration (not per pair) for every permutation of a chunk of :data:`SPA_CHUNK` — of each system's entries
    less system 0's (pairs are differences of those), in single precision, of z-scores less each item's mean over
    every configuration and system (the same for ``a`` and ``b``, so it cancels), with an error bound and every
    comparison the bound cannot decide redone in double precision (:mod:`korean_eval.metaeval.stats.sign_projection`).
    """
    z = np.ascontiguousarray(z, dtype=np.float64)
    signs = np.ascontiguousarray(signs, dtype=np.float64)
    signs32 = single_precision(signs)
    pairs = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
    n_configs, n_sys, n_items = z.shape
    first, second = np.triu_indices(n_sys, 1)
    diffs = z[:, first] - z[:, second]  # (C, Q, n)
    full = np.ascontiguousarray(diffs @ signs.T)  # (C, Q, P)
    total = np.ascontiguousarray(diffs.sum(axis=2))
    centred = z - z.mean(axis=(0, 1), keepdims=True)
    p_human = np.ascontiguousarray(p_human, dtype=np.float64)
    out = []
    for start in range(0, len(coins), SPA_CHUNK):
        swaps = np.ascontiguousarray(coins[start:start + SPA_CHUNK], dtype=np.bool_).reshape(-1, n_sys, n_items)
        w = swaps.astype(np.float64)
        kept = w[:, None] * centred[None]  # (k, C, S, n)
        relative = (kept[:, :, 1:] - kept[:, :, :1]).reshape(-1, n_items)  # system s less system 0, s > 0
        projected = project(signs32, relative.T).reshape(len(w), n_configs, n_sys - 1, len(signs))
        bound = np.ascontiguousarray(projection_bounds(relative.T).reshape(len(w), n_configs, n_sys - 1))
        sums = (w[:, None] * z[None]).sum(axis=3)
        swapped_total = np.ascontiguousarray(sums[..., first] - sums[..., second])  # (k, C, Q)
        out.append(_hybrid_spa_deltas(full, total, projected, bound, swapped_total, pairs, p_human, z, swaps,
                                      signs, first, second))
    return np.concatenate(out, axis=1) if out else np.empty((len(pairs), 0))


def spa_swap_test(
    z_a: np.ndarray, z_b: np.ndarray, signs: np.ndarray, p_human: np.ndarray, n_permutations: int, seed: int
) -> PermutationDeltas:
    """The SPA ``perm-wmt`` test of one pair of z-score matrices ``(S, n)`` (:func:`standardise_scores`): exact over
    every pattern when there are at most 16 (system, item) entries, else ``n_permutations`` Monte-Carlo permutations
    (:func:`swap_coins`, stream :data:`SCORES_STREAM`)."""
    z = np.stack([np.asarray(z_a, dtype=np.float64), np.asarray(z_b, dtype=np.float64)])
    pair = np.array([[0, 1]])
    size = z[0].size
    observed = float(spa_swap_block(z, pair, signs, p_human, np.zeros((1, size), dtype=bool))[0, 0])
    if size <= MAX_EXACT_UNITS:
        return PermutationDeltas(observed, spa_swap_block(z, pair, signs, p_human, all_patterns(size))[0], True)
    blocks = [spa_swap_block(z, pair, signs, p_human, swap_coins(seed, SCORES_STREAM, j, n_permutations, size))[0]
              for j in range(n_blocks(n_permutations))]
    return PermutationDeltas(observed, np.concatenate(blocks), False)
