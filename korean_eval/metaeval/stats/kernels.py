"""Compiled kernels of the resampling statistics: correlations of *weighted point sets* (docs/design.md §5).

A bootstrap resample or a permutation is a weighting of one point set: point ``p`` occurs ``w_p`` times (0 =
absent). The kernels compute the correlation of the expanded multiset directly from the weights, without
materialising it, for many weightings at once; :mod:`korean_eval.metaeval.stats.weighted` is their validated entry point
and states the definitions they meet (equal, up to rounding, to scipy on the expanded multiset). Long by nature:
each is one tight loop numba compiles (``cache=True``, ``nogil=True``: threads run them in parallel).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def pearson_weighted(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
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
def midranks_weighted(v: np.ndarray, order: np.ndarray, w: np.ndarray, ranks: np.ndarray) -> int:
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
def kendall_weighted(
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
def correlation_rows(
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
            out[b] = pearson_weighted(x[ix], y[iy], w)
        elif code == 1:
            gx = midranks_weighted(x[ix], ox[ix], w, rx)
            gy = midranks_weighted(y[iy], oy[iy], w, ry)
            out[b] = np.nan if (gx < 2 or gy < 2) else pearson_weighted(rx, ry, w)
        else:
            out[b] = kendall_weighted(x[ix], ox[ix], y[iy], oy[iy], w, yrank, tree, acc)
    return out


BLOCK = 32  # weight rows processed together by fixed_points_rows (inner loops run over them, vectorised)


@njit(cache=True, nogil=True)
def midranks_block(
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
def fixed_points_rows(
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
    in blocks of :data:`BLOCK` with the block as the innermost loop (contiguous, vectorised): the group structure
    and the Fenwick-tree paths depend only on the points, not on the weights.

    * Spearman: midranks per group ``below + (t + 1)/2`` (:func:`midranks_block`); their weighted mean is
      ``(N + 1)/2`` and their weighted sum of squared deviations ``(N³ − N − Σ(t³ − t))/12``, so one more pass
      gives the covariance. NaN if N < 2 or a side has fewer than 2 distinct present values.
    * Kendall τ-b: as :func:`kendall_weighted` (points in x order, a group of equal x queried before it is
      added; discordant weight = seen − seen with smaller y − seen with equal y).
    """
    n_items, n_rows = cnt_t.shape
    n = ox.shape[0]
    m = gy.shape[0] - 1
    width = BLOCK
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
            midranks_block(ox, gx, cols, cnt_t, b0, nb, rx, sx)
            midranks_block(oy, gy, cols, cnt_t, b0, nb, ry, sy)
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


@njit(cache=True, nogil=True)
def counts_matmul_t(cnt_t: np.ndarray, m: np.ndarray) -> np.ndarray:
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
