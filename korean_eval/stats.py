"""Significance tests and confidence intervals for the meta-evaluation (plain functions over numpy arrays).

Layouts (as in :mod:`korean_eval.correlation`):

* a *metric matrix* ``M`` / *human matrix* ``H``: shape ``(n_systems, n_items)``, float64, ``NaN`` where a
  (system, item) pair has no score;
* per-segment *sufficient statistics* ``stats``: shape ``(n_systems, n_items, k)`` (or ``(n_items, k)`` for one
  system), turned into system (corpus) scores only through a metric's vectorised ``scores_from_sums((..., k)) ->
  (...)`` applied to statistics *summed* over items — never by averaging segment scores;
* a *bootstrap index matrix* ``indices``: shape ``(n_resamples, n_items)``, row ``r`` the item indices of resample
  ``r`` (drawn with replacement). One seeded matrix (:func:`bootstrap_indices`) is drawn per run and reused by every
  bootstrap of that run, so all configurations are resampled identically (paired).

Every bootstrap resamples *items* (columns) with all their systems. Resampled statistics are summed with an item
*count matrix* ``C`` (``C[r, i]`` = how many times item ``i`` occurs in resample ``r``), i.e. ``C @ stats``, which equals
summing the drawn rows.

p-value conventions are stated per function; "one-sided" always means "the first configuration/system is better".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from typing import NamedTuple

import numpy as np
from numba import njit
from scipy import stats as sps

from korean_eval.correlation import MIN_SYSTEMS, segment_correlation, system_correlation

ScoresFromSums = Callable[[np.ndarray], np.ndarray]
SYSTEM_PAIR_LABELS: tuple[str, ...] = (
    "agree",
    "flipped",
    "flipped, neither significant",
    "metric significant, humans not",
    "humans significant, metric not",
)
# Absolute tolerance under which a permuted difference of correlations counts as equal to the observed one.
_TIE_EPS = 1e-12


# --------------------------------------------------------------------------------------------------------------
# Williams test
# --------------------------------------------------------------------------------------------------------------


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
    ``williams_test(0.65, 0.55, 0.30, 50)`` = 0.20929 (df 47) and with ``df_offset=2`` = 0.20924 (df 48). (Also
    replacing the ``(n-3)`` inside ``t`` by ``(n-2)`` would give 0.20712 — that is *not* what this function does.)

    ``t`` is signed, so ``p > 0.5`` when ``r12 < r13`` (unlike mt-metrics-eval, which tests ``|t|``). Returns ``NaN``
    if any input is NaN, ``n - df_offset < 1``, ``n <= 3`` or the denominator is not positive. Designed for Pearson
    correlations over one set of points; for other statistics it is an approximation.
    """
    values = (r12, r13, r23)
    if not all(np.isfinite(v) for v in values) or n <= 3 or n - df_offset < 1:
        return float("nan")
    k = 1.0 - r12**2 - r13**2 - r23**2 + 2.0 * r12 * r13 * r23
    den2 = 2.0 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4.0) * (1.0 - r23) ** 3
    if not den2 > 0:
        return float("nan")
    t = (r12 - r13) * np.sqrt((n - 1) * (1.0 + r23)) / np.sqrt(den2)
    return float(sps.t.sf(t, n - df_offset))


# --------------------------------------------------------------------------------------------------------------
# Bootstrap helpers
# --------------------------------------------------------------------------------------------------------------


def bootstrap_indices(n_items: int, n_resamples: int = 1000, seed: int = 12345) -> np.ndarray:
    """The bootstrap index matrix of a run: shape ``(n_resamples, n_items)``, int64, items drawn with replacement.

    Drawn exactly as sacrebleu's paired bootstrap draws them:
    ``np.random.default_rng(seed).choice(n_items, size=(n_resamples, n_items), replace=True)`` (sacrebleu's default
    seed is 12345, its default resample count 1000), so with the same seed and count the resamples are identical.
    """
    if n_items < 1 or n_resamples < 1:
        raise ValueError(f"need n_items >= 1 and n_resamples >= 1, got {n_items}, {n_resamples}")
    rng = np.random.default_rng(seed)
    return np.asarray(rng.choice(n_items, size=(n_resamples, n_items), replace=True), dtype=np.int64)


def resample_counts(indices: np.ndarray, n_items: int) -> np.ndarray:
    """Count matrix ``C`` (``(n_resamples, n_items)``, float64): ``C[r, i]`` = occurrences of item ``i`` in row ``r``."""
    indices = np.asarray(indices)
    if indices.ndim != 2:
        raise ValueError(f"indices must be (n_resamples, n_items_drawn), got shape {indices.shape}")
    if indices.size and (indices.min() < 0 or indices.max() >= n_items):
        raise ValueError(f"indices out of range for {n_items} items")
    n_res = indices.shape[0]
    flat = (indices + np.arange(n_res)[:, None] * n_items).ravel()
    return np.bincount(flat, minlength=n_res * n_items).reshape(n_res, n_items).astype(np.float64)


def percentile_ci(values: np.ndarray, alpha: float = 0.05) -> tuple[float, float]:
    """Percentile interval: the ``alpha/2`` and ``1 - alpha/2`` quantiles (numpy "linear" interpolation) of the
    finite ``values``; ``(NaN, NaN)`` if none is finite (resamples with an undefined statistic are dropped)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(v, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(lo), float(hi)


def _weighted_means(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per resample and row of ``values`` (``(n_rows, n_items)``, NaN = absent), the mean over the resampled items
    where the value is present, each item weighted by its count: ``(n_resamples, n_rows)``, NaN if none present."""
    present = np.isfinite(values)
    num = counts @ np.where(present, values, 0.0).T
    den = counts @ present.T.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _check_indices(indices: np.ndarray, n_items: int) -> np.ndarray:
    indices = np.asarray(indices)
    if indices.ndim != 2 or indices.shape[1] != n_items:
        raise ValueError(f"indices must be shaped (n_resamples, {n_items}), got {indices.shape}")
    return indices


# --------------------------------------------------------------------------------------------------------------
# Confidence intervals of correlations
# --------------------------------------------------------------------------------------------------------------


def segment_correlation_ci(
    metric: np.ndarray,
    human: np.ndarray,
    statistic: str,
    grouping: str,
    indices: np.ndarray,
    alpha: float = 0.05,
) -> tuple[float, float]:
    """Bootstrap percentile CI of the segment-level correlation.

    Resample ``r`` takes the item columns ``indices[r]`` (with repetition) of both matrices, all systems of each
    drawn item together, and computes ``korean_eval.correlation.segment_correlation(metric[:, idx], human[:, idx],
    statistic, grouping)`` (``none``: one correlation over all present pairs; ``item``: mean over drawn columns of
    the across-system correlation, repeated columns counted repeatedly; ``system``: mean over systems of the
    across-item correlation). The interval is :func:`percentile_ci` of the resampled correlations.
    """
    metric = np.asarray(metric, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    if metric.shape != human.shape or metric.ndim != 2:
        raise ValueError(
            f"metric and human must be equal (n_systems, n_items) matrices, got {metric.shape}, {human.shape}"
        )
    indices = _check_indices(indices, metric.shape[1])
    values = np.array(
        [segment_correlation(metric[:, idx], human[:, idx], statistic, grouping)[0] for idx in indices]
    )
    return percentile_ci(values, alpha)


def system_correlation_ci(
    stats: np.ndarray,
    scores_from_sums: ScoresFromSums,
    human: np.ndarray,
    statistic: str,
    indices: np.ndarray,
    alpha: float = 0.05,
) -> tuple[float, float]:
    """Bootstrap percentile CI of the system-level correlation, system scores from *summed* statistics.

    ``stats``: ``(n_systems, n_items, k)`` finite per-segment metric statistics; ``human``: ``(n_systems, n_items)``
    with NaN where no human score. For resample ``r`` (item counts ``C[r]``):

    * metric score of system ``s`` = ``scores_from_sums(Σ_i C[r, i] · stats[s, i])`` — one vectorised call on the
      ``(n_resamples, n_systems, k)`` sums, over *all* resampled items;
    * human score of system ``s`` = ``Σ_i C[r, i] h[s, i] / Σ_i C[r, i]`` over the resampled items ``i`` where system
      ``s`` has a human score (NaN if none, and the system is then skipped);
    * correlation across systems (:func:`korean_eval.correlation.system_correlation`).

    The interval is :func:`percentile_ci` of the resampled correlations.
    """
    stats = np.asarray(stats, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    if stats.ndim != 3 or stats.shape[:2] != human.shape:
        raise ValueError(
            f"stats must be (n_systems, n_items, k) matching human {human.shape}, got {stats.shape}"
        )
    if not np.all(np.isfinite(stats)):
        raise ValueError("stats must be finite (every system needs statistics for every item)")
    indices = _check_indices(indices, stats.shape[1])
    counts = resample_counts(indices, stats.shape[1])
    sums = np.tensordot(counts, stats, axes=([1], [1]))  # (n_resamples, n_systems, k)
    metric_sys = np.asarray(scores_from_sums(sums), dtype=np.float64)  # (n_resamples, n_systems)
    human_sys = _weighted_means(counts, human)
    values = np.array(
        [system_correlation(m, h, statistic)[0] for m, h in zip(metric_sys, human_sys, strict=True)]
    )
    return percentile_ci(values, alpha)


def system_correlation_ci_from_scores(
    metric: np.ndarray,
    human: np.ndarray,
    statistic: str,
    indices: np.ndarray,
    alpha: float = 0.05,
) -> tuple[float, float]:
    """Bootstrap percentile CI of the system-level correlation for metrics given only as per-segment scores.

    For "bring-your-own" metrics without sufficient statistics: ``metric`` and ``human`` are ``(n_systems,
    n_items)`` with NaN where absent. For resample ``r`` the system score is the count-weighted *mean of segment
    scores* over the resampled items where that score is present (the same rule for metric and human), and the
    correlation is taken across systems. The interval is :func:`percentile_ci` of the resampled correlations.
    """
    metric = np.asarray(metric, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    if metric.shape != human.shape or metric.ndim != 2:
        raise ValueError(
            f"metric and human must be equal (n_systems, n_items) matrices, got {metric.shape}, {human.shape}"
        )
    indices = _check_indices(indices, metric.shape[1])
    counts = resample_counts(indices, metric.shape[1])
    metric_sys = _weighted_means(counts, metric)
    human_sys = _weighted_means(counts, human)
    values = np.array(
        [system_correlation(m, h, statistic)[0] for m, h in zip(metric_sys, human_sys, strict=True)]
    )
    return percentile_ci(values, alpha)


# --------------------------------------------------------------------------------------------------------------
# Comparing two configurations that share human scores
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare_correlations` (configuration a vs b on the same human scores).

    Attributes:
        r_a, r_b: correlation of each configuration with the human scores (on the common points).
        r_ab: correlation between the two configurations (same statistic and grouping).
        n: number of common points (segment level: (system, item) pairs; system level: systems).
        p_williams: one-sided Williams p that a beats b, df = n-3 (NaN for grouped segment correlations).
        p_williams_df_n2: the same with df = n-2.
        p_permutation: one-sided paired permutation p that a beats b (:func:`permutation_test`).
    """

    r_a: float
    r_b: float
    r_ab: float
    n: int
    p_williams: float
    p_williams_df_n2: float
    p_permutation: float


def _common(
    metric_a: np.ndarray, metric_b: np.ndarray, human: np.ndarray, granularity: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Validate shapes and set every entry to NaN where any of the three is missing; also return the mask."""
    a = np.asarray(metric_a, dtype=np.float64)
    b = np.asarray(metric_b, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    want = 2 if granularity == "segment" else 1
    if granularity not in ("segment", "system"):
        raise ValueError(f"unknown granularity {granularity!r}; choose 'segment' or 'system'")
    if not (a.shape == b.shape == h.shape) or a.ndim != want:
        raise ValueError(
            f"{granularity} level needs three equal {want}-d arrays, got {a.shape}, {b.shape}, {h.shape}"
        )
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(h)
    return np.where(ok, a, np.nan), np.where(ok, b, np.nan), np.where(ok, h, np.nan), ok


def _corr(x: np.ndarray, h: np.ndarray, statistic: str, granularity: str, grouping: str) -> float:
    if granularity == "segment":
        return segment_correlation(x, h, statistic, grouping)[0]
    return system_correlation(x, h, statistic)[0]


def _standardise(x: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """z-scores over the present entries (population sd); a constant input is only centred."""
    vals = x[ok]
    if vals.size == 0:
        return x.copy()
    sd = float(vals.std())
    return (x - vals.mean()) / (sd if sd > 0 else 1.0)


def _permutation_deltas(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str,
    grouping: str,
    n_permutations: int,
    seed: int,
) -> tuple[float, np.ndarray]:
    """Observed ``r_a - r_b`` and the ``n_permutations`` permuted differences (see :func:`permutation_test`)."""
    a, b, h, ok = _common(metric_a, metric_b, human, granularity)
    za, zb = _standardise(a, ok), _standardise(b, ok)
    observed = _corr(za, h, statistic, granularity, grouping) - _corr(zb, h, statistic, granularity, grouping)
    n_units = a.shape[-1] if granularity == "segment" else a.shape[0]
    rng = np.random.default_rng(seed)
    flips = rng.integers(2, size=(n_permutations, n_units), dtype=bool)
    deltas = np.empty(n_permutations)
    for p, swap in enumerate(flips):
        pa, pb = np.where(swap, zb, za), np.where(swap, za, zb)  # segment: broadcasts over rows = per item
        deltas[p] = _corr(pa, h, statistic, granularity, grouping) - _corr(
            pb, h, statistic, granularity, grouping
        )
    return observed, deltas


def _permutation_p(observed: float, deltas: np.ndarray) -> float:
    if not np.isfinite(observed):
        return float("nan")
    d = deltas[np.isfinite(deltas)]
    return float((np.sum(d >= observed - _TIE_EPS) + 1) / (d.size + 1))


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
    :func:`korean_eval.correlation.segment_correlation` with ``grouping``), per system at system level
    (``granularity="system"``, per-system vectors) — and swaps the two configurations' standardised scores on the
    units that came up heads, giving ``δ_p``. Coins: ``np.random.default_rng(seed).integers(2, size=(n_permutations,
    n_units), dtype=bool)``.

    ``p = (#{p : δ_p ≥ δ} + 1) / (n_valid + 1)`` (one-sided; ``≥`` with a 1e-12 tolerance; permutations whose
    correlation is undefined are dropped from count and ``n_valid``). NaN if ``δ`` is undefined.
    """
    observed, deltas = _permutation_deltas(
        metric_a, metric_b, human, statistic, granularity, grouping, n_permutations, seed
    )
    return _permutation_p(observed, deltas)


def compare_correlations(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str = "segment",
    grouping: str = "none",
    n_permutations: int = 1000,
    seed: int = 12345,
) -> Comparison:
    """Compare two configurations' correlations with the same human scores (both tests: "a beats b").

    Inputs as in :func:`permutation_test` (segment: ``(n_systems, n_items)`` matrices with ``grouping``; system:
    per-system vectors), restricted to the points present in all three. ``r_a = corr(a, H)``, ``r_b = corr(b, H)``,
    ``r_ab = corr(a, b)`` with the same statistic and grouping; ``n`` = number of common points. Williams p-values
    (:func:`williams_test` with df n-3 and n-2) are computed for ungrouped correlations (system level, or segment
    level with ``grouping="none"``) and are NaN for item/system-grouped averages, to which the test does not apply.
    """
    a, b, h, ok = _common(metric_a, metric_b, human, granularity)
    r_a = _corr(a, h, statistic, granularity, grouping)
    r_b = _corr(b, h, statistic, granularity, grouping)
    r_ab = _corr(a, b, statistic, granularity, grouping)
    n = int(ok.sum())
    if granularity == "system" or grouping == "none":
        p3, p2 = williams_test(r_a, r_b, r_ab, n, 3), williams_test(r_a, r_b, r_ab, n, 2)
    else:
        p3 = p2 = float("nan")
    p_perm = permutation_test(
        metric_a, metric_b, human, statistic, granularity, grouping, n_permutations, seed
    )
    return Comparison(
        r_a=r_a, r_b=r_b, r_ab=r_ab, n=n, p_williams=p3, p_williams_df_n2=p2, p_permutation=p_perm
    )


def significance_matrix(
    configs: Mapping[str, np.ndarray],
    human: np.ndarray,
    statistic: str,
    granularity: str = "segment",
    grouping: str = "none",
    tests: Sequence[str] = ("williams", "permutation"),
    n_permutations: int = 1000,
    seed: int = 12345,
) -> list[dict]:
    """Pairwise significance of all configurations: tidy rows for every ordered pair ``(a, b)``, ``a != b``.

    ``configs`` maps a configuration name to its metric matrix (segment) or per-system vector (system), all sharing
    ``human``. Each row is ``{"config_a", "config_b", "test", "statistic", "p_value"}`` with ``p_value`` the one-sided
    p that ``a`` correlates better than ``b``. ``tests`` ⊆ {``"williams"`` (df n-3), ``"williams_n2"`` (df n-2),
    ``"permutation"``}; see :func:`compare_correlations`. The permutation test runs once per unordered pair: with the
    same coins the permuted differences of (b, a) are exactly the negated ones of (a, b), so ``p(b beats a) =
    (#{δ_p ≤ δ} + 1) / (n_valid + 1)`` — identical to calling :func:`permutation_test` on (b, a) with the same seed.
    Rows are ordered by config_a, config_b (insertion order), then test.
    """
    known = {"williams", "williams_n2", "permutation"}
    if unknown := set(tests) - known:
        raise ValueError(f"unknown tests {sorted(unknown)}; choose from {sorted(known)}")
    names = list(configs)
    perm_p: dict[tuple[str, str], float] = {}
    if "permutation" in tests:
        for i, x in enumerate(names):
            for y in names[i + 1 :]:
                obs, deltas = _permutation_deltas(
                    configs[x], configs[y], human, statistic, granularity, grouping, n_permutations, seed
                )
                perm_p[(x, y)] = _permutation_p(obs, deltas)
                perm_p[(y, x)] = _permutation_p(-obs, -deltas)
    rows: list[dict] = []
    for x, y in permutations(names, 2):
        cmp_williams = None
        for test in tests:
            if test == "permutation":
                p = perm_p[(x, y)]
            else:
                if cmp_williams is None:
                    a, b, h, ok = _common(configs[x], configs[y], human, granularity)
                    r_a = _corr(a, h, statistic, granularity, grouping)
                    r_b = _corr(b, h, statistic, granularity, grouping)
                    r_ab = _corr(a, b, statistic, granularity, grouping)
                    cmp_williams = (r_a, r_b, r_ab, int(ok.sum()))
                r_a, r_b, r_ab, n = cmp_williams
                grouped = granularity == "segment" and grouping != "none"
                offset = 3 if test == "williams" else 2
                p = float("nan") if grouped else williams_test(r_a, r_b, r_ab, n, offset)
            rows.append({"config_a": x, "config_b": y, "test": test, "statistic": statistic, "p_value": p})
    return rows


def rank_clusters(
    correlations: Mapping[str, float], pvalues: Mapping[tuple[str, str], float], alpha: float = 0.05
) -> dict[str, int]:
    """Significance clusters of configurations (WMT style; mt-metrics-eval ``AssignRanks``).

    Configurations are sorted by correlation, descending (ties by name; NaN correlations last). Cluster 1 holds the
    first one; walking down the list, configuration ``b`` starts a new cluster (number + 1, and the new current
    cluster is ``{b}``) if ``pvalues[(a, b)] < alpha`` — "a beats b" significantly — for some ``a`` in the current
    cluster; otherwise it joins the current cluster. A missing pair raises ``KeyError``; a NaN p is not significant.
    Returns name → cluster number (1 = best).
    """

    def key(name: str) -> tuple[bool, float, str]:
        r = correlations[name]
        return (not np.isfinite(r), -r if np.isfinite(r) else 0.0, name)

    order = sorted(correlations, key=key)
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


# --------------------------------------------------------------------------------------------------------------
# System pairs
# --------------------------------------------------------------------------------------------------------------


class PairedBootstrap(NamedTuple):
    """Result of a paired bootstrap between systems a and b: ``diff`` = a − b on the full set, sacrebleu-style
    p-value, and the endpoints of the 95% interval of the resampled differences."""

    diff: float
    p_value: float
    ci_low: float
    ci_high: float


def _sacrebleu_p_and_ci(diff: float, resampled_diffs: np.ndarray) -> PairedBootstrap:
    """sacrebleu's paired-bootstrap p-value and 95% order-statistic interval (see :func:`paired_bootstrap_metric`)."""
    d = np.asarray(resampled_diffs, dtype=np.float64)
    n = d.size
    sample = np.abs(d)
    centred = sample - sample.mean()
    if diff == 0 and np.all(d == 0):
        p = 1.0  # identical systems: sacrebleu would report 1/(n+1) here (see paired_bootstrap_metric)
    else:
        p = (np.sum(centred > abs(diff)).item() + 1) / (n + 1)
    ordered = np.sort(d)
    lower = n // 40
    return PairedBootstrap(float(diff), float(p), float(ordered[lower]), float(ordered[n - lower - 1]))


def paired_bootstrap_metric(
    stats_a: np.ndarray,
    stats_b: np.ndarray,
    scores_from_sums: ScoresFromSums,
    indices: np.ndarray,
    dtype: type[np.floating] | np.dtype = np.float64,
) -> PairedBootstrap:
    """sacrebleu's paired bootstrap resampling (``sacrebleu.significance._paired_bs_test``) for two systems' metric.

    ``stats_a``, ``stats_b``: ``(n_items, k)`` per-segment statistics of two systems on the same items;
    ``indices``: ``(n_resamples, n_items)`` from :func:`bootstrap_indices` (sacrebleu draws
    ``default_rng(12345).choice(n, size=(1000, n), replace=True)`` — the same matrix for the default arguments).

    * ``diff = scores_from_sums(Σ stats_a) - scores_from_sums(Σ stats_b)`` on the full set (float64);
    * per resample ``r``: ``s_a[r] = scores_from_sums(Σ_{i ∈ indices[r]} stats_a[i])``, likewise ``s_b[r]`` (the sums
      are cast to ``dtype`` before scoring; sacrebleu sums float32 statistics, so pass ``np.float32`` to reproduce
      its arithmetic bit for bit — for integer statistics below 2**24 the sums are then identical);
    * ``p = (#{r : |s_a[r] - s_b[r]| - mean_r |s_a - s_b| > |diff|} + 1) / (n_resamples + 1)`` — sacrebleu's formula
      (bootstrap distribution of the absolute difference shifted to mean 0 as the null; strict ``>``; a two-sided
      test of "no difference"). One deliberate deviation: when the full-set difference and every resampled
      difference are exactly 0 (e.g. identical outputs) ``p = 1``, where sacrebleu's formula gives ``1/(n+1)``
      (0.000999 for 1000 resamples, "significant");
    * CI: sacrebleu's 95% rule (``estimate_ci``: sorted values at positions ``n // 40`` and ``n - n // 40 - 1``)
      applied to the signed resampled differences ``s_a - s_b``; returned as the two endpoints (sacrebleu reports
      mean ± half-width of each *system's* score instead).
    """
    stats_a = np.asarray(stats_a, dtype=np.float64)
    stats_b = np.asarray(stats_b, dtype=np.float64)
    if stats_a.shape != stats_b.shape or stats_a.ndim != 2:
        raise ValueError(
            f"stats_a and stats_b must be equal (n_items, k) arrays, got {stats_a.shape}, {stats_b.shape}"
        )
    indices = _check_indices(indices, stats_a.shape[0])
    full_a = float(scores_from_sums(stats_a.sum(axis=0)))
    full_b = float(scores_from_sums(stats_b.sum(axis=0)))
    counts = resample_counts(indices, stats_a.shape[0])
    res_a = np.asarray(scores_from_sums((counts @ stats_a).astype(dtype)), dtype=np.float64)
    res_b = np.asarray(scores_from_sums((counts @ stats_b).astype(dtype)), dtype=np.float64)
    return _sacrebleu_p_and_ci(full_a - full_b, res_a - res_b)


def paired_bootstrap_from_resamples(diff: float, resampled_diffs: np.ndarray) -> PairedBootstrap:
    """sacrebleu's paired-bootstrap p-value and 95% interval (as in :func:`paired_bootstrap_metric`) from a full-set
    difference and its resampled differences (NaN resamples dropped) — for callers that score every system's
    resamples once and then form all pairs. NaN throughout if ``diff`` is not finite or no resample is."""
    d = np.asarray(resampled_diffs, dtype=np.float64)
    d = d[np.isfinite(d)]
    if not np.isfinite(diff) or d.size == 0:
        return PairedBootstrap(float("nan"), float("nan"), float("nan"), float("nan"))
    return _sacrebleu_p_and_ci(float(diff), d)


def paired_bootstrap_human(h_a: np.ndarray, h_b: np.ndarray, indices: np.ndarray) -> PairedBootstrap:
    """Paired bootstrap of the human-score difference of systems a and b (same procedure as
    :func:`paired_bootstrap_metric`).

    ``h_a``, ``h_b``: ``(n_items,)`` human scores, NaN where absent; only items where *both* are present count.
    ``diff`` = mean over those items of ``h_a - h_b``. ``indices`` index the full item axis (the run's shared
    matrix); resample ``r``'s difference is the count-weighted mean of ``h_a - h_b`` over its drawn items that have
    both scores (resamples drawing none are dropped). p-value and CI as in :func:`paired_bootstrap_metric`.
    """
    h_a = np.asarray(h_a, dtype=np.float64)
    h_b = np.asarray(h_b, dtype=np.float64)
    if h_a.shape != h_b.shape or h_a.ndim != 1:
        raise ValueError(f"h_a and h_b must be equal 1-d arrays, got {h_a.shape}, {h_b.shape}")
    indices = _check_indices(indices, h_a.shape[0])
    d = h_a - h_b
    if not np.isfinite(d).any():
        return PairedBootstrap(float("nan"), float("nan"), float("nan"), float("nan"))
    diff = float(np.nanmean(d))
    res = _weighted_means(resample_counts(indices, h_a.shape[0]), d[None, :])[:, 0]
    return _sacrebleu_p_and_ci(diff, res[np.isfinite(res)])


def paired_bootstrap_means(values_a: np.ndarray, values_b: np.ndarray, indices: np.ndarray) -> PairedBootstrap:
    """Paired bootstrap of the difference of two systems' *mean* scores, each over its own present items.

    ``values_a``, ``values_b``: ``(n_items,)`` per-item scores (human scores, or segment scores of a metric whose
    system score is their mean), NaN where absent. ``diff = mean(present a) − mean(present b)`` — the difference of
    the two systems' means as reported elsewhere (unlike :func:`paired_bootstrap_human`, which uses only the items
    both systems have; the two agree when both have the same items). Resample ``r`` (the shared ``indices``, so the
    systems are resampled on the same items) takes each system's count-weighted mean over its drawn present items;
    resamples where either system drew none are dropped. p-value and 95% interval as in
    :func:`paired_bootstrap_metric`. All NaN if either system has no score.
    """
    a = np.asarray(values_a, dtype=np.float64)
    b = np.asarray(values_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"values_a and values_b must be equal 1-d arrays, got {a.shape}, {b.shape}")
    indices = _check_indices(indices, a.shape[0])
    if not (np.isfinite(a).any() and np.isfinite(b).any()):
        return PairedBootstrap(float("nan"), float("nan"), float("nan"), float("nan"))
    diff = float(np.mean(a[np.isfinite(a)]) - np.mean(b[np.isfinite(b)]))
    means = _count_means(resample_counts(indices, a.shape[0]), np.vstack([a, b]))
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
    a = np.asarray(h_a, dtype=np.float64)
    b = np.asarray(h_b, dtype=np.float64)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size == 0 or b.size == 0:
        return HumanTest(float("nan"), float("nan"))
    return HumanTest(float(a.mean() - b.mean()), float(sps.ranksums(a, b).pvalue))


def label_system_pair(
    metric_diff: float, metric_p: float, human_diff: float, human_p: float, alpha: float = 0.05
) -> str:
    """Label how a metric's verdict on a system pair relates to the humans'.

    Significant means ``p < alpha`` (NaN p: not significant). Opposite sign means ``metric_diff · human_diff < 0``;
    otherwise (including a zero difference) the signs count as the same. Precedence:

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
    """Pairwise (system-ranking) accuracy of Kocmi et al. (2021).

    Over all unordered pairs of systems ``i < j`` with both scores finite: the fraction with
    ``sign(m_i - m_j) == sign(h_i - h_j)`` and both differences non-zero — a tie in the metric or in the humans
    counts as a disagreement. For an error-rate metric pass ``higher_is_better=False`` (metric scores are negated).
    NaN if there is no pair.
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
    agree = np.sign(m[i] - m[j]) * np.sign(h[i] - h[j]) > 0
    return float(agree.mean())


# --------------------------------------------------------------------------------------------------------------
# Vectorised correlations over resamples and permutations
# --------------------------------------------------------------------------------------------------------------
#
# The functions above loop over resamples/permutations in Python and call scipy once per resample; they are the
# reference definitions. The functions below compute the same values for all resamples (permutations) at once:
# every resample is a *weighted point set* — point ``p`` occurs ``w_p`` times (its item's count in the resample,
# 0 = absent) — and one compiled kernel computes the correlation of the expanded multiset directly from the
# weights, without materialising it. The orderings the rank statistics need are computed once per call, not per
# resample. Tests check every function below against its loop counterpart.

_STAT_CODES = {"pearson": 0, "spearman": 1, "kendall": 2}


@njit(cache=True, nogil=True)
def _pearson_weighted(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Pearson r of the multiset where ``x[p], y[p]`` occurs ``w[p]`` times (``w[p] == 0``: absent); two-pass
    (means first). NaN if fewer than 2 points or either side is constant (exact comparison, as ``correlate``)."""
    n = 0.0
    sx = 0.0
    sy = 0.0
    first = -1
    x_const = True
    y_const = True
    for p in range(x.shape[0]):
        wp = w[p]
        if wp > 0:
            if first < 0:
                first = p
            else:
                if x[p] != x[first]:
                    x_const = False
                if y[p] != y[first]:
                    y_const = False
            n += wp
            sx += wp * x[p]
            sy += wp * y[p]
    if n < 2 or x_const or y_const:
        return np.nan
    mx = sx / n
    my = sy / n
    sxy = 0.0
    sxx = 0.0
    syy = 0.0
    for p in range(x.shape[0]):
        wp = w[p]
        if wp > 0:
            dx = x[p] - mx
            dy = y[p] - my
            sxy += wp * dx * dy
            sxx += wp * dx * dx
            syy += wp * dy * dy
    if not (sxx > 0 and syy > 0):
        return np.nan
    r = sxy / (np.sqrt(sxx) * np.sqrt(syy))
    return min(1.0, max(-1.0, r))


@njit(cache=True, nogil=True)
def _midranks_weighted(v: np.ndarray, order: np.ndarray, w: np.ndarray, ranks: np.ndarray) -> int:
    """Average ranks (1-based, ties share the mean rank) of the multiset's values written to ``ranks[p]`` for
    every present point; ``order`` sorts ``v`` ascending. Returns the number of distinct present values."""
    n = v.shape[0]
    below = 0.0
    groups = 0
    k = 0
    while k < n:
        start = k
        val = v[order[k]]
        k += 1
        while k < n and v[order[k]] == val:
            k += 1
        t = 0.0
        for j in range(start, k):
            t += w[order[j]]
        if t > 0:
            groups += 1
            r = below + (t + 1.0) / 2.0
            for j in range(start, k):
                ranks[order[j]] = r
            below += t
    return groups


@njit(cache=True, nogil=True)
def _kendall_weighted(
    x: np.ndarray,
    ox: np.ndarray,
    y: np.ndarray,
    oy: np.ndarray,
    w: np.ndarray,
    yrank: np.ndarray,
    tree: np.ndarray,
    acc: np.ndarray,
) -> float:
    """Kendall τ-b of the multiset (``ox``/``oy`` sort ``x``/``y``); O(n log n) with a Fenwick tree over y ranks.

    Concordant/discordant pair weights ``Σ w_p w_q`` over pairs ordered the same/opposite way in x and y; pairs tied
    in x: ``(Σ_g t_g² − N)/2`` over the groups of equal x (``t_g`` = summed weight, copies of one point included),
    likewise y; ``τ_b = (C − D) / sqrt(n0 − n_x) / sqrt(n0 − n_y)``, ``n0 = N(N−1)/2`` (scipy's formula). All
    counts are integers held exactly in float64 when the weights are integers.
    """
    n = x.shape[0]
    m = 0
    k = 0
    while k < n:  # dense y ranks 0..m-1
        val = y[oy[k]]
        yrank[oy[k]] = m
        k += 1
        while k < n and y[oy[k]] == val:
            yrank[oy[k]] = m
            k += 1
        m += 1
    for j in range(m + 1):
        tree[j] = 0.0
    for j in range(m):
        acc[j] = 0.0
    con = 0.0
    dis = 0.0
    total = 0.0
    tx = 0.0
    k = 0
    while k < n:
        start = k
        val = x[ox[k]]
        k += 1
        while k < n and x[ox[k]] == val:
            k += 1
        g = 0.0
        for j in range(start, k):  # query the group before adding it: equal x is neither C nor D
            p = ox[j]
            wp = w[p]
            if wp > 0:
                below = 0.0  # weight already seen with a smaller y rank
                i = yrank[p]
                while i > 0:
                    below += tree[i]
                    i -= i & (-i)
                upto = 0.0  # ... with a y rank <= this one
                i = yrank[p] + 1
                while i > 0:
                    upto += tree[i]
                    i -= i & (-i)
                con += wp * below
                dis += wp * (total - upto)
                g += wp
        for j in range(start, k):
            p = ox[j]
            wp = w[p]
            if wp > 0:
                i = yrank[p] + 1
                while i <= m:
                    tree[i] += wp
                    i += i & (-i)
                acc[yrank[p]] += wp
        total += g
        tx += g * g
    ty = 0.0
    for j in range(m):
        ty += acc[j] * acc[j]
    if total < 2:
        return np.nan
    n0 = total * (total - 1.0) / 2.0
    dx = n0 - (tx - total) / 2.0
    dy = n0 - (ty - total) / 2.0
    if not (dx > 0 and dy > 0):
        return np.nan
    tau = (con - dis) / np.sqrt(dx) / np.sqrt(dy)
    return min(1.0, max(-1.0, tau))


@njit(cache=True, nogil=True)
def _correlation_rows(
    code: int,
    x: np.ndarray,
    y: np.ndarray,
    ox: np.ndarray,
    oy: np.ndarray,
    counts: np.ndarray,
    columns: np.ndarray,
) -> np.ndarray:
    """Row ``b`` of the output: the correlation (``code`` 0 Pearson, 1 Spearman, 2 Kendall τ-b) of the points
    ``(x[b], y[b])`` weighted by ``counts[b, columns]`` (a one-row ``x``/``y``/``ox``/``oy``/``counts`` is shared by
    all rows). A point whose x or y is not finite is absent."""
    n_rows = max(x.shape[0], y.shape[0], counts.shape[0])
    n = x.shape[1]
    out = np.empty(n_rows)
    w = np.empty(n)
    rx = np.empty(n)
    ry = np.empty(n)
    yrank = np.empty(n, np.int64)
    tree = np.empty(n + 1)
    acc = np.empty(n)
    for b in range(n_rows):
        ix = b if x.shape[0] > 1 else 0
        iy = b if y.shape[0] > 1 else 0
        ic = b if counts.shape[0] > 1 else 0
        for p in range(n):
            c = counts[ic, columns[p]]
            if c > 0 and np.isfinite(x[ix, p]) and np.isfinite(y[iy, p]):
                w[p] = c
            else:
                w[p] = 0.0
        if code == 0:
            out[b] = _pearson_weighted(x[ix], y[iy], w)
        elif code == 1:
            gx = _midranks_weighted(x[ix], ox[ix], w, rx)
            gy = _midranks_weighted(y[iy], oy[iy], w, ry)
            out[b] = np.nan if (gx < 2 or gy < 2) else _pearson_weighted(rx, ry, w)
        else:
            out[b] = _kendall_weighted(x[ix], ox[ix], y[iy], oy[iy], w, yrank, tree, acc)
    return out


_BLOCK = 32  # weight rows processed together by _fixed_points_rows (inner loops run over them, vectorised)


@njit(cache=True, nogil=True)
def _midranks_block(
    order: np.ndarray,
    starts: np.ndarray,
    cols: np.ndarray,
    cnt_t: np.ndarray,
    b0: int,
    nb: int,
    ranks: np.ndarray,
    stats: np.ndarray,
) -> None:
    """Midranks of the weighted multiset for rows ``b0 .. b0+nb-1`` of the weights ``cnt_t[cols[p], row]``.

    ``order`` sorts the points, ``starts`` are the start positions of its groups of equal values plus ``n``.
    Writes ``ranks[p, b]`` (``below + (t + 1)/2`` for the group's summed weight ``t``; meaningless where the weight
    is 0) and ``stats[0, b]`` = total weight N, ``stats[1, b]`` = ``Σ (t³ − t)``, ``stats[2, b]`` = number of
    groups with positive weight.
    """
    width = ranks.shape[1]
    t = np.zeros(width)
    for b in range(nb):
        stats[0, b] = 0.0
        stats[1, b] = 0.0
        stats[2, b] = 0.0
    for g in range(starts.shape[0] - 1):
        for b in range(nb):
            t[b] = 0.0
        for j in range(starts[g], starts[g + 1]):
            c = cols[order[j]]
            for b in range(nb):
                t[b] += cnt_t[c, b0 + b]
        for j in range(starts[g], starts[g + 1]):
            p = order[j]
            for b in range(nb):
                ranks[p, b] = stats[0, b] + (t[b] + 1.0) / 2.0
        for b in range(nb):
            stats[0, b] += t[b]
            stats[1, b] += t[b] * t[b] * t[b] - t[b]
            stats[2, b] += 1.0 if t[b] > 0 else 0.0


@njit(cache=True, nogil=True)
def _fixed_points_rows(
    code: int,
    ox: np.ndarray,
    gx: np.ndarray,
    oy: np.ndarray,
    gy: np.ndarray,
    yrank: np.ndarray,
    cols: np.ndarray,
    cnt_t: np.ndarray,
) -> np.ndarray:
    """Spearman (``code`` 1) or Kendall τ-b (2) of *one* finite point set under every weighting
    ``w[p] = cnt_t[cols[p], row]`` (``cnt_t``: the count matrix transposed, ``(n_columns, n_rows)``) — the
    bootstrap/permutation case, where only the weights change. Returns ``(n_rows,)``.

    Precomputed once: ``ox``/``oy`` sort the points by x/y, ``gx``/``gy`` are the start positions (in that order)
    of the groups of equal values plus a final ``n``, ``yrank`` the dense y rank of every point. Rows are processed
    in blocks of :data:`_BLOCK` with the block as the innermost loop (contiguous, vectorised): the group structure
    and the Fenwick-tree paths depend only on the points, not on the weights.

    * Spearman: midranks per group ``below + (t + 1)/2`` (:func:`_midranks_block`); their weighted mean is
      ``(N + 1)/2`` and their weighted sum of squared deviations ``(N³ − N − Σ(t³ − t))/12``, so one more pass
      gives the covariance. NaN if N < 2 or a side has fewer than 2 distinct present values.
    * Kendall τ-b: as :func:`_kendall_weighted` (points in x order, a group of equal x queried before it is
      added; discordant weight = seen − seen with smaller y − seen with equal y).
    """
    n_items, n_rows = cnt_t.shape
    n = ox.shape[0]
    m = gy.shape[0] - 1
    width = _BLOCK
    out = np.empty(n_rows)
    if code == 1:
        rx = np.zeros((n, width))
        ry = np.zeros((n, width))
        sx = np.zeros((3, width))
        sy = np.zeros((3, width))
        sxy = np.zeros(width)
        mean = np.zeros(width)
        for b0 in range(0, n_rows, width):
            nb = min(width, n_rows - b0)
            _midranks_block(ox, gx, cols, cnt_t, b0, nb, rx, sx)
            _midranks_block(oy, gy, cols, cnt_t, b0, nb, ry, sy)
            for b in range(nb):
                sxy[b] = 0.0
                mean[b] = (sx[0, b] + 1.0) / 2.0
            for p in range(n):
                c = cols[p]
                for b in range(nb):
                    sxy[b] += cnt_t[c, b0 + b] * (rx[p, b] - mean[b]) * (ry[p, b] - mean[b])
            for b in range(nb):
                total = sx[0, b]
                if total < 2 or sx[2, b] < 2 or sy[2, b] < 2:
                    out[b0 + b] = np.nan
                else:
                    base = total * total * total - total
                    r = sxy[b] / (np.sqrt((base - sx[1, b]) / 12.0) * np.sqrt((base - sy[1, b]) / 12.0))
                    out[b0 + b] = min(1.0, max(-1.0, r))
        return out
    tree = np.zeros((m + 1, width))
    eq = np.zeros((m, width))
    below = np.zeros(width)
    con = np.zeros(width)
    dis = np.zeros(width)
    total = np.zeros(width)
    tx = np.zeros(width)
    gsum = np.zeros(width)
    for b0 in range(0, n_rows, width):
        nb = min(width, n_rows - b0)
        tree[:, :] = 0.0
        eq[:, :] = 0.0
        for b in range(nb):
            con[b] = 0.0
            dis[b] = 0.0
            total[b] = 0.0
            tx[b] = 0.0
        for g in range(gx.shape[0] - 1):
            for b in range(nb):
                gsum[b] = 0.0
            for j in range(gx[g], gx[g + 1]):  # query the whole group first: equal x is neither C nor D
                p = ox[j]
                c = cols[p]
                yr = yrank[p]
                for b in range(nb):
                    below[b] = 0.0
                i = yr
                while i > 0:
                    for b in range(nb):
                        below[b] += tree[i, b]
                    i -= i & (-i)
                for b in range(nb):
                    w = cnt_t[c, b0 + b]
                    con[b] += w * below[b]
                    dis[b] += w * (total[b] - below[b] - eq[yr, b])
                    gsum[b] += w
            for j in range(gx[g], gx[g + 1]):
                p = ox[j]
                c = cols[p]
                yr = yrank[p]
                i = yr + 1
                while i <= m:
                    for b in range(nb):
                        tree[i, b] += cnt_t[c, b0 + b]
                    i += i & (-i)
                for b in range(nb):
                    eq[yr, b] += cnt_t[c, b0 + b]
            for b in range(nb):
                total[b] += gsum[b]
                tx[b] += gsum[b] * gsum[b]
        for b in range(nb):
            ty = 0.0
            for j in range(m):
                ty += eq[j, b] * eq[j, b]
            big_n = total[b]
            if big_n < 2:
                out[b0 + b] = np.nan
                continue
            n0 = big_n * (big_n - 1.0) / 2.0
            dx = n0 - (tx[b] - big_n) / 2.0
            dy = n0 - (ty - big_n) / 2.0
            if not (dx > 0 and dy > 0):
                out[b0 + b] = np.nan
            else:
                out[b0 + b] = min(1.0, max(-1.0, (con[b] - dis[b]) / np.sqrt(dx) / np.sqrt(dy)))
    return out


def _groups(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stable sort order of finite ``v``, the start positions of its groups of equal values (plus ``len(v)``),
    and every point's dense rank."""
    order = np.argsort(v, kind="stable").astype(np.int64)
    sorted_v = v[order]
    new = np.empty(v.size, dtype=bool)
    new[:1] = True
    new[1:] = sorted_v[1:] != sorted_v[:-1]
    starts = np.append(np.flatnonzero(new), v.size).astype(np.int64)
    dense = np.empty(v.size, dtype=np.int64)
    dense[order] = np.cumsum(new) - 1
    return order, starts, dense


@njit(cache=True, nogil=True)
def _counts_matmul_t(cnt_t: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``(cnt_t.T @ m).T`` — ``(k, n_rows)`` — for a transposed count matrix ``cnt_t`` ``(n_items, n_rows)``; the
    innermost loop runs over the rows (contiguous, vectorised)."""
    n_items, n_rows = cnt_t.shape
    k = m.shape[1]
    out = np.zeros((k, n_rows))
    for i in range(n_items):
        for j in range(k):
            mij = m[i, j]
            if mij != 0:
                for r in range(n_rows):
                    out[j, r] += cnt_t[i, r] * mij
    return out


class _Counts:
    """A non-negative integer count matrix ``(n_rows, n_columns)`` kept in both memory layouts, each made on demand:
    ``rows`` (row-major, for the per-row kernel) and ``t`` (its transpose ``(n_columns, n_rows)``, for the kernels
    whose innermost loop runs over the rows)."""

    __slots__ = ("_rows", "_t")

    def __init__(self, rows: np.ndarray | None = None, t: np.ndarray | None = None) -> None:
        self._rows = None if rows is None else np.ascontiguousarray(rows, dtype=np.float64)
        self._t = None if t is None else np.ascontiguousarray(t, dtype=np.float64)

    @property
    def rows(self) -> np.ndarray:
        if self._rows is None:
            self._rows = np.ascontiguousarray(self._t.T)
        return self._rows

    @property
    def t(self) -> np.ndarray:
        if self._t is None:
            self._t = np.ascontiguousarray(self._rows.T)
        return self._t

    @property
    def shape(self) -> tuple[int, int]:
        return self._rows.shape if self._rows is not None else self._t.shape[::-1]


def _as_counts(counts: np.ndarray | _Counts) -> _Counts:
    return counts if isinstance(counts, _Counts) else _Counts(rows=_rows2d(counts, "counts"))


def _counts_matmul(cnt: np.ndarray | _Counts, m: np.ndarray) -> np.ndarray:
    """``cnt @ m`` for a count matrix ``(n_rows, n_items)`` and a small ``m`` ``(n_items, k)``, as a compiled loop:
    a multi-threaded BLAS can spend far longer waking its threads than computing these small products."""
    cnt_t = _as_counts(cnt).t
    return np.ascontiguousarray(_counts_matmul_t(cnt_t, np.ascontiguousarray(m, dtype=np.float64)).T)


def _count_means(counts: np.ndarray | _Counts, values: np.ndarray) -> np.ndarray:
    """:func:`_weighted_means` (same definition) computed with :func:`_counts_matmul`."""
    values = np.asarray(values, dtype=np.float64)
    present = np.isfinite(values)
    both = np.ascontiguousarray(np.hstack([np.where(present, values, 0.0).T, present.T.astype(np.float64)]))
    sums = _counts_matmul(counts, both)
    num, den = sums[:, : values.shape[0]], sums[:, values.shape[0] :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _rows2d(a: np.ndarray | Sequence[float], name: str) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise ValueError(f"{name} must be 1-d or 2-d, got shape {a.shape}")
    return np.ascontiguousarray(a)


def _check_counts(counts: np.ndarray) -> np.ndarray:
    """``counts`` as a 2-d contiguous float64 array of non-negative integers (else ValueError)."""
    cnt = _rows2d(counts, "counts")
    if np.any(cnt < 0) or np.any(cnt != np.round(cnt)):
        raise ValueError("counts must be non-negative integers")
    return cnt


def weighted_correlations(
    x: np.ndarray,
    y: np.ndarray,
    statistic: str,
    counts: np.ndarray | None = None,
    columns: np.ndarray | None = None,
) -> np.ndarray:
    """Row-wise correlations of weighted point sets — the vectorised core of the bootstraps and permutation tests.

    ``x``, ``y``: ``(n_points,)`` or ``(n_rows, n_points)`` (NaN = absent point); ``counts``: ``(n_columns,)`` or
    ``(n_rows, n_columns)`` non-negative *integer* multiplicities (default: every point once); ``columns``:
    ``(n_points,)`` int, the column of ``counts`` that weights each point (default ``arange(n_points)``; e.g. the
    item of each (system, item) point, so that an item drawn twice counts all its systems twice). Each of ``x``,
    ``y``, ``counts`` has one row (shared) or ``n_rows`` rows.

    Row ``b`` is the correlation of the multiset in which point ``p`` occurs ``counts[b, columns[p]]`` times, i.e.
    ``korean_eval.correlation.correlate(np.repeat(x_b[ok], w[ok]), np.repeat(y_b[ok], w[ok]), statistic)`` with
    ``w = counts[b, columns]`` and ``ok`` the points with finite x and y — equal up to floating-point rounding
    (Pearson ~1e-15 relative; Spearman ranks and Kendall pair counts are exact). NaN where that is undefined
    (fewer than 2 points, or a constant side). Cost per row: O(n) for Pearson and Spearman, O(n log n) for Kendall,
    plus one O(n log n) sort of every distinct row of ``x``/``y`` (shared rows are sorted once).
    """
    if statistic not in _STAT_CODES:
        raise ValueError(f"unknown correlation statistic {statistic!r}; choose one of {', '.join(_STAT_CODES)}")
    xs, ys = _rows2d(x, "x"), _rows2d(y, "y")
    n = xs.shape[1]
    if ys.shape[1] != n:
        raise ValueError(f"x and y must have the same number of points, got {xs.shape[1]} and {ys.shape[1]}")
    cols = np.arange(n, dtype=np.int64) if columns is None else np.ascontiguousarray(columns, dtype=np.int64)
    cnt = np.ones((1, n)) if counts is None else _check_counts(counts)
    if cols.shape != (n,) or (n and (cols.min() < 0 or cols.max() >= cnt.shape[1])):
        raise ValueError(f"columns must be {n} indices into the {cnt.shape[1]} columns of counts")
    rows = {xs.shape[0], ys.shape[0], cnt.shape[0]} - {1}
    if len(rows) > 1:
        raise ValueError(f"x, y and counts must have 1 or the same number of rows, got {sorted(rows)}")
    return _weighted_correlations(statistic, xs, ys, _Counts(rows=cnt), cols)


def _weighted_correlations(
    statistic: str, xs: np.ndarray, ys: np.ndarray, counts: _Counts, cols: np.ndarray
) -> np.ndarray:
    """:func:`weighted_correlations` on validated 2-d contiguous inputs (no checks)."""
    if xs.shape[0] == 1 and ys.shape[0] == 1:  # one point set, many weightings: drop absent points once
        ok = np.isfinite(xs[0]) & np.isfinite(ys[0])
        if not ok.all():
            xs, ys, cols = xs[:, ok], ys[:, ok], cols[ok]
        if statistic == "pearson":
            return _pearson_fixed_points(xs[0], ys[0], counts, cols)
        if xs.shape[1] == 0:
            return np.full(counts.shape[0], np.nan)
        ox, gx, _ = _groups(xs[0])
        oy, gy, yrank = _groups(ys[0])
        return _fixed_points_rows(
            _STAT_CODES[statistic], ox, gx, oy, gy, yrank, np.ascontiguousarray(cols), counts.t
        )
    code = _STAT_CODES[statistic]
    n = xs.shape[1]
    if code == 0:
        ox = oy = np.zeros((1, n), dtype=np.int64)
    else:
        ox = np.ascontiguousarray(np.argsort(xs, axis=1, kind="stable"), dtype=np.int64)
        oy = np.ascontiguousarray(np.argsort(ys, axis=1, kind="stable"), dtype=np.int64)
    return _correlation_rows(
        code, np.ascontiguousarray(xs), np.ascontiguousarray(ys), ox, oy, counts.rows, np.ascontiguousarray(cols)
    )


def _wc(
    statistic: str,
    x: np.ndarray,
    y: np.ndarray,
    counts: np.ndarray | _Counts | None = None,
    cols: np.ndarray | None = None,
) -> np.ndarray:
    """Internal :func:`weighted_correlations` for counts already validated by :func:`_check_counts`."""
    if statistic not in _STAT_CODES:
        raise ValueError(f"unknown correlation statistic {statistic!r}; choose one of {', '.join(_STAT_CODES)}")
    xs, ys = _rows2d(x, "x"), _rows2d(y, "y")
    n = xs.shape[1]
    cols = np.arange(n, dtype=np.int64) if cols is None else np.ascontiguousarray(cols, dtype=np.int64)
    weights = _Counts(rows=np.ones((1, n))) if counts is None else _as_counts(counts)
    return _weighted_correlations(statistic, xs, ys, weights, cols)


def _pearson_fixed_points(x: np.ndarray, y: np.ndarray, counts: _Counts, cols: np.ndarray) -> np.ndarray:
    """Pearson r of one finite point set under every row of weights ``counts[:, cols]``, from weighted moments.

    The moments are linear in the weights, so all rows come from one product ``counts @ M`` with ``M`` the per-column
    sums of ``(1, x, y, xy, x², y²)``; x and y are first centred on their means (r is unchanged, cancellation in
    ``Σx² − (Σx)²/n`` is reduced). A row whose drawn x (or y) values are all equal is NaN, as ``correlate`` decides
    for a constant input (decided exactly by :func:`_correlation_rows`, see below).
    """
    n_rows, n_cols = counts.shape
    if x.size == 0:
        return np.full(n_rows, np.nan)
    xc, yc = x - x.mean(), y - y.mean()
    feats = (np.ones_like(xc), xc, yc, xc * yc, xc * xc, yc * yc)
    moments = np.stack([np.bincount(cols, weights=f, minlength=n_cols) for f in feats], axis=1)
    n, sx, sy, sxy, sxx, syy = _counts_matmul_t(counts.t, np.ascontiguousarray(moments))
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = sxy - sx * sy / n
        vx = sxx - sx * sx / n
        vy = syy - sy * sy / n
        r = cov / (np.sqrt(vx) * np.sqrt(vy))
    r = np.where((n < 2) | ~(vx > 0) | ~(vy > 0), np.nan, np.clip(r, -1.0, 1.0))
    # A constant side leaves only rounding noise (~1e-16 · Σx²) in a variance; rows whose variance is that small
    # relative to the raw second moment (constant, or nearly so, where the moments lose precision) are recomputed
    # by the exact two-pass kernel, so the common case costs nothing extra.
    suspect = ~(vx > 1e-9 * sxx) | ~(vy > 1e-9 * syy)
    if suspect.any():
        dummy = np.zeros((1, x.size), dtype=np.int64)
        r[suspect] = _correlation_rows(
            0, x[None, :].copy(), y[None, :].copy(), dummy, dummy, np.ascontiguousarray(counts.rows[suspect]), cols
        )
    return r


def resampled_means(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per resample and row of ``values`` (``(n_rows, n_items)``, NaN = absent), the count-weighted mean over the
    resampled items where the value is present: ``(n_resamples, n_rows)``, NaN where no present item was drawn.
    (E.g. each system's mean human score in every resample.)"""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[None, :]
    return _count_means(counts, values)


def bootstrap_segment_correlations(
    metric: np.ndarray, human: np.ndarray, statistic: str, grouping: str, counts: np.ndarray
) -> np.ndarray:
    """The resampled segment-level correlations whose percentile interval :func:`segment_correlation_ci` reports,
    vectorised: ``(n_resamples,)``.

    ``metric``, ``human``: ``(n_systems, n_items)`` (NaN = absent); ``counts``: :func:`resample_counts` of the index
    matrix. Entry ``r`` equals ``segment_correlation(metric[:, idx_r], human[:, idx_r], statistic, grouping)[0]``
    (up to rounding):

    * ``none``: one weighted point set of all (system, item) points, each weighted by its item's count;
    * ``item``: a drawn column's across-system correlation does not change with resampling, so each item's
      correlation is computed once and resample ``r`` takes their ``counts[r]``-weighted mean over the items where
      it is defined;
    * ``system``: per system, the correlation across items weighted by ``counts[r]``; the mean over the systems
      where it is defined.
    """
    metric = np.asarray(metric, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    if metric.shape != human.shape or metric.ndim != 2:
        raise ValueError(
            f"metric and human must be equal (n_systems, n_items) matrices, got {metric.shape}, {human.shape}"
        )
    n_sys, n_items = metric.shape
    checked = _check_counts(counts)
    if checked.shape[1] != n_items:
        raise ValueError(f"counts must have {n_items} columns, got {checked.shape}")
    counts = _Counts(rows=checked)  # both layouts made once, shared by every call below
    if grouping == "none":
        cols = np.tile(np.arange(n_items, dtype=np.int64), n_sys)
        return _wc(statistic, metric.ravel(), human.ravel(), counts, cols)
    if grouping == "item":
        per_item = _wc(statistic, metric.T, human.T)
        defined = np.isfinite(per_item)
        return _count_means(counts, np.where(defined, per_item, np.nan)[None, :])[:, 0]
    if grouping == "system":
        per_sys = np.stack([_wc(statistic, metric[s], human[s], counts) for s in range(n_sys)])
        return _nanmean_rows(per_sys)
    raise ValueError(f"unknown grouping {grouping!r}; choose one of none, item, system")


def bootstrap_system_scores(stats: np.ndarray, scores_from_sums: ScoresFromSums, counts: np.ndarray) -> np.ndarray:
    """Every system's metric score in every resample, from *summed* statistics: ``(n_resamples, n_systems)``.

    ``stats``: ``(n_systems, n_items, k)``; a row that is not entirely finite (a system without that segment — the
    pipeline's NaN rows) is *absent*: it contributes zero to the sums, so a system's score is computed over its own
    segments only, as its full-set system score is. Score of system ``s`` in resample ``r`` =
    ``scores_from_sums(Σ_i counts[r, i] · stats[s, i])`` over its present rows (one vectorised call); NaN when the
    resample drew none of its segments. With no absent row this is exactly what :func:`system_correlation_ci` scores.
    """
    stats = np.asarray(stats, dtype=np.float64)
    if stats.ndim != 3:
        raise ValueError(f"stats must be (n_systems, n_items, k), got {stats.shape}")
    counts = _check_counts(counts)
    if counts.shape[1] != stats.shape[1]:
        raise ValueError(f"counts must have {stats.shape[1]} columns, got {counts.shape}")
    present = np.all(np.isfinite(stats), axis=2)
    filled = np.where(present[..., None], stats, 0.0)
    n_sys, n_items, k = stats.shape
    flat = np.ascontiguousarray(np.concatenate([filled, present[..., None]], axis=2).transpose(1, 0, 2))
    prods = _counts_matmul(counts, flat.reshape(n_items, n_sys * (k + 1))).reshape(-1, n_sys, k + 1)
    sums, drawn = prods[..., :k], prods[..., k]  # summed statistics (n_resamples, n_systems, k), drawn segments
    out = np.full(drawn.shape, np.nan)
    some = drawn > 0
    if some.any():
        out[some] = np.asarray(scores_from_sums(sums[some]), dtype=np.float64)
    return out


def system_correlations(metric_sys: np.ndarray, human_sys: np.ndarray, statistic: str) -> np.ndarray:
    """Row-wise :func:`korean_eval.correlation.system_correlation`, vectorised: ``(n_rows,)``.

    ``metric_sys``, ``human_sys``: ``(n_systems,)`` or ``(n_rows, n_systems)`` per-system scores (NaN = absent; one
    row may be shared). Row ``b`` is the correlation across the systems with both scores, NaN when fewer than
    :data:`korean_eval.correlation.MIN_SYSTEMS` systems have both (or the correlation is undefined).
    """
    xs, ys = _rows2d(metric_sys, "metric_sys"), _rows2d(human_sys, "human_sys")
    if xs.shape[1] != ys.shape[1] or len({xs.shape[0], ys.shape[0]} - {1}) > 1:
        raise ValueError(f"metric_sys and human_sys must be compatible (rows, systems), got {xs.shape}, {ys.shape}")
    values = _wc(statistic, xs, ys)
    n_both = (np.isfinite(xs) & np.isfinite(ys)).sum(axis=1)
    return np.where(n_both < MIN_SYSTEMS, np.nan, values)


def bootstrap_system_correlations(
    stats: np.ndarray,
    scores_from_sums: ScoresFromSums,
    human: np.ndarray,
    statistic: str,
    counts: np.ndarray,
) -> np.ndarray:
    """The resampled system-level correlations of :func:`system_correlation_ci`, vectorised: ``(n_resamples,)``.

    Metric scores from :func:`bootstrap_system_scores` (NaN statistics rows = absent segments, zero contribution
    to the sums — unlike :func:`system_correlation_ci`, which refuses them), human scores from
    :func:`resampled_means` of ``human`` (``(n_systems, n_items)``), correlation across the systems with both
    scores. Entry ``r`` equals the value :func:`system_correlation_ci` computes for resample ``r`` when every
    statistic is finite (up to rounding).
    """
    metric_sys = bootstrap_system_scores(stats, scores_from_sums, counts)
    return system_correlations(metric_sys, resampled_means(counts, human), statistic)


def bootstrap_system_correlations_from_scores(
    metric: np.ndarray, human: np.ndarray, statistic: str, counts: np.ndarray
) -> np.ndarray:
    """The resampled correlations of :func:`system_correlation_ci_from_scores` (system score = count-weighted mean
    of the present segment scores, for metric and human alike), vectorised: ``(n_resamples,)``."""
    return system_correlations(resampled_means(counts, metric), resampled_means(counts, human), statistic)


@lru_cache(maxsize=4)
def _coin_weights(seed: int, n_permutations: int, n_units: int) -> tuple[np.ndarray, np.ndarray]:
    """The coins of :func:`permutation_test` (``default_rng(seed).integers(2, size=(n_permutations, n_units),
    dtype=bool)``) as the transposed weights ``(2·n_units, 1 + n_permutations)`` of (a's copies, b's copies) for
    the permuted a and for the permuted b; column 0 is the identity (no swap). Cached and read-only: every pair of
    a significance table uses the same coins."""
    flips = np.random.default_rng(seed).integers(2, size=(n_permutations, n_units), dtype=bool)
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
    """Observed ``δ = r(z_a, H) − r(z_b, H)`` and the ``n_permutations`` permuted differences of
    :func:`permutation_test` (same standardisation, same seeded coins), vectorised.

    A permutation keeps, per unit (item at segment level, system at system level), either a's or b's standardised
    scores. Both candidates of every unit form one point set of twice the size; a permutation is a 0/1 weighting
    of it (heads: b's copy for the permuted a, a's copy for the permuted b), so every permutation is one row of
    :func:`weighted_correlations` — no re-sorting per permutation. Item grouping needs no recomputation at all: an
    item's correlation is either a's or b's. The identity weighting gives ``δ``, so a permutation equal to the
    identity reproduces ``δ`` exactly. Pass the result to :func:`permutation_p`.
    """
    a, b, h, ok = _common(metric_a, metric_b, human, granularity)
    za, zb = _standardise(a, ok), _standardise(b, ok)
    n_units = a.shape[-1] if granularity == "segment" else a.shape[0]
    keep_a_t, keep_b_t = _coin_weights(seed, n_permutations, n_units)
    keep_a, keep_b = _Counts(t=keep_a_t), _Counts(t=keep_b_t)

    def both(x: np.ndarray, y: np.ndarray, cols: np.ndarray | None) -> np.ndarray:
        return _wc(statistic, x, y, keep_a, cols) - _wc(statistic, x, y, keep_b, cols)

    if granularity == "system":
        diff = both(np.concatenate([za, zb]), np.concatenate([h, h]), None)
        if ok.sum() < MIN_SYSTEMS:  # as system_correlation: undefined with too few systems
            diff = np.full_like(diff, np.nan)
    elif grouping == "none":
        n_sys, n_items = a.shape
        cols = np.concatenate([np.tile(np.arange(n_items), n_sys), n_items + np.tile(np.arange(n_items), n_sys)])
        diff = both(np.concatenate([za.ravel(), zb.ravel()]), np.concatenate([h.ravel(), h.ravel()]), cols)
    elif grouping == "item":
        r_a = _wc(statistic, za.T, h.T)
        r_b = _wc(statistic, zb.T, h.T)
        per_item = np.concatenate([r_a, r_b])[None, :]
        diff = _count_means(keep_a, per_item)[:, 0] - _count_means(keep_b, per_item)[:, 0]
    elif grouping == "system":
        per_a, per_b = [], []
        for s in range(a.shape[0]):
            x, y = np.concatenate([za[s], zb[s]]), np.concatenate([h[s], h[s]])
            per_a.append(_wc(statistic, x, y, keep_a))
            per_b.append(_wc(statistic, x, y, keep_b))
        diff = _nanmean_rows(np.stack(per_a)) - _nanmean_rows(np.stack(per_b))
    else:
        raise ValueError(f"unknown grouping {grouping!r}; choose one of none, item, system")
    return float(diff[0]), diff[1:]


def _nanmean_rows(values: np.ndarray) -> np.ndarray:
    """Column-wise mean of the finite entries of ``(n_rows, n)``; NaN where none is finite (no warning)."""
    defined = np.isfinite(values)
    n_def = defined.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_def > 0, np.where(defined, values, 0.0).sum(axis=0) / np.maximum(n_def, 1), np.nan)


def permutation_p(observed: float, deltas: np.ndarray) -> float:
    """One-sided permutation p-value of :func:`permutation_test` from ``(observed, deltas)``:
    ``(#{δ_p ≥ δ − 1e-12} + 1) / (n_valid + 1)`` over the finite ``δ_p``; NaN if ``δ`` is not finite. For the
    opposite direction ("b beats a") pass ``(-observed, -deltas)``."""
    return _permutation_p(observed, np.asarray(deltas, dtype=np.float64))


__all__ = [
    "SYSTEM_PAIR_LABELS",
    "Comparison",
    "HumanTest",
    "PairedBootstrap",
    "bootstrap_indices",
    "bootstrap_segment_correlations",
    "bootstrap_system_correlations",
    "bootstrap_system_correlations_from_scores",
    "bootstrap_system_scores",
    "compare_correlations",
    "label_system_pair",
    "paired_bootstrap_from_resamples",
    "paired_bootstrap_human",
    "paired_bootstrap_means",
    "paired_bootstrap_metric",
    "pairwise_accuracy",
    "percentile_ci",
    "permutation_deltas",
    "permutation_p",
    "permutation_test",
    "rank_clusters",
    "resample_counts",
    "resampled_means",
    "segment_correlation_ci",
    "significance_matrix",
    "system_correlations",
    "system_correlation_ci",
    "system_correlation_ci_from_scores",
    "weighted_correlations",
    "wilcoxon_ranksum_human",
    "williams_test",
]
