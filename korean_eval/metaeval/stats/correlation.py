"""Correlations of metric scores with human scores (scipy-backed): the one place that handles granularity ×
grouping (docs/design.md §5).

Layout: a metric matrix ``M`` and a human matrix ``H``, both shaped ``(n_systems, n_items)``, float64, with ``NaN``
wherever a (system, item) pair has no human score (or no metric score). Row ``s`` is one system, column ``i`` one
segment (item). At the system level both are per-system vectors ``(n_systems,)``.

Statistics: ``pearson`` (scipy.stats.pearsonr), ``spearman`` (scipy.stats.spearmanr), ``kendall`` (Kendall τ-b,
scipy.stats.kendalltau with ``variant="b"``), ``pdp`` (Pairwise Difference Pearson, :mod:`korean_eval.metaeval.stats.pdp`;
the Pearson r itself when nothing is grouped). A correlation over fewer than 2 points, or over constant values, is
undefined and returned as ``NaN`` (never raised). :func:`correlation` takes the statistic as a value and applies
it at either granularity with any grouping, as mt-metrics-eval's ``AverageCorrelation(corr_fcn, …)`` does.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from korean_eval.metaeval.stats.pdp import pdp
from korean_eval.metaeval.stats.rank_rows import kendall_rows, spearman_rows
from korean_eval.model.vocabulary import GRANULARITIES, GROUPINGS, STATISTICS, VECTOR_STATISTICS, check_choice

#: Fewer systems than this give no system-level correlation: two points always correlate ±1.
MIN_SYSTEMS = 3


class CorrelationResult(NamedTuple):
    """A correlation and what it rests on.

    Attributes:
        value: the correlation (NaN if undefined).
        n: number of points with both scores ((system, item) pairs at the segment level, systems at the system level).
        n_groups: groups holding at least one point — items or systems for a grouped segment correlation, else 1
            (0 without any point).
        n_undefined: how many of those groups have an undefined correlation (fewer than 2 points, or a constant
            side); dropped from the mean, or counted as 0 with ``replace_nans_with_zeros``.
    """

    value: float
    n: int
    n_groups: int
    n_undefined: int


def _ungrouped(value: float, n: int) -> CorrelationResult:
    """The :class:`CorrelationResult` of one correlation over ``n`` points."""
    groups = 1 if n else 0
    return CorrelationResult(value, n, groups, groups if not np.isfinite(value) else 0)


def correlate(x: np.ndarray, y: np.ndarray, statistic: str) -> float:
    """Correlation of two equal-length 1-d arrays (no NaN); NaN if undefined (n < 2 or a constant input). ``pdp`` of
    two vectors (one group) is their Pearson r."""
    from scipy import stats as sps  # imported when first used: it takes half a second
    check_choice("correlation statistic", statistic, STATISTICS)
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"correlate needs two 1-d arrays of equal length, got {x.shape} and {y.shape}")
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if statistic in ("pearson", "pdp"):
            return float(sps.pearsonr(x, y).statistic)
        if statistic == "spearman":
            return float(sps.spearmanr(x, y).statistic)
        return float(sps.kendalltau(x, y, variant="b").statistic)


def correlation(
    metric: np.ndarray,
    human: np.ndarray,
    statistic: str,
    granularity: str = "segment",
    grouping: str = "none",
    replace_nans_with_zeros: bool = False,
) -> CorrelationResult:
    """The correlation of ``metric`` with ``human`` at ``granularity``, the number of points and groups it used.

    ``segment``: :func:`segment_correlation` of two ``(n_systems, n_items)`` matrices with ``grouping``;
    ``system``: :func:`system_correlation` of two per-system vectors (``grouping`` is ignored: one point per
    system). NaN entries are absent points in both cases.
    """
    if check_choice("granularity", granularity, GRANULARITIES) == "segment":
        return segment_correlation(metric, human, statistic, grouping, replace_nans_with_zeros)
    return system_correlation(metric, human, statistic)


def segment_correlation(
    metric: np.ndarray,
    human: np.ndarray,
    statistic: str,
    grouping: str = "none",
    replace_nans_with_zeros: bool = False,
) -> CorrelationResult:
    """Segment-level correlation, the number of (system, item) pairs it used and how many groups were undefined.

    * ``none``: one correlation over all (system, item) pairs where both matrices are finite.
    * ``item``: per item (column), the correlation across systems; the mean over the items with at least one pair.
    * ``system``: per system (row), the correlation across items; the mean over the systems with at least one pair.

    A group's correlation is undefined when it has fewer than 2 pairs or a constant side (e.g. every system got the
    same metric score for an item, or the humans tied them all). By default undefined groups are dropped from the
    mean (NaN if none is defined); with ``replace_nans_with_zeros`` they count as 0 (the mean over all
    ``n_groups``). ``n`` is always the number of (system, item) pairs with both scores present; ``n_groups`` and
    ``n_undefined`` say how many groups held a pair and how many of those were undefined
    (:class:`CorrelationResult`). The groupings are mt-metrics-eval's ``AverageCorrelation(corr_fcn, average_by=
    "none" | "item" | "sys", replace_nans_with_zeros=…)`` (docs/design.md §5).

    ``pdp`` is not an average: the within-group differences of every group are pooled into one Pearson r
    (:func:`korean_eval.metaeval.stats.pdp.pdp`, mt-metrics-eval ``Pearson(average_by, pdp=True)``); ``n_undefined``
    counts the groups holding a single (system, item) point, which contribute no difference; an undefined PDP is 0 with
    ``replace_nans_with_zeros`` (as mt-metrics-eval returns it).
    """
    check_choice("grouping", grouping, GROUPINGS)
    metric = np.asarray(metric, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    if statistic == "pdp" and grouping != "none":
        found = pdp(metric, human, grouping)
        value = 0.0 if replace_nans_with_zeros and not np.isfinite(found.value) else found.value
        return CorrelationResult(value, found.n, found.n_groups, found.n_single)
    ok = np.isfinite(metric) & np.isfinite(human)
    n = int(ok.sum())
    if grouping == "none":
        return _ungrouped(correlate(metric[ok], human[ok], statistic), n)
    m, h, k = (metric.T, human.T, ok.T) if grouping == "item" else (metric, human, ok)
    per_group = np.array(grouped_correlations(m, h, k, statistic))[k.any(axis=1)]
    defined = per_group[np.isfinite(per_group)]
    n_groups, n_undefined = len(per_group), len(per_group) - len(defined)
    if replace_nans_with_zeros and n_groups:
        value = float(np.sum(defined) / n_groups)
    else:
        value = float(np.mean(defined)) if len(defined) else float("nan")
    return CorrelationResult(value, n, n_groups, n_undefined)


# Spearman and Kendall depend on the data only through the two rank vectors (scipy ranks first), so for small
# groups the value of every distinct (rank x, rank y) pattern is computed once by scipy and reused: thousands of
# items across a handful of systems share a few hundred patterns. Bounded; cleared when full.
_RANK_MEMO: dict[tuple[str, int, int, int], float] = {}
_RANK_MEMO_MAX = 200_000
_RANK_MEMO_MAX_N = 12  # longer groups rarely repeat a pattern: computed row-wise (korean_eval.metaeval.stats.rank_rows)


def grouped_correlations(m: np.ndarray, h: np.ndarray, k: np.ndarray, statistic: str) -> list[float]:
    """``[correlate(m[g][k[g]], h[g][k[g]], statistic) for g in range(len(m))]``, computed faster, identical values.

    Rows are grouped by their number of values ``k[g].sum()``; each group's values, every row's ``m[g][k[g]]`` in
    column order, form a dense block. Pearson: one vectorised ``scipy.stats.pearsonr(..., axis=1)`` per block
    (scipy's own row-wise computation, equal to the per-row call). Spearman and Kendall (≤ 12 values per row): scipy
    is called once per distinct pair of rank vectors (average ranks, as ``scipy.stats.rankdata``) on a row having
    that pattern, and the value is shared by every row with the same pattern (also across calls) — both statistics
    are functions of the rank vectors only: scipy ranks the values first (Spearman: Pearson of ``rankdata``; Kendall:
    counts of concordant, discordant and tied pairs). Longer rows: all rows of a block at once, each value scipy's
    (:func:`~korean_eval.metaeval.stats.rank_rows.spearman_rows`, :func:`~korean_eval.metaeval.stats.rank_rows.kendall_rows`).
    Rows with fewer than 2 values or a constant side are NaN, as in :func:`correlate`.
    """
    from scipy import stats as sps  # imported when first used: it takes half a second
    check_choice("correlation statistic", statistic, VECTOR_STATISTICS)
    m = np.asarray(m, dtype=np.float64)
    h = np.asarray(h, dtype=np.float64)
    k = np.asarray(k, dtype=bool)
    n_groups = m.shape[0]
    out = np.full(n_groups, np.nan)
    if n_groups == 0 or m.ndim != 2 or m.shape[1] < 2:
        return [float(v) for v in out]
    sizes = k.sum(axis=1)
    for size in np.unique(sizes[sizes >= 2]).tolist():
        rows = np.flatnonzero(sizes == size)
        x = m[rows][k[rows]].reshape(len(rows), size)  # each row's present values, in column order
        y = h[rows][k[rows]].reshape(len(rows), size)
        live = ~((x == x[:, :1]).all(axis=1) | (y == y[:, :1]).all(axis=1))
        rows, x, y = rows[live], x[live], y[live]
        if not len(rows):
            continue
        if statistic == "pearson":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[rows] = sps.pearsonr(x, y, axis=1).statistic
        elif size <= _RANK_MEMO_MAX_N:
            out[rows] = _by_rank_pattern(x, y, statistic)
        else:
            out[rows] = spearman_rows(x, y) if statistic == "spearman" else kendall_rows(x, y)
    return [float(v) for v in out]


def _rank_codes(x: np.ndarray) -> np.ndarray:
    """One integer per row encoding its rank vector: 2·(average rank) = 2·#smaller + #equal + 1 per value, 5 bits each.

    Equal codes ⇔ equal ``scipy.stats.rankdata`` rows (``n`` ≤ 12 values: each code ≤ 2n = 24, 60 bits in all).
    """
    smaller = (x[:, None, :] < x[:, :, None]).sum(axis=2)
    equal = (x[:, None, :] == x[:, :, None]).sum(axis=2)
    twice_rank = (2 * smaller + equal + 1).astype(np.int64)
    return (twice_rank << (5 * np.arange(x.shape[1], dtype=np.int64))).sum(axis=1)


def _by_rank_pattern(x: np.ndarray, y: np.ndarray, statistic: str) -> np.ndarray:
    """Spearman/Kendall of each row pair, one scipy call per distinct (rank x, rank y) pattern."""
    n = x.shape[1]
    codes = zip(_rank_codes(x).tolist(), _rank_codes(y).tolist(), strict=True)
    values = np.empty(len(x))
    for row, (cx, cy) in enumerate(codes):
        memo_key = (statistic, n, cx, cy)
        value = _RANK_MEMO.get(memo_key)
        if value is None:
            value = correlate(x[row], y[row], statistic)
            if len(_RANK_MEMO) >= _RANK_MEMO_MAX:
                _RANK_MEMO.clear()
            _RANK_MEMO[memo_key] = value
        values[row] = value
    return values


def system_correlation(system_metric: np.ndarray, system_human: np.ndarray, statistic: str) -> CorrelationResult:
    """System-level correlation of per-system metric scores with per-system mean human scores (NaN entries skipped),
    as a :class:`CorrelationResult` (one group).

    Undefined (NaN) with fewer than :data:`MIN_SYSTEMS` systems: two points always correlate ±1.
    """
    check_choice("correlation statistic", statistic, STATISTICS)
    x = np.asarray(system_metric, dtype=np.float64)
    y = np.asarray(system_human, dtype=np.float64)
    ok = np.isfinite(x) & np.isfinite(y)
    n = int(ok.sum())
    if n < MIN_SYSTEMS:
        return _ungrouped(float("nan"), n)
    return _ungrouped(correlate(x[ok], y[ok], statistic), n)


def system_means(values: np.ndarray) -> np.ndarray:
    """Per system (row of ``(n_systems, n_items)``), the mean of its present (finite) entries; NaN for a system
    without any. The system-level human score (mean human score over the system's own scored items), and the
    system score of a bring-your-own metric (mean of its segment scores)."""
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        counts = np.isfinite(values).sum(axis=1)
        sums = np.nansum(values, axis=1)
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def common_points(
    metric_a: np.ndarray, metric_b: np.ndarray, human: np.ndarray, granularity: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The points two configurations and the humans share: each input with NaN wherever any of the three is
    missing, and that mask (``(a, b, h, ok)``). Inputs are ``(n_systems, n_items)`` matrices at the segment level,
    per-system vectors at the system level (else ValueError)."""
    want = 2 if check_choice("granularity", granularity, GRANULARITIES) == "segment" else 1
    a = np.asarray(metric_a, dtype=np.float64)
    b = np.asarray(metric_b, dtype=np.float64)
    h = np.asarray(human, dtype=np.float64)
    if not (a.shape == b.shape == h.shape) or a.ndim != want:
        raise ValueError(
            f"{granularity} level needs three equal {want}-d arrays, got {a.shape}, {b.shape}, {h.shape}"
        )
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(h)
    return np.where(ok, a, np.nan), np.where(ok, b, np.nan), np.where(ok, h, np.nan), ok
