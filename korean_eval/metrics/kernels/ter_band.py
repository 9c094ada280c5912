"""The beam edit distance of the fast TER: forward and backward costs, back-pointers, the back-trace and the
distance of a candidate shift, as numba kernels on token-id arrays (what they reproduce of sacrebleu 2.6.0's
``lib_ter``: :mod:`korean_eval.metrics.fast_ter`; why it is exact: docs/design.md §3, "The fast TER").

Memory is linear in the band, never ``(n + 1) × (m + 1)`` (``docs/design.md §3``). Row ``i`` of the beam matrix
only has the columns ``[lo[i], hi[i])`` (sacrebleu's ``BeamEditDistance``: ``2 · beam`` columns around the
pseudo-diagonal, row 0 and the right end of row ``n`` unbounded), and only those cells are kept, in flat arrays
with row offsets ``off[i]``:

* the back-pointers of every band cell (``uint8``), for sacrebleu's back-trace;
* the forward costs ``F`` and backward costs ``B`` (int64) of every ``stride``-th row only (checkpoints, all rows
  while the band has at most :data:`CHECKPOINT_CELLS` cells). A candidate shift needs ``F`` at the row where it
  starts to differ and ``B`` at the row where it stops; they are recomputed from the nearest checkpoint with the
  same recurrences, so every value is the one a full matrix would hold. This costs at most ``2 · stride`` band
  rows per candidate, and sacrebleu scores at most 1000 candidates per pair;
* working rows of ``m + 1`` cells (every cell outside the band reads as sacrebleu's infinity), whose written
  cells are reset after use, so a row costs its band width, not ``m``.

Hence ``O(n · beam + m)`` memory and time per shift round, where ``beam`` is 25 or ``ceil(m / (2n) + 25)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Beam half-width of sacrebleu.metrics.lib_ter's BeamEditDistance.
_BEAM_WIDTH = 25
INF = 10**16  # sacrebleu's _INT_INFINITY; int64 arithmetic on it cannot overflow here.

# Edit operations of the (un-flipped) trace, i.e. rewriting the hypothesis into the reference.
_OP_NOP = 0
_OP_SUB = 1
_OP_INS = 2  # consumes a reference token (j - 1)
_OP_DEL = 3  # consumes a hypothesis token (i - 1)
_OP_UNDEF = 4

# Band cells of F (and of B) kept for every row; a larger band keeps every stride-th row (see the module docstring).
CHECKPOINT_CELLS = 1 << 21


@njit(cache=True, nogil=True)
def beam_bounds(n: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Allowed columns ``[lo[i], hi[i])`` of every row ``i`` of the beam edit-distance matrix (``n, m >= 1``,
    ``BeamEditDistance._edit_distance``) and the row offsets ``off`` of the flat band (``off[n + 1]`` cells)."""
    lo = np.empty(n + 1, np.int64)
    hi = np.empty(n + 1, np.int64)
    lo[0] = 0
    hi[0] = m + 1
    ratio = m / n
    if _BEAM_WIDTH < ratio / 2:
        beam = int(np.ceil(ratio / 2 + _BEAM_WIDTH))
    else:
        beam = _BEAM_WIDTH
    for i in range(1, n + 1):
        diag = int(np.floor(i * ratio))
        lo[i] = max(0, diag - beam)
        hi[i] = min(m + 1, diag + beam)
        if i == n:
            hi[i] = m + 1
    off = np.empty(n + 2, np.int64)
    off[0] = 0
    for i in range(n + 1):
        off[i + 1] = off[i] + hi[i] - lo[i]
    return lo, hi, off


@njit(cache=True, nogil=True)
def checkpoints(lo: np.ndarray, hi: np.ndarray, off: np.ndarray, max_cells: int) -> tuple[int, np.ndarray]:
    """The checkpoint stride (every row while rows ``1..n`` have at most ``max_cells`` band cells) and the offsets
    of the checkpoint rows ``stride, 2·stride, … < n`` in their flat array (``ck_off[k]`` is where row
    ``(k + 1) · stride`` starts; rows 0 and ``n`` are never stored)."""
    n = lo.shape[0] - 1
    cells = off[n + 1] - off[1]
    stride = max(1, (cells + max_cells - 1) // max_cells)
    n_ck = (n - 1) // stride
    ck_off = np.empty(n_ck + 1, np.int64)
    ck_off[0] = 0
    for k in range(n_ck):
        i = (k + 1) * stride
        ck_off[k + 1] = ck_off[k] + hi[i] - lo[i]
    return stride, ck_off


@njit(cache=True, nogil=True)
def _forward_row(hw: int, r: np.ndarray, a: int, b: int, prev: np.ndarray, out: np.ndarray,
                 ops: np.ndarray, base: int) -> None:
    """Row cells ``out[a:b]`` from the previous row ``prev`` (infinite outside its band), with sacrebleu's
    preference (substitution/match, then deletion, then insertion; strict ``>``) into ``ops[base + j]`` when
    ``base >= 0``."""
    for j in range(a, b):
        if j == 0:
            out[0] = prev[0] + 1
            if base >= 0:
                ops[base] = _OP_DEL
            continue
        c = INF
        o = _OP_UNDEF
        if hw == r[j - 1]:
            s = prev[j - 1]
            so = _OP_NOP
        else:
            s = prev[j - 1] + 1
            so = _OP_SUB
        if c > s:
            c = s
            o = so
        d = prev[j] + 1
        if c > d:
            c = d
            o = _OP_DEL
        ins = out[j - 1] + 1
        if c > ins:
            c = ins
            o = _OP_INS
        out[j] = c
        if base >= 0:
            ops[base + j] = o


@njit(cache=True, nogil=True)
def _forward_costs(hw: int, r: np.ndarray, a: int, b: int, prev: np.ndarray, out: np.ndarray) -> None:
    """The costs of :func:`_forward_row` without back-pointers (a candidate shift needs its distance only)."""
    j = a
    if j == 0:
        out[0] = prev[0] + 1
        j = 1
    left = out[j - 1]
    for k in range(j, b):
        c = prev[k - 1] + (0 if hw == r[k - 1] else 1)
        d = prev[k] + 1
        if d < c:
            c = d
        left += 1
        if left < c:
            c = left
        out[k] = c
        left = c


@njit(cache=True, nogil=True)
def _backward_row(hw: int, r: np.ndarray, a: int, b: int, nxt: np.ndarray, out: np.ndarray) -> None:
    """``out[j]`` for ``j`` in ``[a, b)``: the cheapest path from cell ``(i, j)`` to ``(n, m)`` through the band,
    given row ``i + 1`` in ``nxt`` (infinite outside its band); ``hw`` is hypothesis token ``i``."""
    m = r.shape[0]
    for j in range(b - 1, a - 1, -1):
        v = nxt[j] + 1
        if j < m:
            dg = nxt[j + 1] + (0 if hw == r[j] else 1)
            if dg < v:
                v = dg
            rt = out[j + 1] + 1
            if rt < v:
                v = rt
        if v > INF:
            v = INF
        out[j] = v


@njit(cache=True, nogil=True)
def forward_round(h: np.ndarray, r: np.ndarray, lo: np.ndarray, hi: np.ndarray, off: np.ndarray,
                   ops: np.ndarray, stride: int, ck_off: np.ndarray, f_ck: np.ndarray,
                   prev: np.ndarray, cur: np.ndarray, start: int) -> int:
    """Fill the band's back-pointers and the forward checkpoint rows of hypothesis ``h`` exactly as
    ``BeamEditDistance._edit_distance``, from row ``start`` on (row 0, or a checkpoint row whose values and
    back-pointers, like those of every row above it, are those of ``h`` already); return the distance ``F[n, m]``.
    ``prev`` and ``cur`` are all infinite on entry and on return."""
    n = h.shape[0]
    m = r.shape[0]
    if start == 0:
        for j in range(m + 1):
            prev[j] = j
            ops[j] = _OP_INS
    else:
        _load_forward(start, lo[start], hi[start], lo, stride, ck_off, f_ck, prev)
    p_lo, p_hi = lo[start], hi[start]
    c_lo, c_hi = 0, 0
    for i in range(start + 1, n + 1):
        cur[c_lo:c_hi] = INF
        _forward_row(h[i - 1], r, lo[i], hi[i], prev, cur, ops, off[i] - lo[i])
        c_lo, c_hi = lo[i], hi[i]
        if i % stride == 0 and i < n:
            k = ck_off[i // stride - 1]
            f_ck[k:k + c_hi - c_lo] = cur[c_lo:c_hi]
        prev, cur = cur, prev
        p_lo, c_lo = c_lo, p_lo
        p_hi, c_hi = c_hi, p_hi
    score = prev[m]
    prev[p_lo:p_hi] = INF
    cur[c_lo:c_hi] = INF
    return score


@njit(cache=True, nogil=True)
def backward_round(h: np.ndarray, r: np.ndarray, lo: np.ndarray, hi: np.ndarray, stride: int,
                    ck_off: np.ndarray, b_ck: np.ndarray, nxt: np.ndarray, cur: np.ndarray, start: int) -> None:
    """The backward checkpoint rows of hypothesis ``h`` below row ``start`` (row ``n``, or a checkpoint row whose
    values, like those of every row below it, are those of ``h`` already), down to row ``stride``. ``nxt`` and
    ``cur`` are all infinite on entry and on return."""
    n = h.shape[0]
    m = r.shape[0]
    if start - 1 < stride:
        return
    if start == n:
        for j in range(lo[n], m + 1):
            nxt[j] = m - j
    else:
        _load_backward(start, lo[start], hi[start], lo, stride, ck_off, b_ck, nxt)
    x_lo, x_hi = lo[start], hi[start]
    c_lo, c_hi = 0, 0
    for i in range(start - 1, stride - 1, -1):
        cur[c_lo:c_hi] = INF
        _backward_row(h[i], r, lo[i], hi[i], nxt, cur)
        c_lo, c_hi = lo[i], hi[i]
        if i % stride == 0:
            k = ck_off[i // stride - 1]
            b_ck[k:k + c_hi - c_lo] = cur[c_lo:c_hi]
        nxt, cur = cur, nxt
        x_lo, c_lo = c_lo, x_lo
        x_hi, c_hi = c_hi, x_hi
    nxt[x_lo:x_hi] = INF
    cur[c_lo:c_hi] = INF


@njit(cache=True, nogil=True)
def trace_alignment(ops: np.ndarray, off: np.ndarray, lo: np.ndarray, hi: np.ndarray, m: int,
                     trace: np.ndarray, align: np.ndarray, hyp_cum: np.ndarray, ref_cum: np.ndarray) -> None:
    """sacrebleu's back-trace from ``(n, m)``, then ``trace_to_alignment`` of the flipped trace: ``align[j]`` (the
    hypothesis position of reference position ``j``) and the cumulative error counts ``hyp_cum``, ``ref_cum``."""
    n = lo.shape[0] - 1
    t_len = 0
    i = n
    j = m
    while i > 0 or j > 0:
        o = ops[off[i] + j - lo[i]] if lo[i] <= j < hi[i] else _OP_UNDEF
        trace[t_len] = o
        t_len += 1
        if o == _OP_NOP or o == _OP_SUB:
            i -= 1
            j -= 1
        elif o == _OP_INS:
            j -= 1
        elif o == _OP_DEL:
            i -= 1
        else:
            raise RuntimeError("undefined operation in TER back-trace")
    pos_h = -1
    pos_r = -1
    hyp_cum[0] = 0
    ref_cum[0] = 0
    for k in range(t_len - 1, -1, -1):
        o = trace[k]
        if o == _OP_NOP or o == _OP_SUB:
            err = 1 if o == _OP_SUB else 0
            pos_h += 1
            pos_r += 1
            align[pos_r] = pos_h
            hyp_cum[pos_h + 1] = hyp_cum[pos_h] + err
            ref_cum[pos_r + 1] = ref_cum[pos_r] + err
        elif o == _OP_DEL:  # flipped: insertion, consumes a hypothesis token
            pos_h += 1
            hyp_cum[pos_h + 1] = hyp_cum[pos_h] + 1
        else:  # _OP_INS, flipped: deletion, consumes a reference token
            pos_r += 1
            align[pos_r] = pos_h
            ref_cum[pos_r + 1] = ref_cum[pos_r] + 1


@njit(cache=True, nogil=True)
def _load_forward(c: int, a: int, b: int, lo: np.ndarray, stride: int, ck_off: np.ndarray, f_ck: np.ndarray,
                  out: np.ndarray) -> None:
    """Columns ``[a, b)`` of forward row ``c`` (row 0 or a checkpoint) into ``out``."""
    if c == 0:
        for j in range(a, b):
            out[j] = j
    else:
        k = ck_off[c // stride - 1] - lo[c]
        out[a:b] = f_ck[k + a:k + b]


@njit(cache=True, nogil=True)
def _load_backward(c: int, a: int, b: int, lo: np.ndarray, stride: int, ck_off: np.ndarray, b_ck: np.ndarray,
                   out: np.ndarray) -> None:
    """Columns ``[a, b)`` of backward row ``c`` (row ``n`` or a checkpoint) into ``out``."""
    n = lo.shape[0] - 1
    if c == n:
        m = out.shape[0] - 1
        for j in range(a, b):
            out[j] = m - j
    else:
        k = ck_off[c // stride - 1] - lo[c]
        out[a:b] = b_ck[k + a:k + b]


@njit(cache=True, nogil=True)
def candidate_distance(cur: np.ndarray, cand: np.ndarray, w0: int, w1: int, r: np.ndarray, lo: np.ndarray,
                        hi: np.ndarray, stride: int, ck_off: np.ndarray, f_ck: np.ndarray, b_ck: np.ndarray,
                        pre_score: int, x: np.ndarray, y: np.ndarray, z: np.ndarray) -> int:
    """Beam edit distance of the candidate ``cand`` (equal to ``cur`` outside ``[w0, w1)``), ``pre_score`` being
    that of ``cur``: with ``p, q`` the first and last-plus-one positions where they differ, it is
    ``min_j F'[q, j] + B[q, j]`` -- ``F'`` the candidate's forward rows from the checkpoint at or below ``p``,
    ``B`` the backward rows of ``cur`` from the checkpoint (or row ``n``) at or above ``q``. ``x``, ``y``, ``z``
    are all infinite on entry and on return."""
    n = cur.shape[0]
    p = w0
    while p < w1 and cand[p] == cur[p]:
        p += 1
    if p == w1:
        return pre_score
    q = w1
    while cand[q - 1] == cur[q - 1]:
        q -= 1
    c = (p // stride) * stride
    x_lo, x_hi = max(lo[c], lo[c + 1] - 1), min(hi[c], hi[c + 1])
    _load_forward(c, x_lo, x_hi, lo, stride, ck_off, f_ck, x)
    y_lo, y_hi = 0, 0
    for i in range(c + 1, q + 1):
        y[y_lo:y_hi] = INF
        _forward_costs(cand[i - 1], r, lo[i], hi[i], x, y)
        y_lo, y_hi = lo[i], hi[i]
        x, y = y, x
        x_lo, y_lo = y_lo, x_lo
        x_hi, y_hi = y_hi, x_hi
    y[y_lo:y_hi] = INF  # x holds F'[q]; y is free again
    c = n if q == n else min(n, ((q + stride - 1) // stride) * stride)
    if c == q:
        y_lo, y_hi = lo[q], hi[q]
    else:
        y_lo, y_hi = max(lo[c], lo[c - 1]), min(hi[c], hi[c - 1] + 1)
    _load_backward(c, y_lo, y_hi, lo, stride, ck_off, b_ck, y)
    z_lo, z_hi = 0, 0
    for i in range(c - 1, q - 1, -1):
        z[z_lo:z_hi] = INF
        _backward_row(cur[i], r, lo[i], hi[i], y, z)
        z_lo, z_hi = lo[i], hi[i]
        y, z = z, y
        y_lo, z_lo = z_lo, y_lo
        y_hi, z_hi = z_hi, y_hi
    best = INF
    for j in range(lo[q], hi[q]):
        v = x[j] + y[j]
        if v < best:
            best = v
    x[x_lo:x_hi] = INF
    y[y_lo:y_hi] = INF
    z[z_lo:z_hi] = INF
    return best
