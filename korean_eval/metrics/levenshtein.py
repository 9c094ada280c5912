"""Myers' (1999) bit-parallel unit-cost Levenshtein distance over integer sequences, numba-compiled.

The pattern (the reference) is split into blocks of 64 symbols; ``match_masks`` gives, per symbol, the bits of the
pattern positions holding it. A column of the dynamic programme (the distances of a text prefix to every pattern
prefix) is encoded by its vertical deltas ``(pv, mv)`` (bit ``j``: ``D[j+1] - D[j]`` is +1 resp. -1); ``advance``
consumes one text symbol. ``combine_*`` and ``decode_*`` read such a column back, forwards or (for a reversed
pattern) backwards; CharacTER's shift search (:mod:`korean_eval.metrics.character_kernels`) builds on them.
All kernels are compiled with ``cache=True, nogil=True``.
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
def advance(pv: np.ndarray, mv: np.ndarray, eq_row: np.ndarray, last_bit: np.uint64) -> int:
    """Process one text symbol (Myers' ``advance_block`` over all blocks, global distance): update the vertical
    delta vectors in place and return the change of ``D[m]`` (the distance to the whole pattern)."""
    nblocks = pv.shape[0]
    hin = 1  # top boundary: D[0][i] - D[0][i-1] = +1
    for b in range(nblocks):
        eq = eq_row[b]
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


@njit(cache=True, nogil=True)
def levenshtein(a: np.ndarray, b: np.ndarray, n_symbols: int) -> int:
    """Unit-cost Levenshtein distance of two integer sequences with symbols in ``[0, n_symbols)``."""
    n = a.shape[0]
    m = b.shape[0]
    if m == 0:
        return n
    if n == 0:
        return m
    peq = match_masks(b, n_symbols)
    nblocks = peq.shape[1]
    last_bit = ONE << np.uint64((m - 1) & 63)
    pv = np.full(nblocks, ALL_ONES, np.uint64)
    mv = np.zeros(nblocks, np.uint64)
    score = m
    for i in range(n):
        score += advance(pv, mv, peq[a[i]], last_bit)
    return score



@njit(cache=True, nogil=True)
def combine_forward(pv: np.ndarray, mv: np.ndarray, i0: int, row: np.ndarray, m: int) -> int:
    """``min_j D[j] + row[j]`` where ``D`` is the column encoded by ``(pv, mv)`` with ``D[0] = i0``."""
    d = i0
    best = d + row[0]
    j = 1
    for b in range(pv.shape[0]):
        p = pv[b]
        q = mv[b]
        stop = min(m + 1, j + 64)
        while j < stop:
            d += np.int64(p & ONE) - np.int64(q & ONE)
            p >>= ONE
            q >>= ONE
            v = d + row[j]
            if v < best:
                best = v
            j += 1
    return best


@njit(cache=True, nogil=True)
def combine_backward(pv: np.ndarray, mv: np.ndarray, length: int, row: np.ndarray, m: int) -> int:
    """``min_t E[t] + row[m - t]`` where ``E[t] = ED(suffix, r[m-t:])`` is encoded by ``(pv, mv)`` (reversed
    pattern) with ``E[0] = length`` (the suffix length)."""
    e = length
    best = e + row[m]
    t = 1
    for b in range(pv.shape[0]):
        p = pv[b]
        q = mv[b]
        stop = min(m + 1, t + 64)
        while t < stop:
            e += np.int64(p & ONE) - np.int64(q & ONE)
            p >>= ONE
            q >>= ONE
            v = e + row[m - t]
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
