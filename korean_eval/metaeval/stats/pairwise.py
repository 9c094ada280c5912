"""Pairs of systems (docs/design.md §5): does a metric order two systems as the humans do, and is either side's
difference significant — paired bootstraps (sacrebleu's test), the Wilcoxon rank-sum test, the pair labels, and
pairwise (system-ranking) accuracy.

p-value convention here: two-sided tests of "no difference" between systems a and b (sacrebleu's paired bootstrap,
scipy's ``ranksums``); differences are always a − b.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from korean_eval.metaeval.stats.resampling import check_indices, count_weighted_means, resample_counts
from korean_eval.model.defaults import ALPHA

SYSTEM_PAIR_LABELS: tuple[str, ...] = (
    "agree",
    "flipped",
    "flipped, neither significant",
    "metric significant, humans not",
    "humans significant, metric not",
)


class PairedBootstrap(NamedTuple):
    """Result of a paired bootstrap between systems a and b: ``diff`` = a − b on the full set, sacrebleu-style
    p-value, and the endpoints of the 95% interval of the resampled differences."""

    diff: float
    p_value: float
    ci_low: float
    ci_high: float


_UNDEFINED = PairedBootstrap(float("nan"), float("nan"), float("nan"), float("nan"))


def _sacrebleu_p_and_ci(diff: float, resampled_diffs: np.ndarray) -> PairedBootstrap:
    """sacrebleu's paired-bootstrap p-value and 95% order-statistic interval (see
    :func:`paired_bootstrap_from_resamples`)."""
    d = np.asarray(resampled_diffs, dtype=np.float64)
    n = d.size
    sample = np.abs(d)
    centred = sample - sample.mean()
    if diff == 0 and np.all(d == 0):
        p = 1.0  # identical systems: sacrebleu would report 1/(n+1) here
    else:
        p = (np.sum(centred > abs(diff)).item() + 1) / (n + 1)
    ordered = np.sort(d)
    lower = n // 40
    return PairedBootstrap(float(diff), float(p), float(ordered[lower]), float(ordered[n - lower - 1]))


def paired_bootstrap_from_resamples(diff: float, resampled_diffs: np.ndarray) -> PairedBootstrap:
    """sacrebleu's paired bootstrap resampling test (``sacrebleu.significance._paired_bs_test``) from a full-set
    difference ``diff`` = score(a) − score(b) and its resampled differences ``d[r]`` = s_a[r] − s_b[r] on shared
    resamples (NaN resamples dropped) — for callers that score every system's resamples once and then form all
    pairs. NaN throughout if ``diff`` is not finite or no resample is.

    * ``p = (#{r : |d[r]| - mean_r |d| > |diff|} + 1) / (n_resamples + 1)`` — sacrebleu's formula (bootstrap
      distribution of the absolute difference shifted to mean 0 as the null; strict ``>``; a two-sided test of "no
      difference"). One deliberate deviation: when the full-set difference and every resampled difference are
      exactly 0 (e.g. identical outputs) ``p = 1``, where sacrebleu's formula gives ``1/(n+1)`` (0.000999 for 1000
      resamples, "significant");
    * CI: sacrebleu's 95% rule (``estimate_ci``: sorted values at positions ``n // 40`` and ``n - n // 40 - 1``)
      applied to the signed resampled differences; returned as the two endpoints (sacrebleu reports mean ±
      half-width of each *system's* score instead).

    With resamples drawn by :func:`korean_eval.metaeval.stats.resampling.bootstrap_indices` and each system scored from
    its summed resampled statistics this is sacrebleu's test exactly
    (:func:`korean_eval.metaeval.stats.reference.paired_bootstrap_metric`).
    """
    d = np.asarray(resampled_diffs, dtype=np.float64)
    d = d[np.isfinite(d)]
    if not np.isfinite(diff) or d.size == 0:
        return _UNDEFINED
    return _sacrebleu_p_and_ci(float(diff), d)


def paired_bootstrap_means(values_a: np.ndarray, values_b: np.ndarray, indices: np.ndarray) -> PairedBootstrap:
    """Paired bootstrap of the difference of two systems' *mean* scores, each over its own present items.

    ``values_a``, ``values_b``: ``(n_items,)`` per-item scores (human scores, or segment scores of a metric whose
    system score is their mean), NaN where absent. ``diff = mean(present a) − mean(present b)`` — the difference of
    the two systems' means as reported elsewhere. Resample ``r`` (the shared ``indices``, so the systems are
    resampled on the same items) takes each system's count-weighted mean over its drawn present items
    (:func:`korean_eval.metaeval.stats.resampling.count_weighted_means`); resamples where either system drew none are
    dropped. p-value and 95% interval as in :func:`paired_bootstrap_from_resamples`. All NaN if either system has
    no score.
    """
    a = np.asarray(values_a, dtype=np.float64)
    b = np.asarray(values_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"values_a and values_b must be equal 1-d arrays, got {a.shape}, {b.shape}")
    indices = check_indices(indices, a.shape[0])
    if not (np.isfinite(a).any() and np.isfinite(b).any()):
        return _UNDEFINED
    diff = float(np.mean(a[np.isfinite(a)]) - np.mean(b[np.isfinite(b)]))
    means = count_weighted_means(resample_counts(indices, a.shape[0]), np.vstack([a, b]))
    res = means[:, 0] - means[:, 1]
    return _sacrebleu_p_and_ci(diff, res[np.isfinite(res)])


class HumanTest(NamedTuple):
    """Difference of mean human scores (a − b) and a p-value."""

    diff: float
    p_value: float


def wilcoxon_ranksum_human(h_a: np.ndarray, h_b: np.ndarray) -> HumanTest:
    """Wilcoxon rank-sum test of two systems' human scores (``scipy.stats.ranksums``, two-sided; unpaired).

    Uses *all* present (finite) scores of each system, not only common items. ``diff = mean(h_a) - mean(h_b)`` over
    those scores. NaN if either system has no score.
    """
    from scipy import stats as sps  # imported when first used: it takes half a second
    a = np.asarray(h_a, dtype=np.float64)
    b = np.asarray(h_b, dtype=np.float64)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size == 0 or b.size == 0:
        return HumanTest(float("nan"), float("nan"))
    return HumanTest(float(a.mean() - b.mean()), float(sps.ranksums(a, b).pvalue))


def label_system_pair(
    metric_diff: float, metric_p: float, human_diff: float, human_p: float, alpha: float = ALPHA
) -> str:
    """Label how a metric's verdict on a system pair relates to the humans'.

    ``metric_diff`` must already be sign-adjusted (multiplied by
    :func:`korean_eval.model.vocabulary.direction_sign`, so positive = the metric prefers a). Significant means
    ``p < alpha`` (NaN p: not significant). Opposite sign means ``metric_diff · human_diff < 0``; otherwise
    (including a zero difference) the signs count as the same. Precedence:

    * same sign: both significant or neither → ``"agree"``; only the metric → ``"metric significant, humans not"``;
      only the humans → ``"humans significant, metric not"``;
    * opposite sign: neither significant → ``"flipped, neither significant"``; otherwise (either or both) →
      ``"flipped"``.
    """
    if not (np.isfinite(metric_diff) and np.isfinite(human_diff)):
        raise ValueError(f"differences must be finite, got {metric_diff}, {human_diff}")
    m_sig, h_sig = bool(metric_p < alpha), bool(human_p < alpha)
    if metric_diff * human_diff < 0:
        return "flipped" if (m_sig or h_sig) else "flipped, neither significant"
    if m_sig == h_sig:
        return "agree"
    return "metric significant, humans not" if m_sig else "humans significant, metric not"


def pairwise_accuracy(
    metric_scores: np.ndarray, human_scores: np.ndarray, higher_is_better: bool = True
) -> float:
    """Pairwise (system-ranking) accuracy of Kocmi et al. (2021), "To Ship or Not to Ship".

    Over all unordered pairs of systems ``i < j`` with both scores finite: the fraction with
    ``sign(m_i − m_j) == sign(h_i − h_j)`` (``sign`` ∈ {−1, 0, +1}). A pair tied by both the metric and the humans
    therefore *agrees*; a pair tied by one side only disagrees. This is Kocmi et al.'s definition as implemented by
    mt-metrics-eval (``stats.Agreement``: ``np.sign(a[0] - b[0]) == np.sign(a[1] - b[1])``). For an
    error-rate metric pass ``higher_is_better=False`` (metric scores are negated). NaN if there is no pair.
    """
    m = np.asarray(metric_scores, dtype=np.float64)
    h = np.asarray(human_scores, dtype=np.float64)
    if m.shape != h.shape or m.ndim != 1:
        raise ValueError(f"need two equal 1-d arrays, got {m.shape}, {h.shape}")
    ok = np.isfinite(m) & np.isfinite(h)
    m, h = m[ok], h[ok]
    if not higher_is_better:
        m = -m
    i, j = np.triu_indices(m.size, k=1)
    if i.size == 0:
        return float("nan")
    agree = np.sign(m[i] - m[j]) == np.sign(h[i] - h[j])
    return float(agree.mean())
