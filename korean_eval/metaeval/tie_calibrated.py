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

from korean_eval.metaeval.names import GROUPINGS, check_choice

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


def _group_pairs(metric: np.ndarray, human: np.ndarray, grouping: str) -> tuple[np.ndarray, ...]:
    """Every comparable pair: (|Δmetric|, agrees when the metric does not tie, agrees when it does, group index)."""
    if grouping == "system":
        metric, human = metric.T, human.T
    if grouping == "none":
        ok = np.isfinite(metric) & np.isfinite(human)
        metric, human = metric[ok].reshape(-1, 1), human[ok].reshape(-1, 1)
        if metric.shape[0] * (metric.shape[0] - 1) // 2 > MAX_PAIRS:
            raise ValueError(f"acc_eq with grouping 'none' would compare more than {MAX_PAIRS:,} pairs; use 'item'")
    first, second = np.triu_indices(metric.shape[0], 1)
    d_metric = metric[first] - metric[second]  # (pairs of rows, groups)
    d_human = human[first] - human[second]
    valid = np.isfinite(d_metric) & np.isfinite(d_human)
    group = np.broadcast_to(np.arange(metric.shape[1]), d_metric.shape)[valid]
    d_metric, d_human = d_metric[valid], d_human[valid]
    strict = np.sign(d_metric) == np.sign(d_human)
    return np.abs(d_metric), strict, d_human == 0, group


def acc_eq(metric: np.ndarray, human: np.ndarray, grouping: str = "item") -> TieCalibratedAccuracy:
    """Tie-calibrated pairwise accuracy and its ε (module docstring); NaN entries are absent. Groups: ``item``
    (columns; WMT's default), ``none`` (all entries as one group), ``system`` (rows). NaN accuracy without pairs."""
    check_choice("grouping", grouping, GROUPINGS)
    metric, human = np.asarray(metric, dtype=np.float64), np.asarray(human, dtype=np.float64)
    if metric.shape != human.shape or metric.ndim != 2:
        raise ValueError(f"metric and human matrices must have one 2-D shape, got {metric.shape} and {human.shape}")
    gap, strict, human_tie, group = _group_pairs(metric, human, grouping)
    if gap.size == 0:
        return TieCalibratedAccuracy(float("nan"), float("nan"), float("nan"), 0, 0)
    groups, group_index, pairs_per_group = np.unique(group, return_inverse=True, return_counts=True)
    weight = 1.0 / (len(groups) * pairs_per_group[group_index])
    base = float(np.sum(weight * strict))
    order = np.argsort(gap, kind="stable")
    gain = np.cumsum((weight * (human_tie.astype(np.float64) - strict))[order])
    gap_sorted = gap[order]
    candidates = np.concatenate(([0.0], np.unique(gap_sorted)))
    last = np.searchsorted(gap_sorted, candidates, side="right") - 1
    accuracies = base + np.where(last >= 0, gain[np.maximum(last, 0)], 0.0)
    best = int(np.argmax(accuracies))
    return TieCalibratedAccuracy(
        accuracy=float(accuracies[best]),
        epsilon=float(candidates[best]),
        accuracy_at_zero=float(accuracies[0]),
        n_groups=len(groups),
        n_pairs=int(gap.size),
    )
