"""Correlations of weighted point sets: the vectorised core of every bootstrap and permutation test
(docs/design.md §5).

A bootstrap resample or a permutation is a *weighting* of one point set — point ``p`` occurs ``w_p`` times, its
item's count in the resample (0 = absent) — so all resamples of a correlation are rows of one call of
:func:`weighted_correlations`, computed by the compiled kernels of :mod:`korean_eval.metaeval.stats.kernels` without
materialising the multisets. The orderings the rank statistics need are computed once per call, not per resample.
Count matrices are non-negative integer matrices ``(n_rows, n_columns)`` held as :class:`Counts`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from korean_eval.metaeval.stats.kernels import correlation_rows, counts_matmul_t, fixed_points_rows
from korean_eval.model.vocabulary import STATISTICS, check_choice

# The kernels' statistic codes; PDP of one point set (one group) is its Pearson r (korean_eval.metaeval.stats.pdp).
_STAT_CODES = {"pearson": 0, "spearman": 1, "kendall": 2, "pdp": 0}


class Counts:
    """A non-negative integer count matrix ``(n_rows, n_columns)`` kept in both memory layouts, each made on demand:
    ``rows`` (row-major, for the per-row kernel) and ``t`` (its transpose ``(n_columns, n_rows)``, for the kernels
    whose innermost loop runs over the rows). Build it with :func:`as_counts` (which validates) or, for counts known
    to be valid, directly."""

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


def rows2d(a: np.ndarray | Sequence[float], name: str) -> np.ndarray:
    """``a`` as a contiguous float64 ``(n_rows, n)`` array (a 1-d ``a`` is one row); ValueError beyond 2-d."""
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise ValueError(f"{name} must be 1-d or 2-d, got shape {a.shape}")
    return np.ascontiguousarray(a)


def check_counts(counts: np.ndarray) -> np.ndarray:
    """``counts`` as a 2-d contiguous float64 array of non-negative integers (else ValueError)."""
    cnt = rows2d(counts, "counts")
    if np.any(cnt < 0) or np.any(cnt != np.round(cnt)):
        raise ValueError("counts must be non-negative integers")
    return cnt


def as_counts(counts: np.ndarray | Counts) -> Counts:
    """``counts`` as :class:`Counts`; an array is validated by :func:`check_counts` first."""
    return counts if isinstance(counts, Counts) else Counts(rows=check_counts(counts))


def counts_matmul(counts: np.ndarray | Counts, m: np.ndarray) -> np.ndarray:
    """``counts @ m`` for a count matrix ``(n_rows, n_items)`` and a small ``m`` ``(n_items, k)``, as a compiled
    loop: a multi-threaded BLAS can spend far longer waking its threads than computing these small products."""
    cnt_t = as_counts(counts).t
    return np.ascontiguousarray(counts_matmul_t(cnt_t, np.ascontiguousarray(m, dtype=np.float64)).T)


def weighted_correlations(
    x: np.ndarray,
    y: np.ndarray,
    statistic: str,
    counts: np.ndarray | Counts | None = None,
    columns: np.ndarray | None = None,
) -> np.ndarray:
    """Row-wise correlations of weighted point sets — the vectorised core of the bootstraps and permutation tests.

    ``x``, ``y``: ``(n_points,)`` or ``(n_rows, n_points)`` (NaN = absent point); ``counts``: ``(n_columns,)`` or
    ``(n_rows, n_columns)`` non-negative *integer* multiplicities (default: every point once); ``columns``:
    ``(n_points,)`` int, the column of ``counts`` that weights each point (default ``arange(n_points)``; e.g. the
    item of each (system, item) point, so that an item drawn twice counts all its systems twice). Each of ``x``,
    ``y``, ``counts`` has one row (shared) or ``n_rows`` rows.

    Row ``b`` is the correlation of the multiset in which point ``p`` occurs ``counts[b, columns[p]]`` times, i.e.
    ``korean_eval.metaeval.stats.correlation.correlate(np.repeat(x_b[ok], w[ok]), np.repeat(y_b[ok], w[ok]), statistic)``
    with ``w = counts[b, columns]`` and ``ok`` the points with finite x and y — equal up to floating-point rounding
    (Pearson ~1e-15 relative; Spearman ranks and Kendall pair counts are exact). NaN where that is undefined
    (fewer than 2 points, or a constant side). Cost per row: O(n) for Pearson and Spearman, O(n log n) for Kendall,
    plus one O(n log n) sort of every distinct row of ``x``/``y`` (shared rows are sorted once).
    """
    check_choice("correlation statistic", statistic, STATISTICS)
    xs, ys = rows2d(x, "x"), rows2d(y, "y")
    n = xs.shape[1]
    if ys.shape[1] != n:
        raise ValueError(f"x and y must have the same number of points, got {xs.shape[1]} and {ys.shape[1]}")
    cols = np.arange(n, dtype=np.int64) if columns is None else np.ascontiguousarray(columns, dtype=np.int64)
    weights = Counts(rows=np.ones((1, n))) if counts is None else as_counts(counts)
    n_rows, n_columns = weights.shape
    if cols.shape != (n,) or (n and (cols.min() < 0 or cols.max() >= n_columns)):
        raise ValueError(f"columns must be {n} indices into the {n_columns} columns of counts")
    rows = {xs.shape[0], ys.shape[0], n_rows} - {1}
    if len(rows) > 1:
        raise ValueError(f"x, y and counts must have 1 or the same number of rows, got {sorted(rows)}")
    if xs.shape[0] == 1 and ys.shape[0] == 1:
        return _one_point_set(statistic, xs[0], ys[0], weights, cols)
    code = _STAT_CODES[statistic]
    if code == 0:
        ox = oy = np.zeros((1, n), dtype=np.int64)
    else:
        ox = np.ascontiguousarray(np.argsort(xs, axis=1, kind="stable"), dtype=np.int64)
        oy = np.ascontiguousarray(np.argsort(ys, axis=1, kind="stable"), dtype=np.int64)
    return correlation_rows(code, xs, ys, ox, oy, weights.rows, cols)


def _one_point_set(statistic: str, x: np.ndarray, y: np.ndarray, counts: Counts, cols: np.ndarray) -> np.ndarray:
    """:func:`weighted_correlations` of one point set under every row of weights: absent points dropped once, the
    orderings computed once."""
    ok = np.isfinite(x) & np.isfinite(y)
    if not ok.all():
        x, y, cols = x[ok], y[ok], cols[ok]
    if _STAT_CODES[statistic] == 0:
        return pearson_fixed_points(x[None, :], y, counts, cols)[0]
    if x.size == 0:
        return np.full(counts.shape[0], np.nan)
    ox, gx, _ = _groups(x)
    oy, gy, yrank = _groups(y)
    return fixed_points_rows(_STAT_CODES[statistic], ox, gx, oy, gy, yrank, np.ascontiguousarray(cols), counts.t)


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


#: Moment sums (6 per point set and weight row) :func:`pearson_fixed_points` computes at once.
_MOMENT_SUMS_PER_CHUNK = 1 << 18


def pearson_fixed_points(xs: np.ndarray, y: np.ndarray, counts: Counts, cols: np.ndarray) -> np.ndarray:
    """Pearson r of finite point sets ``(xs[s], y)`` — ``xs`` ``(n_sets, n)``, all sharing ``y`` and ``cols`` — under
    every row of weights ``counts[:, cols]``: ``(n_sets, n_rows)``, row ``s`` computed as if alone, from weighted
    moments.

    The moments are linear in the weights, so all rows come from one product ``counts @ M`` with ``M`` the per-column
    sums of ``(1, x, y, xy, x², y²)`` of every set; x and y are first centred on their means (r is unchanged,
    cancellation in ``Σx² − (Σx)²/n`` is reduced). A row whose drawn x (or y) values are all equal is NaN, as
    ``correlate`` decides for a constant input (decided exactly by :func:`korean_eval.metaeval.stats.kernels.correlation_rows`,
    see below). Each set's numbers are those of a call with that set alone: its means are row reductions of a
    row-major ``xs`` (numpy reduces each row of a row-major array as it reduces a 1-d array; not so column-major
    rows), each moment column is one ``np.bincount`` bin summed over its points in point order, and the product's
    columns are independent.
    """
    xs = np.ascontiguousarray(xs)
    n_rows, n_cols = counts.shape
    n_sets = xs.shape[0]
    if xs.shape[1] == 0:
        return np.full((n_sets, n_rows), np.nan)
    step = max(1, _MOMENT_SUMS_PER_CHUNK // (6 * n_rows))  # sets per chunk: the sums of a chunk stay in cache
    if n_sets > step:
        return np.concatenate([pearson_fixed_points(xs[i:i + step], y, counts, cols) for i in range(0, n_sets, step)])
    xc, yc = xs - xs.mean(axis=1, keepdims=True), y - y.mean()
    feats = np.stack([np.ones_like(xc), xc, np.broadcast_to(yc, xc.shape), xc * yc, xc * xc,
                      np.broadcast_to(yc * yc, xc.shape)], axis=2)  # (n_sets, n, 6)
    width = n_sets * feats.shape[2]  # one moment column per (set, feature), summed over its points in point order
    bins = cols[:, None] * width + np.arange(width)[None, :]
    moments = np.bincount(bins.ravel(), weights=feats.transpose(1, 0, 2).ravel(), minlength=n_cols * width)
    sums = counts_matmul_t(counts.t, moments.reshape(n_cols, width)).reshape(n_sets, feats.shape[2], n_rows)
    n, sx, sy, sxy, sxx, syy = (sums[:, f] for f in range(feats.shape[2]))
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
    dummy = np.zeros((1, xs.shape[1]), dtype=np.int64)
    for s in np.flatnonzero(suspect.any(axis=1)):
        r[s, suspect[s]] = correlation_rows(
            0, xs[s][None, :].copy(), y[None, :].copy(), dummy, dummy, np.ascontiguousarray(counts.rows[suspect[s]]),
            cols,
        )
    return r
