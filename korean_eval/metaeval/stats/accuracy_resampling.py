"""Bootstrap resamples of WMT's pairwise accuracies — ``acc_eq``, pairwise accuracy, SPA — over items
(docs/design.md §5).

A bootstrap resample draws the items (segments, each with all its systems) with replacement; resample ``r`` is the
data set whose columns are the drawn items, a repeated item repeated. Every function here takes the data and one
*block* of resamples — rows of the run's count matrix ``C`` (``C[r, i]``: how often item ``i`` is drawn;
:func:`korean_eval.metaeval.stats.resampling.resample_counts`) or of its index matrix (row ``r``: the drawn items in
draw order; :func:`korean_eval.metaeval.stats.resampling.bootstrap_indices`) — and returns one value per resample of
the block. Blocks are independent and their values do not depend on how the rows are split into blocks, so the
blocks can run as separate tasks and be concatenated in order.

* ``acc_eq`` over items (:func:`item_acc_eq_resamples`): the statistic recomputed on the resample, **ε chosen again
  inside each resample** by the same search as the full set's (Deutsch, Foster & Freitag 2023; the maximum over
  ``{0} ∪ {observed |Δmetric|}``), exactly.
* ``acc_eq`` over all pairs (:func:`pooled_acc_eq_resamples`): the statistic recomputed on the resample at the full
  set's ε, **kept fixed**: re-searching ε in every resample walks all n(n − 1)/2 pooled pairs per resample (2.4
  million for 4 systems × 550 items, seconds per configuration), while at a fixed ε the resample's agreement is a
  quadratic form of the item counts (one matrix product).
* Pairwise accuracy (:func:`pairwise_accuracy_resamples`): of the resampled system scores.
* SPA (:func:`resampled_p_values`, :func:`spa_from_p_values`): the permutation p-values of every system pair
  recomputed on the resample with the run's seed, as on any data set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sparse
from numba import njit

from korean_eval.metaeval.stats.sign_projection import (
    project,
    projection_bounds,
    single_precision,
)
from korean_eval.metaeval.stats.soft_pairwise import sign_patterns
from korean_eval.metaeval.stats.tie_calibrated import MAX_PAIRS

_REL_TOL = 1e-12  # as korean_eval.metaeval.stats.soft_pairwise: a permuted difference this close counts as equal
_RESAMPLE_CHUNK = 16  # resamples per matrix product of resampled_p_values


# ---- acc_eq over items, ε chosen in every resample ------------------------------------------------------------------


@dataclass(frozen=True)
class ItemAccuracySteps:
    """``acc_eq`` over items as a function of ε, for any weighting of the items.

    Attributes:
        base: ``(n_items,)`` each item's accuracy at ε = 0 (its share of pairs ordered or tied alike by both sides);
            0 for an item without a pair.
        has_pairs: ``(n_items,)`` whether the item has a pair with both scores (only those items are averaged).
        candidates: ``(K,)`` ascending: 0 and every |Δmetric| of a pair the humans tie and the metric does not —
            the values of ε at which some item's accuracy rises.
        steps: sparse ``(n_items, K)``: the change of item ``i``'s accuracy when ε reaches ``candidates[k]``
            (+1/n_i for every pair tied from then on that the humans tie, −1/n_i for every one the humans order).
    """

    base: np.ndarray
    has_pairs: np.ndarray
    candidates: np.ndarray
    steps: sparse.csr_matrix


def item_accuracy_steps(metric: np.ndarray, human: np.ndarray) -> ItemAccuracySteps:
    """:class:`ItemAccuracySteps` of ``(n_systems, n_items)`` matrices (NaN = absent; error rates already negated).

    Item ``i``'s accuracy at ε is ``base[i] + Σ_{k: candidates[k] ≤ ε} steps[i, k]``, exactly the per-item accuracy
    of :func:`korean_eval.metaeval.stats.tie_calibrated.acc_eq`: a pair agrees when both sides tie it (metric
    ``|Δ| ≤ ε``, humans ``Δ = 0``) or neither does and both order it the same way.
    """
    metric, human = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    n_items = metric.shape[1]
    first, second = np.triu_indices(metric.shape[0], 1)
    d_metric, d_human = metric[first] - metric[second], human[first] - human[second]  # (pairs of systems, items)
    valid = np.isfinite(d_metric) & np.isfinite(d_human)
    item = np.broadcast_to(np.arange(n_items), d_metric.shape)[valid]
    d_metric, d_human = d_metric[valid], d_human[valid]
    pairs = np.bincount(item, minlength=n_items).astype(np.float64)
    share = 1.0 / np.where(pairs > 0, pairs, 1.0)
    strict = np.sign(d_metric) == np.sign(d_human)
    gaining, losing = (d_human == 0) & ~strict, (d_human != 0) & strict
    gap = np.abs(d_metric)
    candidates = np.unique(np.concatenate(([0.0], gap[gaining])))
    base = np.bincount(item[strict], minlength=n_items) * share
    rows = np.concatenate([item[gaining], item[losing]])
    cols = np.concatenate([np.searchsorted(candidates, gap[gaining]), np.searchsorted(candidates, gap[losing])])
    vals = np.concatenate([share[item[gaining]], -share[item[losing]]])
    keep = cols < candidates.size  # a losing pair wider than every candidate is never tied
    steps = sparse.csr_matrix((vals[keep], (rows[keep], cols[keep])), shape=(n_items, candidates.size))
    return ItemAccuracySteps(base, pairs > 0, candidates, steps)


def item_acc_eq_resamples(table: ItemAccuracySteps, counts: np.ndarray) -> np.ndarray:
    """``acc_eq`` over items in every resample of a block, ε chosen inside each: ``(n_resamples,)``.

    ``counts``: a block of the count matrix, ``(n_resamples, n_items)``. Resample ``r``'s accuracy at ε is the
    count-weighted mean over the items with a pair, ``Σ_i C[r, i]·acc_i(ε) / Σ_i C[r, i]`` (a repeated item is a
    repeated group), and its value the maximum over ε — the maximum over ``table.candidates`` is the maximum over the
    resample's own search set, because the accuracy changes only at candidates. NaN when no item with a pair is
    drawn. With ``counts`` all ones this is ``acc_eq(metric, human, "item").accuracy`` (up to rounding).
    """
    counts = np.asarray(counts, dtype=np.float64)
    weight = counts[:, table.has_pairs].sum(axis=1)
    start = counts @ table.base
    moved = np.asarray((table.steps.T @ counts.T).T)  # (resamples, candidates)
    best = start + np.max(np.cumsum(moved, axis=1), axis=1, initial=0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weight > 0, best / np.where(weight > 0, weight, 1.0), np.nan)


# ---- acc_eq over all pairs, ε fixed ---------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _agreement_by_items(
    metric: np.ndarray, human: np.ndarray, item: np.ndarray, n_items: int, epsilon: float
) -> np.ndarray:
    """``M`` of :func:`pooled_agreement`: agreeing pairs between the entries of items p and q."""
    out = np.zeros((n_items, n_items))
    n = metric.size
    for e in range(n):
        p = item[e]
        out[p, p] += 1.0  # an entry and its own copy in another draw of its item: both sides tie
        for f in range(e + 1, n):
            dm = metric[e] - metric[f]
            dh = human[e] - human[f]
            metric_tie = abs(dm) <= epsilon
            human_tie = dh == 0.0
            if metric_tie != human_tie or (not metric_tie and np.sign(dm) != np.sign(dh)):
                continue
            q = item[f]
            if p == q:
                out[p, p] += 2.0
            else:
                out[p, q] += 1.0
                out[q, p] += 1.0
    return out


@dataclass(frozen=True)
class PooledAgreement:
    """``acc_eq`` over all pairs at a fixed ε as a quadratic form of the item counts: ``matrix`` ``M`` (``(n_items,
    n_items)``: off the diagonal the agreeing pairs between items p and q; on it twice those within item p plus its
    entries) and ``entries`` (``(n_items,)``: scored (system, item) entries per item)."""

    matrix: np.ndarray
    entries: np.ndarray


def pooled_agreement(metric: np.ndarray, human: np.ndarray, epsilon: float) -> PooledAgreement:
    """:class:`PooledAgreement` of ``(n_systems, n_items)`` matrices (NaN = absent) at ``epsilon``; ValueError when
    the entries make more than :data:`korean_eval.metaeval.stats.tie_calibrated.MAX_PAIRS` pairs."""
    metric, human = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    ok = np.isfinite(metric) & np.isfinite(human)
    n = int(ok.sum())
    if n * (n - 1) // 2 > MAX_PAIRS:
        raise ValueError(f"acc_eq with grouping 'none' would compare more than {MAX_PAIRS:,} pairs; use 'item'")
    item = np.broadcast_to(np.arange(metric.shape[1]), metric.shape)[ok]
    matrix = _agreement_by_items(np.ascontiguousarray(metric[ok]), np.ascontiguousarray(human[ok]),
                                 np.ascontiguousarray(item, dtype=np.int64), metric.shape[1], float(epsilon))
    return PooledAgreement(matrix, ok.sum(axis=0).astype(np.float64))


def pooled_acc_eq_resamples(agreement: PooledAgreement, counts: np.ndarray) -> np.ndarray:
    """``acc_eq`` over all pairs at the fixed ε in every resample of a block: ``(n_resamples,)``.

    Resample ``r`` holds ``c_p = C[r, p]`` copies of item ``p``; among its ``m = Σ_p c_p·n_p`` entries every one of
    the ``m(m − 1)/2`` pairs is compared (two copies of one entry: both sides tie, they agree). Agreeing pairs
    ``= ½·(cᵀMc − Σ_p c_p·n_p)``, so the accuracy is that over ``m(m − 1)/2``; NaN without a pair. With ``counts``
    all ones this is the full set's accuracy at ε.
    """
    counts = np.asarray(counts, dtype=np.float64)
    entries = counts @ agreement.entries
    agree = 0.5 * (np.einsum("ri,ri->r", counts @ agreement.matrix, counts) - entries)
    total = entries * (entries - 1.0) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, agree / np.where(total > 0, total, 1.0), np.nan)


# ---- pairwise accuracy ----------------------------------------------------------------------------------------------


def pairwise_accuracy_resamples(metric_sys: np.ndarray, human_sys: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Pairwise accuracy (Kocmi et al. 2021) of every row: ``(n_rows,)``.

    ``metric_sys``, ``human_sys``: ``(n_rows, n_systems)`` system scores per resample (one row of ``human_sys`` may
    be shared, e.g. system-level human scores given directly), NaN = absent. Row ``r``: over the pairs of systems
    with both scores, the share with ``sign(Δmetric) = sign(Δhuman)``, as
    :func:`korean_eval.metaeval.stats.pairwise.pairwise_accuracy`; NaN without a pair.
    """
    m = np.atleast_2d(np.asarray(metric_sys, dtype=np.float64)) * (1.0 if higher_is_better else -1.0)
    h = np.atleast_2d(np.asarray(human_sys, dtype=np.float64))
    first, second = np.triu_indices(m.shape[1], 1)
    dm, dh = m[:, first] - m[:, second], h[:, first] - h[:, second]
    ok = np.isfinite(dm) & np.isfinite(dh)
    agree = (np.sign(dm) == np.sign(dh)) & ok
    n = ok.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, agree.sum(axis=1) / np.maximum(n, 1), np.nan)


# ---- SPA ------------------------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _difference(projected: np.ndarray, col_a: int, col_b: int, p: int) -> float:
    """``σ_p·(x_a − x_b)`` from projections of ``x_s − x_0`` (column −1: system 0 itself, projection 0)."""
    value_a = np.float64(projected[col_a, p]) if col_a >= 0 else 0.0
    return value_a - np.float64(projected[col_b, p])


@njit(cache=True, nogil=True)
def _share_reaching(
    projected: np.ndarray, bound: np.ndarray, picked: np.ndarray, signs: np.ndarray, bar: np.ndarray,
    first: np.ndarray, second: np.ndarray,
) -> np.ndarray:
    """``P[c, g, q] = #{p : σ_p·(x_a − x_b) ≥ bar[c, g, q]} / n_patterns`` with ``x`` = ``picked[c, :, g, ·]`` and
    ``(a, b)`` the ``q``-th system pair (``a < b``), from the single-precision projections ``projected`` of each
    system's differences to system 0, ``x_s − x_0`` (``(chunk · groups · (systems − 1), patterns)``, within ``bound``
    of the exact ones; :mod:`korean_eval.metaeval.stats.sign_projection`); each comparison the bounds cannot decide
    is summed again in double precision."""
    n_patterns = projected.shape[1]
    chunk, n_pos, n_groups, n_sys = picked.shape
    hits = np.zeros((chunk, n_groups, first.size))
    for c in range(chunk):
        for g in range(n_groups):
            base = (c * n_groups + g) * (n_sys - 1) - 1  # + s: the column of system s > 0
            for q in range(first.size):
                col_a = base + first[q] if first[q] > 0 else -1
                col_b = base + second[q]
                margin = (bound[col_a] if col_a >= 0 else 0.0) + bound[col_b]
                level = bar[c, g, q]
                sure, maybe = 0, 0
                for p in range(n_patterns):  # branch-free: the comparisons the bound decides, and the undecided
                    null = _difference(projected, col_a, col_b, p)
                    sure += null >= level + margin
                    maybe += null >= level - margin
                if maybe > sure:  # some comparison within the bound: sum it in double
                    for p in range(n_patterns):
                        null = _difference(projected, col_a, col_b, p)
                        if level - margin <= null < level + margin:
                            exact = 0.0
                            for k in range(n_pos):
                                exact += signs[p, k] * (picked[c, k, g, first[q]] - picked[c, k, g, second[q]])
                            sure += exact >= level
                hits[c, g, q] = sure
    return hits / n_patterns


def resampled_p_values(
    scores: np.ndarray, usable: np.ndarray, n_permutations: int, seed: int, indices: np.ndarray
) -> np.ndarray:
    """One-sided permutation p-values of every system pair ``a < b`` (``triu`` order) in every resample of a block:
    ``(n_resamples, n_groups, n_pairs)``.

    ``scores``: ``(n_groups, n_systems, n_items)`` — several score matrices at once, higher is better (an error rate
    negated); ``usable``: ``(n_items,)`` the items every matrix scores for every system; ``indices``: a block of the
    index matrix. Resample ``r`` is ``scores[..., indices[r]]`` with its unusable positions left out (``m_r``
    positions stay, in draw order), as :func:`korean_eval.metaeval.stats.soft_pairwise.spa_of_segment_scores` sees
    the resampled data: pattern ``p`` of ``sign_patterns(n_permutations, m_r, seed)`` flips position ``k`` with
    ``σ[p, k]`` and ``p_ab = #{p : σ_p·x_a − σ_p·x_b ≥ Σ_k (x_a − x_b)} / n_permutations`` (a permuted difference
    within 1e-12 of the observed one, relative, counts as equal;
    :func:`korean_eval.metaeval.stats.soft_pairwise.pairwise_permutation_p_values`). NaN where ``m_r = 0``. When every
    item is usable all resamples share one pattern matrix and a chunk of resamples is one matrix product — of each
    system's differences to the first system, in single precision, every comparison its error bound cannot decide
    redone in double (:mod:`korean_eval.metaeval.stats.sign_projection`).
    """
    scores = np.asarray(scores, dtype=np.float64)
    n_groups, n_sys, n_items = scores.shape
    first, second = np.triu_indices(n_sys, 1)
    flat = np.ascontiguousarray(scores.transpose(2, 0, 1))  # (n_items, groups, systems)
    indices = np.asarray(indices)
    usable = np.asarray(usable, dtype=bool)
    out = np.full((len(indices), n_groups, first.size), np.nan)

    def p_values(picked: np.ndarray, signs: np.ndarray, signs32: np.ndarray) -> np.ndarray:
        """``picked`` ``(chunk, positions, groups, systems)`` → ``(chunk, groups, pairs)``."""
        n_pos = picked.shape[1]
        relative = (picked[..., 1:] - picked[..., :1]).transpose(1, 0, 2, 3).reshape(n_pos, -1)  # x_s − x_0, s > 0
        totals = picked.sum(axis=1)
        observed = totals[..., first] - totals[..., second]
        bar = observed - _REL_TOL * np.maximum(1.0, np.abs(observed))
        return _share_reaching(project(signs32, relative), projection_bounds(relative), picked, signs, bar, first,
                               second)

    if usable.all():
        signs = sign_patterns(n_permutations, n_items, seed)
        signs32 = single_precision(signs)
        for start in range(0, len(indices), _RESAMPLE_CHUNK):  # one matrix product for a chunk of resamples
            out[start:start + _RESAMPLE_CHUNK] = p_values(flat[indices[start:start + _RESAMPLE_CHUNK]], signs, signs32)
        return out
    patterns: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for r, drawn in enumerate(indices):
        kept = drawn[usable[drawn]]
        if kept.size:
            if kept.size not in patterns:
                signs = sign_patterns(n_permutations, kept.size, seed)
                patterns[kept.size] = signs, single_precision(signs)
            out[r] = p_values(flat[kept][None], *patterns[kept.size])[0]
    return out


def spa_from_p_values(p_human: np.ndarray, p_metric: np.ndarray) -> np.ndarray:
    """``1 − mean |p_human − p_metric|`` over the last axis (the system pairs): SPA of every resample; NaN without a
    pair."""
    p_human, p_metric = np.asarray(p_human, dtype=np.float64), np.asarray(p_metric, dtype=np.float64)
    if p_metric.shape[-1] == 0:
        return np.full(p_metric.shape[:-1], np.nan)
    return 1.0 - np.mean(np.abs(p_human - p_metric), axis=-1)
