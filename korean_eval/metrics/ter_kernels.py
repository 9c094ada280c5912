"""The numba kernels of the fast TER statistics (:mod:`korean_eval.metrics.fast_ter`, whose docstring states what
they reproduce of sacrebleu 2.6.0's ``lib_ter`` and why they are exact): the beam edit distance, its backward
matrix, sacrebleu's shift search and the number of edits of one (hypothesis, reference) pair of token-id arrays.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Limits from sacrebleu.metrics.lib_ter (Tercom-inspired).
_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_BEAM_WIDTH = 25
_MAX_SHIFT_CANDIDATES = 1000
_INF = 10**16  # sacrebleu's _INT_INFINITY; int64 arithmetic on it cannot overflow here.

# Edit operations of the (un-flipped) trace, i.e. rewriting the hypothesis into the reference.
_OP_NOP = 0
_OP_SUB = 1
_OP_INS = 2  # consumes a reference token (j - 1)
_OP_DEL = 3  # consumes a hypothesis token (i - 1)
_OP_UNDEF = 4


@njit(cache=True, nogil=True)
def _beam_bounds(n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Allowed columns ``[lo[i], hi[i])`` of every row ``i`` of the beam edit-distance matrix (``n, m >= 1``)."""
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
    return lo, hi


@njit(cache=True, nogil=True)
def _forward_full(h: np.ndarray, r: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                  cost: np.ndarray, ops: np.ndarray) -> None:
    """Fill the beam edit-distance matrix and back-pointers exactly as ``BeamEditDistance._edit_distance``."""
    n = h.shape[0]
    m = r.shape[0]
    cost[:, :] = _INF
    ops[:, :] = _OP_UNDEF
    for j in range(m + 1):
        cost[0, j] = j
        ops[0, j] = _OP_INS
    for i in range(1, n + 1):
        hw = h[i - 1]
        for j in range(lo[i], hi[i]):
            if j == 0:
                cost[i, 0] = cost[i - 1, 0] + 1
                ops[i, 0] = _OP_DEL
                continue
            c = _INF
            o = _OP_UNDEF
            if hw == r[j - 1]:
                s = cost[i - 1, j - 1]
                so = _OP_NOP
            else:
                s = cost[i - 1, j - 1] + 1
                so = _OP_SUB
            if c > s:
                c = s
                o = so
            d = cost[i - 1, j] + 1
            if c > d:
                c = d
                o = _OP_DEL
            a = cost[i, j - 1] + 1
            if c > a:
                c = a
                o = _OP_INS
            cost[i, j] = c
            ops[i, j] = o


@njit(cache=True, nogil=True)
def _backward_full(h: np.ndarray, r: np.ndarray, lo: np.ndarray, hi: np.ndarray, back: np.ndarray) -> None:
    """``back[i, j]`` = cheapest path from cell ``(i, j)`` to ``(n, m)`` through the allowed beam cells."""
    n = h.shape[0]
    m = r.shape[0]
    back[:, :] = _INF
    back[n, m] = 0
    for j in range(m - 1, lo[n] - 1, -1):
        back[n, j] = back[n, j + 1] + 1
    for i in range(n - 1, -1, -1):
        hw = h[i]
        for j in range(hi[i] - 1, lo[i] - 1, -1):
            v = back[i + 1, j] + 1
            if j < m:
                dg = back[i + 1, j + 1] + (0 if hw == r[j] else 1)
                if dg < v:
                    v = dg
                rt = back[i, j + 1] + 1
                if rt < v:
                    v = rt
            if v > _INF:
                v = _INF
            back[i, j] = v


@njit(cache=True, nogil=True)
def _perform_shift(w: np.ndarray, s: int, length: int, t: int, out: np.ndarray) -> None:
    """Write sacrebleu's ``_perform_shift(w, s, length, t)`` (Python slice semantics) into ``out``."""
    n = w.shape[0]
    if t < s:
        out[:t] = w[:t]
        out[t:t + length] = w[s:s + length]
        out[t + length:s + length] = w[t:s]
        out[s + length:] = w[s + length:]
    elif t > s + length:
        out[:s] = w[:s]
        out[s:t - length] = w[s + length:t]
        out[t - length:t] = w[s:s + length]
        out[t:] = w[t:]
    else:
        e = min(length + t, n)
        mid = e - (s + length)
        out[:s] = w[:s]
        out[s:s + mid] = w[s + length:e]
        out[s + mid:s + mid + length] = w[s:s + length]
        out[s + mid + length:] = w[e:]


@njit(cache=True, nogil=True)
def _candidate_distance(w: np.ndarray, cand: np.ndarray, r: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                        fwd: np.ndarray, back: np.ndarray, pre_score: int,
                        buf_a: np.ndarray, buf_b: np.ndarray) -> int:
    """Beam edit distance of ``cand`` given the forward/backward matrices of ``w`` (same length)."""
    n = w.shape[0]
    p = 0
    while p < n and cand[p] == w[p]:
        p += 1
    if p == n:
        return pre_score
    q = n
    while cand[q - 1] == w[q - 1]:
        q -= 1
    prev = buf_a
    cur = buf_b
    prev[:] = fwd[p, :]
    cur[:] = _INF
    for i in range(p + 1, q + 1):
        if i >= p + 2:  # cur holds row i - 2: reset its allowed cells (all others are already _INF)
            for j in range(lo[i - 2], hi[i - 2]):
                cur[j] = _INF
        hw = cand[i - 1]
        for j in range(lo[i], hi[i]):
            if j == 0:
                cur[0] = prev[0] + 1
                continue
            c = prev[j - 1] + (0 if hw == r[j - 1] else 1)
            d = prev[j] + 1
            if d < c:
                c = d
            a = cur[j - 1] + 1
            if a < c:
                c = a
            cur[j] = c
        tmp = prev
        prev = cur
        cur = tmp
    best = _INF
    for j in range(lo[q], hi[q]):
        v = prev[j] + back[q, j]
        if v < best:
            best = v
    return best


@njit(cache=True, nogil=True)
def ter_pair(h: np.ndarray, r: np.ndarray) -> int:
    """Number of TER edits (shifts + edit distance) of hypothesis ids ``h`` against reference ids ``r``."""
    n = h.shape[0]
    m = r.shape[0]
    if m == 0:
        return n
    if n == 0:
        return m
    lo, hi = _beam_bounds(n, m)
    fwd = np.empty((n + 1, m + 1), np.int64)
    ops = np.empty((n + 1, m + 1), np.uint8)
    back = np.empty((n + 1, m + 1), np.int64)
    buf_a = np.empty(m + 1, np.int64)
    buf_b = np.empty(m + 1, np.int64)
    cur = h.copy()
    shifted = np.empty_like(h)
    trace = np.empty(n + m, np.uint8)
    align = np.empty(m, np.int64)
    hyp_cum = np.empty(n + 1, np.int64)
    ref_cum = np.empty(m + 1, np.int64)
    cap = _MAX_SHIFT_CANDIDATES + _MAX_SHIFT_SIZE + 1
    cand_s = np.empty(cap, np.int64)
    cand_l = np.empty(cap, np.int64)
    cand_t = np.empty(cap, np.int64)

    shifts = 0
    checked = 0
    while True:
        _forward_full(cur, r, lo, hi, fwd, ops)
        pre_score = fwd[n, m]

        # Back-trace, then the alignment of the flipped trace (sacrebleu's trace_to_alignment).
        t_len = 0
        i = n
        j = m
        while i > 0 or j > 0:
            o = ops[i, j]
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

        # Enumerate the candidates of this round in sacrebleu's order (_find_shifted_pairs + filters).
        n_cand = 0
        exhausted = False
        for sh in range(n):
            for sr in range(max(0, sh - _MAX_SHIFT_DIST), min(m, sh + _MAX_SHIFT_DIST + 1)):
                length = 0
                while length < _MAX_SHIFT_SIZE and cur[sh + length] == r[sr + length]:
                    length += 1
                    if (hyp_cum[sh + length] != hyp_cum[sh] and ref_cum[sr + length] != ref_cum[sr]
                            and not (sh <= align[sr] < sh + length)):
                        prev_idx = -1
                        for off in range(-1, length):
                            if sr + off == -1:
                                idx = 0
                            else:
                                idx = align[sr + off] + 1
                            if idx == prev_idx:
                                continue
                            prev_idx = idx
                            cand_s[n_cand] = sh
                            cand_l[n_cand] = length
                            cand_t[n_cand] = idx
                            n_cand += 1
                            checked += 1
                        if checked >= _MAX_SHIFT_CANDIDATES:
                            exhausted = True
                            break
                    if n == sh + length or m == sr + length:
                        break
                if exhausted:
                    break
            if exhausted:
                break
        if exhausted or n_cand == 0:
            # Budget exhausted: sacrebleu discards this round's best shift. No candidates: no shift.
            break

        _backward_full(cur, r, lo, hi, back)
        best_score = 0
        best_l = 0
        best_s = 0
        best_t = 0
        for c in range(n_cand):
            s = cand_s[c]
            length = cand_l[c]
            t = cand_t[c]
            _perform_shift(cur, s, length, t, shifted)
            score = pre_score - _candidate_distance(cur, shifted, r, lo, hi, fwd, back, pre_score, buf_a, buf_b)
            # Ranking key (score, length, -start_h, -target), strictly greater wins.
            if c == 0 or score > best_score or (score == best_score and (
                    length > best_l or (length == best_l and (
                        s < best_s or (s == best_s and t < best_t))))):
                best_score = score
                best_l = length
                best_s = s
                best_t = t
        if best_score <= 0:
            break
        shifts += 1
        _perform_shift(cur, best_s, best_l, best_t, shifted)
        cur[:] = shifted

    return shifts + pre_score


@njit(cache=True, nogil=True)
def ter_batch(tokens: np.ndarray, hyp_start: np.ndarray, hyp_end: np.ndarray, ref_start: np.ndarray,
               ref_end: np.ndarray, out: np.ndarray) -> None:
    """``out[k]`` = TER edits of pair ``k`` (token-id slices of ``tokens``)."""
    for k in range(out.shape[0]):
        out[k] = ter_pair(tokens[hyp_start[k]:hyp_end[k]], tokens[ref_start[k]:ref_end[k]])
