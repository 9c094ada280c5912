"""Soft pairwise accuracy (SPA; Thompson et al., WMT24 — WMT24–25's system-level statistic).

Definition (docs/design.md §5). For systems ``a`` and ``b`` scored on the same items, ``p(a ≻ b)`` is the one-sided
p-value of a paired permutation test that ``a`` beats ``b``: each permutation swaps the two systems' scores of each
item independently with probability ½ (one sign pattern per permutation, shared by every system pair and by the
human and metric sides, drawn from ``seed``), recomputes both system scores, and counts the permutations whose
difference ``score(a′) − score(b′)`` is at least the observed one: ``p = count / n_permutations`` (mt-metrics-eval's
convention: the observed arrangement is not added). Then

    SPA = 1 − mean over system pairs a < b of |p_human(a ≻ b) − p_metric(a ≻ b)|.

As WMT computes it (:func:`spa_of_segment_scores`), each system's score on both sides is the mean of its segment
scores over the items where every system has both a human and a metric score — for BLEU, chrF and TER that is the
mean of *sentence* scores, not the corpus score that pairwise accuracy and the system-level correlations use; this
is mt-metrics-eval's ``PairwiseConfidenceError``. The core (:func:`pairwise_permutation_p_values`) takes per-item
sufficient statistics and a ``scores_from_sums``, so a permutation test of a corpus score is the same call with a
metric's statistics. Error-rate metrics are negated (``a`` beats ``b`` when its error is lower).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from korean_eval.model.defaults import RESAMPLES, SEED

ScoresFromSums = Callable[[np.ndarray], np.ndarray]
_REL_TOL = 1e-12  # a permuted difference within this (relative) distance of the observed one counts as equal


def sign_patterns(n_permutations: int, n_items: int, seed: int) -> np.ndarray:
    """``(n_permutations, n_items)`` of ±1: +1 keeps an item's pair of scores, −1 swaps it (seeded)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, size=(n_permutations, n_items)).astype(np.float64) * 2.0 - 1.0


def pairwise_permutation_p_values(
    per_item: np.ndarray, scores_from_sums: ScoresFromSums, signs: np.ndarray, higher_is_better: bool = True
) -> np.ndarray:
    """``P[a, b]`` = one-sided permutation p-value that system ``a`` beats ``b`` (``a < b``; NaN elsewhere).

    ``per_item``: ``(n_systems, n_items, k)`` statistics (``k = 1`` and ``scores_from_sums = mean`` for plain scores);
    ``scores_from_sums`` maps sums ``(..., k)`` to scores ``(...)``; ``signs``: :func:`sign_patterns`. Swapped sums of
    ``a`` and ``b`` are ``(T_a + T_b ± σ·(x_a − x_b)) / 2``. Every ``b > a`` of one ``a`` at once (elementwise the
    same numbers as one pair at a time)."""
    per_item = np.asarray(per_item, dtype=np.float64)
    n_systems = per_item.shape[0]
    totals = per_item.sum(axis=1)  # (systems, k)
    signed = np.einsum("pi,sik->spk", signs, per_item)  # σ @ x_s for every system: (systems, permutations, k)
    direction = 1.0 if higher_is_better else -1.0
    observed_scores = direction * scores_from_sums(totals)
    p = np.full((n_systems, n_systems), np.nan)
    for a in range(n_systems - 1):
        b = np.arange(a + 1, n_systems)
        half_sum = ((totals[a] + totals[b]) / 2.0)[:, None, :]  # (b, 1, k)
        half_diff = (signed[a] - signed[b]) / 2.0  # (b, permutations, k)
        null = direction * (scores_from_sums(half_sum + half_diff) - scores_from_sums(half_sum - half_diff))
        observed = observed_scores[a] - observed_scores[b]
        tolerance = _REL_TOL * np.maximum(1.0, np.abs(observed))
        p[a, b] = np.mean(null >= (observed - tolerance)[:, None], axis=1)
    return p


def soft_pairwise_accuracy(p_human: np.ndarray, p_metric: np.ndarray) -> float:
    """``1 − mean_{a<b} |p_human[a, b] − p_metric[a, b]|`` over the upper triangle (module docstring)."""
    upper = np.triu_indices(p_human.shape[0], 1)
    return float(1.0 - np.mean(np.abs(p_human[upper] - p_metric[upper])))


@dataclass(frozen=True)
class HumanPairwise:
    """The human side of SPA, computed once per evaluation: the items every system has a human score for, the sign
    patterns over them, and the human p-values ``p_human[a, b]`` (a < b)."""

    items: np.ndarray  # bool mask over all items
    signs: np.ndarray
    p_human: np.ndarray
    n_permutations: int
    seed: int


def _mean_of_sums(sums: np.ndarray) -> np.ndarray:
    return sums[..., 0]  # the sum over the same items: ordering by it is ordering by the mean


def human_pairwise(human: np.ndarray, n_permutations: int = RESAMPLES, seed: int = SEED) -> HumanPairwise:
    """:class:`HumanPairwise` of a ``(n_systems, n_items)`` human matrix (NaN = no score)."""
    human = np.asarray(human, dtype=np.float64)
    items = np.isfinite(human).all(axis=0)
    signs = sign_patterns(n_permutations, int(items.sum()), seed)
    p_human = pairwise_permutation_p_values(human[:, items, None], _mean_of_sums, signs)
    return HumanPairwise(items, signs, p_human, n_permutations, seed)


def spa_of_segment_scores(
    metric: np.ndarray, humans: HumanPairwise, human: np.ndarray, higher_is_better: bool = True
) -> tuple[float, int]:
    """``(SPA, n_items)`` of a metric's ``(n_systems, n_items)`` segment scores against the humans, WMT's way: each
    system's score is the mean of its segment scores over the items where every system has both a human and a
    metric score (mt-metrics-eval ``PairwiseConfidenceError``). NaN below 2 systems or without such items."""
    metric = np.asarray(metric, dtype=np.float64)
    if metric.shape[0] < 2:
        return float("nan"), 0
    items = humans.items & np.isfinite(metric).all(axis=0)
    n_items = int(items.sum())
    if n_items == 0:
        return float("nan"), 0
    if np.array_equal(items, humans.items):
        signs, p_human = humans.signs, humans.p_human
    else:  # the metric lacks some of the humans' items: both sides on the common items, fresh patterns
        signs = sign_patterns(humans.n_permutations, n_items, humans.seed)
        p_human = pairwise_permutation_p_values(np.asarray(human)[:, items, None], _mean_of_sums, signs)
    p_metric = pairwise_permutation_p_values(metric[:, items, None], _mean_of_sums, signs, higher_is_better)
    return soft_pairwise_accuracy(p_human, p_metric), n_items
