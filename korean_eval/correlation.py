"""Correlation primitives (scipy-backed) over the score matrices the meta-evaluation uses.

Layout: a metric matrix ``M`` and a human matrix ``H``, both shaped ``(n_systems, n_items)``, float64, with ``NaN``
wherever a (system, item) pair has no human score (or no metric score). Row ``s`` is one system, column ``i`` one
segment (item).

Statistics: ``pearson`` (scipy.stats.pearsonr), ``spearman`` (scipy.stats.spearmanr), ``kendall`` (Kendall τ-b,
scipy.stats.kendalltau with ``variant="b"``). A correlation over fewer than 2 points, or over constant values, is
undefined and returned as ``NaN`` (never raised).
"""

from __future__ import annotations

import warnings
from typing import Literal

import numpy as np
from scipy import stats as sps

Statistic = Literal["pearson", "spearman", "kendall"]
Grouping = Literal["none", "item", "system"]
STATISTICS: tuple[str, ...] = ("pearson", "spearman", "kendall")
GROUPINGS: tuple[str, ...] = ("none", "item", "system")


def correlate(x: np.ndarray, y: np.ndarray, statistic: str) -> float:
    """Correlation of two equal-length 1-d arrays (no NaN); NaN if undefined (n < 2 or a constant input)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"correlate needs two 1-d arrays of equal length, got {x.shape} and {y.shape}")
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if statistic == "pearson":
            return float(sps.pearsonr(x, y).statistic)
        if statistic == "spearman":
            return float(sps.spearmanr(x, y).statistic)
        if statistic == "kendall":
            return float(sps.kendalltau(x, y, variant="b").statistic)
    raise ValueError(f"unknown correlation statistic {statistic!r}; choose one of {', '.join(STATISTICS)}")


def segment_correlation(metric: np.ndarray, human: np.ndarray, statistic: str, grouping: str = "none") -> tuple[float, int]:
    """Segment-level correlation and the number of (system, item) pairs it used.

    * ``none``: one correlation over all (system, item) pairs where both matrices are finite.
    * ``item``: per item (column), the correlation across systems; the mean over items where it is defined.
    * ``system``: per system (row), the correlation across items; the mean over systems where it is defined.

    ``n`` is always the number of (system, item) pairs with both scores present.
    """
    metric = np.asarray(metric, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    ok = np.isfinite(metric) & np.isfinite(human)
    n = int(ok.sum())
    if grouping == "none":
        return correlate(metric[ok], human[ok], statistic), n
    if grouping not in ("item", "system"):
        raise ValueError(f"unknown grouping {grouping!r}; choose one of {', '.join(GROUPINGS)}")
    m, h, k = (metric.T, human.T, ok.T) if grouping == "item" else (metric, human, ok)
    values = [v for v in grouped_correlations(m, h, k, statistic) if np.isfinite(v)]
    return (float(np.mean(values)) if values else float("nan")), n


# Spearman and Kendall depend on the data only through the two rank vectors (scipy ranks first), so for small
# groups the value of every distinct (rank x, rank y) pattern is computed once by scipy and reused: thousands of
# items across a handful of systems share a few hundred patterns. Bounded; cleared when full.
_RANK_MEMO: dict[tuple[str, int, int, int], float] = {}
_RANK_MEMO_MAX = 200_000
_RANK_MEMO_MAX_N = 12  # longer groups rarely repeat a pattern: scipy is called per group


def grouped_correlations(m: np.ndarray, h: np.ndarray, k: np.ndarray, statistic: str) -> list[float]:
    """``[correlate(m[g][k[g]], h[g][k[g]], statistic) for g in range(len(m))]``, computed faster, identical values.

    Rows are grouped by their mask ``k[g]``; within a group of equal masks the values form dense blocks. Pearson:
    one vectorised ``scipy.stats.pearsonr(..., axis=1)`` per block (scipy's own row-wise computation, equal to the
    per-row call). Spearman and Kendall (≤ 12 values per row): scipy is called once per distinct pair of rank
    vectors (average ranks, as ``scipy.stats.rankdata``) on a row having that pattern, and the value is shared by
    every row with the same pattern (also across calls) — both statistics are functions of the rank vectors only:
    scipy ranks the values first (Spearman: Pearson of ``rankdata``; Kendall: counts of concordant, discordant and
    tied pairs). Longer rows: one scipy call per row. Rows with fewer than 2 values or a constant side are NaN, as
    in :func:`correlate`.
    """
    if statistic not in STATISTICS:
        raise ValueError(f"unknown correlation statistic {statistic!r}; choose one of {', '.join(STATISTICS)}")
    m = np.asarray(m, dtype=np.float64)
    h = np.asarray(h, dtype=np.float64)
    k = np.asarray(k, dtype=bool)
    n_groups = m.shape[0]
    out = np.full(n_groups, np.nan)
    if n_groups == 0 or m.ndim != 2 or m.shape[1] < 2:
        return [float(v) for v in out]
    if k.shape[1] < 63:  # one integer per mask row: a 1-d unique is much faster than unique(axis=0)
        codes = (k.astype(np.int64) << np.arange(k.shape[1], dtype=np.int64)).sum(axis=1)
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    else:  # few long rows (e.g. per system across items)
        seen: dict[bytes, int] = {}
        inverse = np.array([seen.setdefault(row.tobytes(), len(seen)) for row in k], dtype=np.int64)
        first = np.unique(inverse, return_index=True)[1]
    patterns = k[first]
    inverse = np.asarray(inverse).reshape(-1)
    for p, pattern in enumerate(patterns):
        cols = np.flatnonzero(pattern)
        if len(cols) < 2:
            continue
        rows = np.flatnonzero(inverse == p)
        x = np.ascontiguousarray(m[np.ix_(rows, cols)])
        y = np.ascontiguousarray(h[np.ix_(rows, cols)])
        live = ~((x == x[:, :1]).all(axis=1) | (y == y[:, :1]).all(axis=1))
        rows, x, y = rows[live], x[live], y[live]
        if not len(rows):
            continue
        if statistic == "pearson":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[rows] = sps.pearsonr(x, y, axis=1).statistic
        elif len(cols) <= _RANK_MEMO_MAX_N:
            out[rows] = _by_rank_pattern(x, y, statistic)
        else:
            out[rows] = [correlate(a, b, statistic) for a, b in zip(x, y, strict=True)]
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


MIN_SYSTEMS = 3


def system_correlation(system_metric: np.ndarray, system_human: np.ndarray, statistic: str) -> tuple[float, int]:
    """System-level correlation of per-system metric scores with per-system mean human scores (NaN entries skipped).

    Undefined (NaN) with fewer than :data:`MIN_SYSTEMS` systems: two points always correlate ±1.
    """
    x = np.asarray(system_metric, dtype=np.float64)
    y = np.asarray(system_human, dtype=np.float64)
    ok = np.isfinite(x) & np.isfinite(y)
    n = int(ok.sum())
    if n < MIN_SYSTEMS:
        return float("nan"), n
    return correlate(x[ok], y[ok], statistic), n
