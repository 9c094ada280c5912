"""Myers' (1999) bit-parallel unit-cost Levenshtein distance over integer sequences, numba-compiled.

The pattern (the reference) is split into blocks of 64 symbols; a symbol's match mask has the bits of the pattern
positions holding it. A column of the dynamic programme (the distances of a text prefix to every pattern prefix)
is encoded by its vertical deltas ``(pv, mv)`` (bit ``j``: ``D[j+1] - D[j]`` is +1 resp. -1); ``advance``
consumes one text symbol. ``combine_*`` and ``decode_*`` read such a column back, forwards or (for a reversed
pattern) backwards; CharacTER's shift search (:mod:`korean_eval.metrics.kernels.character`) builds on them.

Memory is bounded (``docs/design.md §3``):

* match masks in ``O(m)`` whatever the number of symbols: a dense table (:func:`match_masks`, ``n_symbols × m / 8``
  bytes, quadratic at word level on a long text whose vocabulary grows with it) is replaced by an EqTable
  (:func:`eq_table`), which keeps a dense mask only for the symbols occurring at least ``nblocks / 2`` times (at
  most ``2m / nblocks`` masks, ``≈ 16 m`` bytes) and builds the mask of a rarer symbol from its positions in a
  zeroed scratch row, clearing it after use (``2 · count < nblocks`` writes, less than the ``advance`` itself);
* the columns of every prefix and suffix of a text (CharacTER's shift search): checkpoint rows and a cache of
  decoded rows, each within a byte budget (see the comment above :func:`checkpoint_stride`).

All kernels are compiled with ``cache=True, nogil=True``; they take plain arrays (tuples of arrays would cost an
atomic reference-count operation per field access or array view in the hot loops).
"""

from __future__ import annotations

import numpy as np
from numba import njit

ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
ONE = np.uint64(1)
HIGH_BIT = np.uint64(1) << np.uint64(63)


@njit(cache=True, nogil=True)
def match_masks(pattern: np.ndarray, n_symbols: int) -> np.ndarray:
    """Match masks: bit ``j % 64`` of ``peq[c, j // 64]`` is set iff ``pattern[j] == c``."""
    m = pattern.shape[0]
    nblocks = max(1, (m + 63) // 64)
    peq = np.zeros((n_symbols, nblocks), np.uint64)
    for j in range(m):
        peq[pattern[j], j >> 6] |= ONE << np.uint64(j & 63)
    return peq


@njit(cache=True, nogil=True)
def advance(pv: np.ndarray, mv: np.ndarray, masks: np.ndarray, row: int, last_bit: np.uint64) -> int:
    """Process one text symbol whose match mask is ``masks[row]`` (Myers' ``advance_block`` over all blocks,
    global distance): update the vertical delta vectors in place and return the change of ``D[m]`` (the distance
    to the whole pattern)."""
    nblocks = pv.shape[0]
    hin = 1  # top boundary: D[0][i] - D[0][i-1] = +1
    for b in range(nblocks):
        eq = masks[row, b]
        p = pv[b]
        mm = mv[b]
        xv = eq | mm
        if hin < 0:
            eq |= ONE
        xh = (((eq & p) + p) ^ p) | eq
        ph = mm | ~(xh | p)
        mh = p & xh
        hb = HIGH_BIT if b < nblocks - 1 else last_bit
        hout = 0
        if (ph & hb) != 0:
            hout = 1
        elif (mh & hb) != 0:
            hout = -1
        ph = ph << ONE
        mh = mh << ONE
        if hin < 0:
            mh |= ONE
        elif hin > 0:
            ph |= ONE
        pv[b] = mh | ~(xv | ph)
        mv[b] = ph & xv
        hin = hout
    return hin


# An EqTable is the pair (masks, index) (plain arrays: numba passes them without reference counting):
#   masks: (rows + 1, nblocks) uint64, the dense masks of the frequent symbols, then a scratch row (all zero
#          between uses);
#   index: int64 [m, n_symbols, row_of[n_symbols], start[n_symbols + 1], pos[m]]: the dense row of a symbol (-1:
#          built on demand) and, by a counting sort, its positions pos[start[c]:start[c + 1]] in the pattern.


@njit(cache=True, nogil=True)
def eq_table(pattern: np.ndarray, n_symbols: int) -> tuple[np.ndarray, np.ndarray]:
    """The match masks ``(masks, index)`` of ``pattern`` (symbols in ``[0, n_symbols)``) in ``O(m)`` memory."""
    m = pattern.shape[0]
    nblocks = max(1, (m + 63) // 64)
    index = np.zeros(2 + n_symbols + n_symbols + 1 + m, np.int64)
    index[0] = m
    index[1] = n_symbols
    row_of = index[2:2 + n_symbols]
    start = index[2 + n_symbols:3 + 2 * n_symbols]
    pos = index[3 + 2 * n_symbols:]
    for j in range(m):
        start[pattern[j] + 1] += 1
    for c in range(n_symbols):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    for j in range(m):
        pos[fill[pattern[j]]] = j
        fill[pattern[j]] += 1
    rows = 0
    for c in range(n_symbols):
        count = start[c + 1] - start[c]
        if count > 0 and 2 * count >= nblocks:
            row_of[c] = rows
            rows += 1
        else:
            row_of[c] = -1
    masks = np.zeros((rows + 1, nblocks), np.uint64)
    for j in range(m):
        k = row_of[pattern[j]]
        if k >= 0:
            masks[k, j >> 6] |= ONE << np.uint64(j & 63)
    return masks, index


@njit(cache=True, nogil=True)
def symbol_positions(index: np.ndarray, c: int) -> np.ndarray:
    """The positions of symbol ``c`` in the pattern of an EqTable, ascending."""
    ns = index[1]
    first = 3 + 2 * ns
    return index[first + index[2 + ns + c]:first + index[3 + ns + c]]


@njit(cache=True, nogil=True)
def advance_through(pv: np.ndarray, mv: np.ndarray, masks: np.ndarray, index: np.ndarray, text: np.ndarray,
                    first: int, count: int, step: int) -> int:
    """:func:`advance` by the symbols ``text[first], text[first + step], …`` (``count`` of them) with their masks
    from the EqTable ``(masks, index)``; returns the change of ``D[m]``. One call for a whole run: a compiled call
    costs two atomic reference-count operations per array argument."""
    m = index[0]
    ns = index[1]
    last_bit = ONE << np.uint64((m - 1) & 63)
    scratch = masks.shape[0] - 1
    first_pos = 3 + 2 * ns
    delta = 0
    for t in range(count):
        c = text[first + t * step]
        k = index[2 + c]
        if k >= 0:
            delta += advance(pv, mv, masks, k, last_bit)
            continue
        lo = first_pos + index[2 + ns + c]
        hi = first_pos + index[3 + ns + c]
        for u in range(lo, hi):
            j = index[u]
            masks[scratch, j >> 6] |= ONE << np.uint64(j & 63)
        delta += advance(pv, mv, masks, scratch, last_bit)
        for u in range(lo, hi):
            masks[scratch, index[u] >> 6] = 0
    return delta


@njit(cache=True, nogil=True)
def levenshtein(a: np.ndarray, b: np.ndarray, n_symbols: int) -> int:
    """Unit-cost Levenshtein distance of two integer sequences with symbols in ``[0, n_symbols)``
    (``O(len(b))`` memory)."""
    n = a.shape[0]
    m = b.shape[0]
    if m == 0:
        return n
    if n == 0:
        return m
    masks, index = eq_table(b, n_symbols)
    nblocks = masks.shape[1]
    pv = np.full(nblocks, ALL_ONES, np.uint64)
    mv = np.zeros(nblocks, np.uint64)
    return m + advance_through(pv, mv, masks, index, a, 0, n, 1)


@njit(cache=True, nogil=True)
def combine_forward(pv: np.ndarray, mv: np.ndarray, i0: int, rows: np.ndarray, slot: int) -> int:
    """``min_j D[j] + rows[slot, j]`` where ``D`` is the column encoded by ``(pv, mv)`` with ``D[0] = i0``."""
    m = rows.shape[1] - 1
    d = i0
    best = d + rows[slot, 0]
    j = 1
    for b in range(pv.shape[0]):
        p = pv[b]
        q = mv[b]
        stop = min(m + 1, j + 64)
        while j < stop:
            d += np.int64(p & ONE) - np.int64(q & ONE)
            p >>= ONE
            q >>= ONE
            v = d + rows[slot, j]
            if v < best:
                best = v
            j += 1
    return best


@njit(cache=True, nogil=True)
def combine_backward(pv: np.ndarray, mv: np.ndarray, length: int, rows: np.ndarray, slot: int) -> int:
    """``min_t E[t] + rows[slot, m - t]`` where ``E[t] = ED(suffix, r[m-t:])`` is encoded by ``(pv, mv)``
    (reversed pattern) with ``E[0] = length`` (the suffix length)."""
    m = rows.shape[1] - 1
    e = length
    best = e + rows[slot, m]
    t = 1
    for b in range(pv.shape[0]):
        p = pv[b]
        q = mv[b]
        stop = min(m + 1, t + 64)
        while t < stop:
            e += np.int64(p & ONE) - np.int64(q & ONE)
            p >>= ONE
            q >>= ONE
            v = e + rows[slot, m - t]
            if v < best:
                best = v
            t += 1
    return best


@njit(cache=True, nogil=True)
def decode_forward(pv: np.ndarray, mv: np.ndarray, k: int, out: np.ndarray, m: int) -> None:
    """``out[j] = ED(hyp[:k], r[:j])`` from the forward state after ``k`` words (``out[0] = k``)."""
    d = k
    out[0] = d
    j = 1
    for b in range(pv.shape[0]):
        p = pv[b]
        q = mv[b]
        stop = min(m + 1, j + 64)
        while j < stop:
            d += np.int64(p & ONE) - np.int64(q & ONE)
            p >>= ONE
            q >>= ONE
            out[j] = d
            j += 1


@njit(cache=True, nogil=True)
def decode_backward(pv: np.ndarray, mv: np.ndarray, length: int, out: np.ndarray, m: int) -> None:
    """``out[j] = ED(suffix, r[j:])`` from the backward state of a suffix of ``length`` words (reversed pattern:
    bit ``t - 1`` is the delta of ``ED(suffix, r[m-t:])``)."""
    e = length
    out[m] = e
    t = 1
    for b in range(pv.shape[0]):
        p = pv[b]
        q = mv[b]
        stop = min(m + 1, t + 64)
        while t < stop:
            e += np.int64(p & ONE) - np.int64(q & ONE)
            p >>= ONE
            q >>= ONE
            out[m - t] = e
            t += 1


# The columns of a text (n symbols) against the pattern (m), in bounded memory. Forward row k: the distances of
# text[:k] to every pattern prefix; backward row k: of text[k:] to every pattern suffix (columns of the reversed
# pattern). The bit-parallel columns are kept at checkpoint rows only, as ck[c, 0] = pv, ck[c, 1] = mv: forward
# f_ck[k // stride] for k = 0, stride, ...; backward b_ck[k // stride] for k = 0, stride, ... < n (row n is the
# initial column). The last `cursors` entries of f_ck and b_ck are cursors: columns moved to any row from where they
# are or from the row's checkpoint (cur_row[c] = the row cursor c holds, -1: none). f_score[k] = ED(text[:k],
# pattern) and b_score[k] = ED(text[k:], pattern) for every row. Decoded rows (int32 distances) are cached in
# `slots` rows per direction (slot k % slots; tag = the row held, -1: none). Rows recomputed from a checkpoint are
# the same numbers. Plain arrays throughout, and no array views in the hot loops: numba counts references to every
# view and tuple field (two atomic operations each), which would cost more than the bit-parallel work itself; the
# callers check the caches in line and call these functions on a miss.


@njit(cache=True, nogil=True)
def checkpoint_stride(n: int, m: int, state_bytes: int) -> int:
    """Every row is a checkpoint while the columns of all ``n + 1`` rows of both directions (32 bytes per block
    of 64 pattern symbols and row) fit in ``state_bytes``; else every ``stride``-th row."""
    nblocks = max(1, (m + 63) // 64)
    return max(1, ((n + 1) * nblocks * 32 + state_bytes - 1) // state_bytes)


@njit(cache=True, nogil=True)
def new_checkpoints(n: int, m: int, stride: int, cursors: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                       np.ndarray]:
    """``(f_ck, b_ck, f_score, b_score)`` for a text of ``n >= 1`` symbols, with ``cursors`` cursor entries at
    the end of each checkpoint array (filled by :func:`refresh_checkpoints`)."""
    nblocks = max(1, (m + 63) // 64)
    f_ck = np.zeros((n // stride + 1 + cursors, 2, nblocks), np.uint64)
    f_ck[0, 0, :] = ALL_ONES
    b_ck = np.zeros(((n - 1) // stride + 1 + cursors, 2, nblocks), np.uint64)
    f_score = np.empty(n + 1, np.int64)
    f_score[0] = m
    b_score = np.empty(n + 1, np.int64)
    b_score[n] = m
    return f_ck, b_ck, f_score, b_score


@njit(cache=True, nogil=True)
def _backward_start(k: int, n: int, stride: int, b_ck: np.ndarray, pv: np.ndarray, mv: np.ndarray) -> int:
    """``(pv, mv)`` = the backward column of the first checkpoint row at or above ``k`` (row ``n``: the initial
    column); returns that row."""
    top = min(n, ((k + stride - 1) // stride) * stride)
    if top == n:
        pv[:] = ALL_ONES
        mv[:] = 0
    else:
        pv[:] = b_ck[top // stride, 0]
        mv[:] = b_ck[top // stride, 1]
    return top


@njit(cache=True, nogil=True)
def refresh_checkpoints(text: np.ndarray, lo: int, hi: int, stride: int, f_ck: np.ndarray, b_ck: np.ndarray,
                        f_score: np.ndarray, b_score: np.ndarray, f_masks: np.ndarray, f_index: np.ndarray,
                        b_masks: np.ndarray, b_index: np.ndarray, pv: np.ndarray, mv: np.ndarray) -> None:
    """Recompute what depends on ``text[lo:hi]`` (changed; all of it the first time: ``lo = 0, hi = n``):
    forward rows ``> lo``, backward rows ``< hi``. ``(f_masks, f_index)``, ``(b_masks, b_index)``: the EqTables
    of the pattern and of its reversal; ``pv``, ``mv``: a scratch column."""
    n = text.shape[0]
    base = lo // stride
    pv[:] = f_ck[base, 0]
    mv[:] = f_ck[base, 1]
    for k in range(base * stride, n):
        f_score[k + 1] = f_score[k] + advance_through(pv, mv, f_masks, f_index, text, k, 1, 1)
        if (k + 1) % stride == 0:
            f_ck[(k + 1) // stride, 0] = pv
            f_ck[(k + 1) // stride, 1] = mv
    top = _backward_start(hi, n, stride, b_ck, pv, mv)
    for k in range(top - 1, -1, -1):
        b_score[k] = b_score[k + 1] + advance_through(pv, mv, b_masks, b_index, text, k, 1, 1)
        if k % stride == 0:
            b_ck[k // stride, 0] = pv
            b_ck[k // stride, 1] = mv


@njit(cache=True, nogil=True)
def forward_at(k: int, text: np.ndarray, masks: np.ndarray, index: np.ndarray, f_ck: np.ndarray, stride: int,
               cur_row: np.ndarray, c: int) -> int:
    """The entry of ``f_ck`` holding forward row ``k``: its checkpoint, or cursor ``c`` (entry
    ``len(f_ck) - len(cur_row) + c``) moved there from where it is (if between ``k``'s checkpoint and ``k``)."""
    if k % stride == 0:
        return k // stride
    e = f_ck.shape[0] - cur_row.shape[0] + c
    row = cur_row[c]
    if row == k:
        return e
    base = (k // stride) * stride
    pv = f_ck[e, 0]
    mv = f_ck[e, 1]
    if row < base or row > k:
        pv[:] = f_ck[base // stride, 0]
        mv[:] = f_ck[base // stride, 1]
        row = base
    advance_through(pv, mv, masks, index, text, row, k - row, 1)
    cur_row[c] = k
    return e


@njit(cache=True, nogil=True)
def backward_at(k: int, text: np.ndarray, masks: np.ndarray, index: np.ndarray, b_ck: np.ndarray, stride: int,
                cur_row: np.ndarray, c: int) -> int:
    """The entry of ``b_ck`` holding backward row ``k``: its checkpoint, or cursor ``c`` moved there from where
    it is (if between ``k`` and its checkpoint)."""
    n = text.shape[0]
    if k % stride == 0 and k < n:
        return k // stride
    e = b_ck.shape[0] - cur_row.shape[0] + c
    row = cur_row[c]
    if row == k:
        return e
    pv = b_ck[e, 0]
    mv = b_ck[e, 1]
    if row < k or row > min(n, ((k + stride - 1) // stride) * stride):
        row = _backward_start(k, n, stride, b_ck, pv, mv)
    advance_through(pv, mv, masks, index, text, row - 1, row - k, -1)
    cur_row[c] = k
    return e


@njit(cache=True, nogil=True)
def load_column(ck: np.ndarray, e: int, pv: np.ndarray, mv: np.ndarray) -> None:
    """``(pv, mv)`` = the column of entry ``e`` of a checkpoint array (element by element: no array view)."""
    for b in range(pv.shape[0]):
        pv[b] = ck[e, 0, b]
        mv[b] = ck[e, 1, b]


@njit(cache=True, nogil=True)
def row_slots(n: int, m: int, row_bytes: int) -> int:
    """Decoded rows cached per direction: all ``n + 1`` while they fit in ``row_bytes``, at least 2."""
    return min(n + 1, max(2, row_bytes // (4 * (m + 1))))


@njit(cache=True, nogil=True)
def fill_forward_row(k: int, text: np.ndarray, masks: np.ndarray, index: np.ndarray, f_ck: np.ndarray,
                     stride: int, cur_row: np.ndarray, c: int, rows: np.ndarray, tag: np.ndarray) -> None:
    """Decode forward row ``k`` (``ED(text[:k], pattern[:j])`` for every ``j``) into its cache slot, with cursor
    ``c`` if ``k`` is no checkpoint."""
    e = forward_at(k, text, masks, index, f_ck, stride, cur_row, c)
    slot = k % tag.shape[0]
    decode_forward(f_ck[e, 0], f_ck[e, 1], k, rows[slot], rows.shape[1] - 1)
    tag[slot] = k


@njit(cache=True, nogil=True)
def fill_backward_row(k: int, text: np.ndarray, masks: np.ndarray, index: np.ndarray, b_ck: np.ndarray,
                      stride: int, cur_row: np.ndarray, c: int, rows: np.ndarray, tag: np.ndarray) -> None:
    """Decode backward row ``k`` (``ED(text[k:], pattern[j:])`` for every ``j``) into its cache slot, with
    cursor ``c`` if ``k`` is no checkpoint."""
    e = backward_at(k, text, masks, index, b_ck, stride, cur_row, c)
    slot = k % tag.shape[0]
    decode_backward(b_ck[e, 0], b_ck[e, 1], text.shape[0] - k, rows[slot], rows.shape[1] - 1)
    tag[slot] = k
