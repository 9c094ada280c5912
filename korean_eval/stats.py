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
from itertools import permutations
from typing import NamedTuple

import numpy as np
from scipy import stats as sps

from korean_eval.correlation import segment_correlation, system_correlation

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


__all__ = [
    "SYSTEM_PAIR_LABELS",
    "Comparison",
    "HumanTest",
    "PairedBootstrap",
    "bootstrap_indices",
    "compare_correlations",
    "label_system_pair",
    "paired_bootstrap_human",
    "paired_bootstrap_metric",
    "pairwise_accuracy",
    "percentile_ci",
    "permutation_test",
    "rank_clusters",
    "resample_counts",
    "segment_correlation_ci",
    "significance_matrix",
    "system_correlation_ci",
    "system_correlation_ci_from_scores",
    "wilcoxon_ranksum_human",
    "williams_test",
]
