"""Is one configuration's correlation with the humans significantly higher than another's (docs/design.md §5): the
Williams test, both tests together (:func:`compare_correlations`), and WMT-style significance clusters.

p-value convention: one-sided, "the first configuration correlates better" (a small p: a significantly better).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from korean_eval.metaeval.stats.correlation import (
    MIN_SYSTEMS,
    common_points,
    correlation,
    grouped_correlations,
)
from korean_eval.metaeval.stats.permutation import permutation_deltas
from korean_eval.model.defaults import ALPHA, RESAMPLES, SEED
from korean_eval.model.vocabulary import computed_statistic, is_grouped


def williams_test(r12: float, r13: float, r23: float, n: int, df_offset: int = 3) -> float:
    """One-sided Williams (1959) test that correlation ``r12`` is greater than ``r13`` (dependent, overlapping).

    Variable 1 is the human score, 2 and 3 are two metric configurations scored on the same ``n`` points, ``r23`` is
    the correlation between the two configurations (Graham & Baldwin 2014; WMT metrics tasks)::

        K = 1 - r12² - r13² - r23² + 2·r12·r13·r23
        t = (r12 - r13)·sqrt((n-1)(1+r23)) / sqrt(2K(n-1)/(n-3) + ((r12+r13)²/4)(1-r23)³)
        p = 1 - T_cdf(t; df = n - df_offset)        (= scipy.stats.t.sf)

    The ``(n-3)`` inside ``t`` is fixed (Williams' formula); ``df_offset`` changes *only* the degrees of freedom of
    the Student t reference distribution. ``df_offset=3`` (df = n-3) is the standard test (Graham & Baldwin 2014,
    mt-metrics-eval ``WilliamsTest``); ``df_offset=2`` (df = n-2) is a variant some implementations use. Check:
    ``williams_test(0.65, 0.55, 0.30, 50)`` = 0.20929 (df 47, equal to mt-metrics-eval
    ``WilliamsTest(0.65, 0.55, 0.30, 50)`` to 1e-12) and with ``df_offset=2`` = 0.20924 (df 48). (Also replacing
    the ``(n-3)`` inside ``t`` by ``(n-2)`` would give 0.20712 — that is *not* what this function does.)

    ``t`` is signed, so ``p > 0.5`` when ``r12 < r13`` (unlike mt-metrics-eval, which tests ``|t|``). Returns ``NaN``
    if any input is NaN, ``n - df_offset < 1``, ``n <= 3`` or the denominator is not positive. Designed for Pearson
    correlations over one set of points; for other statistics it is an approximation.
    """
    from scipy import stats as sps  # imported when first used: it takes half a second
    values = (r12, r13, r23)
    if not all(np.isfinite(v) for v in values) or n <= 3 or n - df_offset < 1:
        return float("nan")
    k = 1.0 - r12**2 - r13**2 - r23**2 + 2.0 * r12 * r13 * r23
    den2 = 2.0 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4.0) * (1.0 - r23) ** 3
    if not den2 > 0:
        return float("nan")
    t = (r12 - r13) * np.sqrt((n - 1) * (1.0 + r23)) / np.sqrt(den2)
    return float(sps.t.sf(t, n - df_offset))


class PairCorrelations(NamedTuple):
    """Correlations of two configurations a, b on the points both share with the humans (:func:`pair_correlations`).

    Attributes:
        r_a, r_b: correlation of each configuration with the human scores.
        r_ab: correlation between the two configurations (same statistic and grouping) — Williams' ``r23``.
        n: number of common points (segment level: (system, item) pairs; system level: systems).
    """

    r_a: float
    r_b: float
    r_ab: float
    n: int

    def swapped(self) -> PairCorrelations:
        """The same correlations for the pair (b, a) (``r_ab`` is kept as computed for (a, b))."""
        return PairCorrelations(self.r_b, self.r_a, self.r_ab, self.n)


def pair_correlations(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str = "segment",
    grouping: str = "none",
) -> PairCorrelations:
    """``r(a, H)``, ``r(b, H)``, ``r(a, b)`` and ``n`` over the points present in all three inputs
    (:func:`korean_eval.metaeval.stats.correlation.common_points`), each by
    :func:`korean_eval.metaeval.stats.correlation.correlation` with ``statistic``, ``granularity`` and ``grouping``."""
    a, b, h, ok = common_points(metric_a, metric_b, human, granularity)
    return PairCorrelations(
        correlation(a, h, statistic, granularity, grouping)[0],
        correlation(b, h, statistic, granularity, grouping)[0],
        correlation(a, b, statistic, granularity, grouping)[0],
        int(ok.sum()),
    )


class PairCorrelator:
    """:func:`pair_correlations` of many pairs of fixed configurations, each value identical, with less work.

    ``scores``: configuration → its scores (as :func:`pair_correlations` takes them), all against ``human``. A
    configuration's correlation with the humans depends only on it and the pair's common points, so it is computed
    once per (configuration, common points) — by the same call — and reused by every pair sharing them. At the
    system level ``r(a, b)`` of a batch of pairs is one :func:`~korean_eval.metaeval.stats.correlation.
    grouped_correlations` call (a row per pair, masked by its common points; each row's value is the per-pair
    ``correlate``; NaN below :data:`~korean_eval.metaeval.stats.correlation.MIN_SYSTEMS` as in ``system_correlation``); at
    the segment level each pair's ``r(a, b)`` is :func:`~korean_eval.metaeval.stats.correlation.correlation` as before.
    ``need_between=False``: ``r(a, b)`` is not computed (NaN) — only the Williams test reads it."""

    def __init__(
        self, scores: Mapping[Hashable, np.ndarray], human: np.ndarray, statistic: str, granularity: str, grouping: str,
        need_between: bool = True,
    ) -> None:
        self.scores, self.human, self.need_between = scores, human, need_between
        self.statistic, self.granularity, self.grouping = statistic, granularity, grouping
        self._with_human: dict[tuple[Hashable, bytes], float] = {}

    def __call__(self, pairs: Sequence[tuple[Hashable, Hashable]]) -> list[PairCorrelations]:
        """The :func:`pair_correlations` of each ``(a, b)`` in ``pairs``, in order."""
        common = [common_points(self.scores[x], self.scores[y], self.human, self.granularity) for x, y in pairs]
        r_ab = self._between(common) if self.need_between else [float("nan")] * len(common)
        return [
            PairCorrelations(self._r_human(x, a, h, ok), self._r_human(y, b, h, ok), r, int(ok.sum()))
            for (x, y), (a, b, h, ok), r in zip(pairs, common, r_ab, strict=True)
        ]

    def _r_human(self, key: Hashable, values: np.ndarray, human: np.ndarray, ok: np.ndarray) -> float:
        memo_key = (key, ok.tobytes())
        if memo_key not in self._with_human:
            self._with_human[memo_key] = correlation(values, human, self.statistic, self.granularity, self.grouping)[0]
        return self._with_human[memo_key]

    def _between(self, common: list[tuple[np.ndarray, ...]]) -> list[float]:
        if self.granularity == "segment":
            return [correlation(a, b, self.statistic, self.granularity, self.grouping)[0] for a, b, _, _ in common]
        if not common:
            return []
        a, b, _, ok = (np.stack(parts) for parts in zip(*common, strict=True))
        statistic = computed_statistic(self.statistic, self.granularity, self.grouping)
        values = np.array(grouped_correlations(a, b, ok, statistic))
        return [float(v) for v in np.where(ok.sum(axis=1) < MIN_SYSTEMS, np.nan, values)]


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare_correlations` (configuration a vs b on the same human scores).

    Attributes:
        r_a, r_b: correlation of each configuration with the human scores (on the common points).
        r_ab: correlation between the two configurations (same statistic and grouping).
        n: number of common points (segment level: (system, item) pairs; system level: systems).
        p_williams: one-sided Williams p that a beats b, df = n-3 (NaN for grouped segment correlations).
        p_williams_df_n2: the same with df = n-2.
        p_permutation: one-sided paired permutation p that a beats b
            (:func:`korean_eval.metaeval.stats.permutation.permutation_test`).
        permutation_method: how ``p_permutation`` was computed (``"exact, 16 patterns"`` or ``"Monte-Carlo, 1000
            permutations"``, :func:`korean_eval.metaeval.stats.permutation.permutation_method`).
    """

    r_a: float
    r_b: float
    r_ab: float
    n: int
    p_williams: float
    p_williams_df_n2: float
    p_permutation: float
    permutation_method: str


def compare_correlations(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = RESAMPLES,
    seed: int = SEED,
    pair: PairCorrelations | None = None,
) -> Comparison:
    """Compare two configurations' correlations with the same human scores (both tests: "a beats b").

    Inputs as in :func:`korean_eval.metaeval.stats.permutation.permutation_test` (segment: ``(n_systems, n_items)``
    matrices with ``grouping``; system: per-system vectors), restricted to the points present in all three
    (:func:`pair_correlations`). Williams p-values (:func:`williams_test` with df n-3 and n-2) are computed for
    ungrouped correlations (system level, or segment level with ``grouping="none"``) and are NaN for
    item/system-grouped averages, to which the test does not apply (mt-metrics-eval ``WilliamsSigDiff`` likewise
    applies to non-averaged correlations). ``pair``: the :func:`pair_correlations` of (a, b) when already known
    (e.g. :meth:`PairCorrelations.swapped` of those of (b, a)).
    """
    if pair is None:
        pair = pair_correlations(metric_a, metric_b, human, statistic, granularity, grouping)
    r_a, r_b, r_ab, n = pair
    if is_grouped(granularity, grouping):
        p3 = p2 = float("nan")
    else:
        p3, p2 = williams_test(r_a, r_b, r_ab, n, 3), williams_test(r_a, r_b, r_ab, n, 2)
    perm = permutation_deltas(metric_a, metric_b, human, statistic, granularity, grouping, n_permutations, seed)
    return Comparison(
        r_a=r_a, r_b=r_b, r_ab=r_ab, n=n, p_williams=p3, p_williams_df_n2=p2, p_permutation=perm.p_value(),
        permutation_method=perm.method,
    )


def cluster_order(correlations: Mapping[str, float]) -> list[str]:
    """The order :func:`rank_clusters` walks: by correlation, descending; ties by name; NaN correlations last."""

    def key(name: str) -> tuple[bool, float, str]:
        r = correlations[name]
        return (not np.isfinite(r), -r if np.isfinite(r) else 0.0, name)

    return sorted(correlations, key=key)


def rank_clusters(
    correlations: Mapping[str, float], pvalues: Mapping[tuple[str, str], float], alpha: float = ALPHA
) -> dict[str, int]:
    """Significance clusters of configurations (WMT style; mt-metrics-eval ``data.AssignRanks``).

    Configurations are sorted by :func:`cluster_order` (correlation descending, ties by name, NaN last). Cluster 1
    holds the first one; walking down the list, configuration ``b`` starts a new cluster (number + 1, and the new current
    cluster is ``{b}``) if ``pvalues[(a, b)] < alpha`` — "a beats b" significantly — for some ``a`` in the current
    cluster; otherwise it joins the current cluster. A missing pair raises ``KeyError``; a NaN p is not significant.
    Returns name → cluster number (1 = best), in the sorted order.

    The one difference from ``AssignRanks(sig_matrix, pval)``, which builds the same clusters from the p-values of
    the current cluster's members against the next configuration: it counts ``p <= pval`` as significant, this
    function ``p < alpha`` — a p exactly at α splits there, not here.
    """
    order = cluster_order(correlations)
    clusters: dict[str, int] = {}
    current: list[str] = []
    number = 1
    for b in order:
        if current and any(pvalues[(a, b)] < alpha for a in current):
            number += 1
            current = []
        current.append(b)
        clusters[b] = number
    return clusters
