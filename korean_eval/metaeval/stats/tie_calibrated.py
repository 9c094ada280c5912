"""Tie-calibrated pairwise accuracy ``acc_eq`` (Deutsch, Foster & Freitag 2023, "Ties Matter"; WMT23–25's
segment-level statistic), over a metric matrix and a human matrix of shape ``(n_systems, n_items)``.

Definition (docs/design.md §5). Within a *group* of scores (an item's scores across systems for grouping
``item``, the WMT default; every (system, item) score for ``none``; a system's scores across items for
``system``), every pair of entries with both a metric and a human score is compared. The metric *ties* a pair when
``|Δmetric| ≤ ε``; the humans tie it when ``Δhuman == 0``. A pair *agrees* when both tie, or neither ties and both
order it the same way. The accuracy of a group is its fraction of agreeing pairs; ``acc_eq(ε)`` is the mean over
groups with at least one pair. ``ε`` is chosen to maximise ``acc_eq``, searching ``0`` and every observed
``|Δmetric|`` (the paper's search); among equal accuracies the smallest ``ε`` is taken. This equals
mt-metrics-eval's ``KendallWithTiesOpt(gold, metric, variant='acc23', average_by=…, sample_rate=1.0)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from korean_eval.model.vocabulary import GROUPINGS, check_choice

# "none" compares every pair of (system, item) scores: n·(n−1)/2 pairs; above this many the search is refused.
MAX_PAIRS = 50_000_000


@dataclass(frozen=True)
class TieCalibratedAccuracy:
    """``accuracy`` at the chosen ``epsilon``; ``accuracy_at_zero`` with exact metric ties only (ε = 0);
    ``n_groups`` groups with at least one pair; ``n_pairs`` pairs compared."""

    accuracy: float
    epsilon: float
    accuracy_at_zero: float
    n_groups: int
    n_pairs: int


@dataclass(frozen=True)
class _ChangingPairs:
    """What the ε search needs. Tying a pair (|Δmetric| ≤ ε) changes its agreement from *strict* (both order it the
    same way, or both tie it exactly) to *human tie*: it **gains** when the humans tie it and the metric orders it,
    **loses** when the humans order it and the metric agreed; every other pair is unchanged. ``base``: the weighted
    share of strictly agreeing pairs (the accuracy at ε = 0); ``uniform``: every pair weighs the same."""

    gain_gap: np.ndarray
    gain_weight: np.ndarray
    lose_gap: np.ndarray
    lose_weight: np.ndarray
    base: float
    n_groups: int
    n_pairs: int
    uniform: bool


@njit(cache=True, nogil=True)
def _all_pairs(metric: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Gaps |Δmetric| of the gaining and of the losing pairs among all pairs i < j of two finite vectors, and the
    number of strictly agreeing pairs (see :class:`_ChangingPairs`)."""
    n = metric.size
    gain = np.empty(n * (n - 1) // 2)
    lose = np.empty(n * (n - 1) // 2)
    n_gain = n_lose = n_strict = 0
    for i in range(n):
        for j in range(i + 1, n):
            dm = metric[i] - metric[j]
            dh = human[i] - human[j]
            strict = np.sign(dm) == np.sign(dh)
            n_strict += strict
            if dh == 0.0 and not strict:
                gain[n_gain] = abs(dm)
                n_gain += 1
            elif dh != 0.0 and strict:
                lose[n_lose] = abs(dm)
                n_lose += 1
    return gain[:n_gain].copy(), lose[:n_lose].copy(), n_strict


def _pooled_pairs(metric: np.ndarray, human: np.ndarray) -> _ChangingPairs:
    """Grouping ``none``: every scored (system, item) entry in one group (compiled: no pair-index arrays)."""
    ok = np.isfinite(metric) & np.isfinite(human)
    n = int(ok.sum())
    n_pairs = n * (n - 1) // 2
    if n_pairs > MAX_PAIRS:
        raise ValueError(f"acc_eq with grouping 'none' would compare more than {MAX_PAIRS:,} pairs; use 'item'")
    gain, lose, n_strict = _all_pairs(np.ascontiguousarray(metric[ok]), np.ascontiguousarray(human[ok]))
    w = 1.0 / max(n_pairs, 1)
    return _ChangingPairs(gain, np.full(gain.size, w), lose, np.full(lose.size, w), n_strict * w, int(n_pairs > 0),
                          n_pairs, True)


def _grouped_pairs(metric: np.ndarray, human: np.ndarray) -> _ChangingPairs:
    """Groups = columns of ``(rows, groups)`` matrices: each group weighs 1/n_groups, split over its pairs."""
    first, second = np.triu_indices(metric.shape[0], 1)
    d_metric = metric[first] - metric[second]  # (pairs of rows, groups)
    d_human = human[first] - human[second]
    valid = np.isfinite(d_metric) & np.isfinite(d_human)
    group = np.broadcast_to(np.arange(metric.shape[1]), d_metric.shape)[valid]
    d_metric, d_human = d_metric[valid], d_human[valid]
    pairs_per_group = np.bincount(group, minlength=metric.shape[1])
    n_groups = int(np.count_nonzero(pairs_per_group))
    weight = 1.0 / (max(n_groups, 1) * pairs_per_group[group])
    strict = np.sign(d_metric) == np.sign(d_human)
    gaining, losing = (d_human == 0) & ~strict, (d_human != 0) & strict
    gap = np.abs(d_metric)
    return _ChangingPairs(gap[gaining], weight[gaining], gap[losing], weight[losing], float(np.sum(weight * strict)),
                          n_groups, int(gap.size), False)


def _accuracy_by_epsilon(pairs: _ChangingPairs) -> tuple[np.ndarray, np.ndarray]:
    """Every ε worth trying, ascending, and the accuracy at each.

    The accuracy rises only at the gap of a gaining pair, so its first maximum over ``{0} ∪ {observed gaps}`` (the
    paper's search) lies in ``{0} ∪ {gaps of gaining pairs}``: only those are evaluated, each as ``base`` plus the
    weights of gaining pairs with a gap ≤ ε minus those of losing pairs with a gap ≤ ε (one binning of the losing
    pairs, no sort of all pairs)."""
    gain_gap, gain_weight, lose_gap, lose_weight = pairs.gain_gap, pairs.gain_weight, pairs.lose_gap, pairs.lose_weight
    if pairs.uniform and gain_gap.size < lose_gap.size:
        # Equal weights: once more losing than gaining pairs are tied the accuracy is below ε = 0's, so no ε at or
        # above the (n_gaining + 1)-th smallest losing gap is the first maximum: those ε, and the losing pairs
        # beyond them, are never looked at.
        cutoff = np.partition(lose_gap, gain_gap.size)[gain_gap.size]
        keep, kept = gain_gap < cutoff, lose_gap < cutoff
        gain_gap, gain_weight, lose_gap, lose_weight = gain_gap[keep], gain_weight[keep], lose_gap[kept], lose_weight[kept]
    candidates = np.unique(np.concatenate(([0.0], gain_gap)))
    size = candidates.size + 1
    gained = np.bincount(np.searchsorted(candidates, gain_gap), weights=gain_weight, minlength=size)
    lost = np.bincount(np.searchsorted(candidates, lose_gap), weights=lose_weight, minlength=size)
    return candidates, pairs.base + np.cumsum(gained.astype(np.float64)[: candidates.size] - lost[: candidates.size])


def acc_eq(metric: np.ndarray, human: np.ndarray, grouping: str = "item") -> TieCalibratedAccuracy:
    """Tie-calibrated pairwise accuracy and its ε (module docstring); NaN entries are absent. Groups: ``item``
    (columns; WMT's default), ``none`` (all entries as one group), ``system`` (rows). NaN accuracy without pairs."""
    check_choice("grouping", grouping, GROUPINGS)
    metric, human = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    if metric.shape != human.shape or metric.ndim != 2:
        raise ValueError(f"metric and human matrices must have one 2-D shape, got {metric.shape} and {human.shape}")
    if grouping == "none":
        pairs = _pooled_pairs(metric, human)
    else:
        pairs = _grouped_pairs(metric.T, human.T) if grouping == "system" else _grouped_pairs(metric, human)
    if pairs.n_pairs == 0:
        return TieCalibratedAccuracy(float("nan"), float("nan"), float("nan"), 0, 0)
    candidates, accuracies = _accuracy_by_epsilon(pairs)
    best = int(np.argmax(accuracies))  # the first maximum: the smallest ε
    return TieCalibratedAccuracy(
        accuracy=float(accuracies[best]),
        epsilon=float(candidates[best]),
        accuracy_at_zero=float(accuracies[0]),
        n_groups=pairs.n_groups,
        n_pairs=pairs.n_pairs,
    )
