"""CharacTER (Wang et al., 2016, "CharacTER: Translation Edit Rate on Character Level") on token strings.

Definition implemented — the authors' reference implementation (``rwth-i6/CharacTER``, ``CharacTER.py``, function
``cer``; the same algorithm as the ``cer`` package used by HuggingFace ``evaluate``) applied to the *tokens* of a
token string: the words that are shifted are the tokens (``text.split(" ")``), and the characters are the
characters of the space-joined token string, **including the single spaces between tokens** (at word level this
is exactly the reference implementation on whitespace-split text).

1. Shifts (word level, greedy, as in the reference): repeat

   * candidates: every pair ``(s1, s2)`` with ``s1 != s2`` and ``hyp[s1] == ref[s2]`` (exact token match), with the
     phrase length ``L`` = the longest run ``hyp[s1+t] == ref[s2+t]``; the candidate removes ``hyp[s1:s1+L]`` and
     re-inserts it at index ``s2`` of the shortened list (Python slice insertion, i.e. at ``min(s2, n - L)``);
   * gain = word-level Levenshtein distance (unit costs) of the current hypothesis to the reference minus that
     of the candidate; the candidate with the largest ``(gain, shifted word list)`` (Python ordering: ties go to
     the lexicographically largest word list, as the reference's ``scores.sort(); scores[-1]``) is applied if
     its gain is > 0, otherwise the search stops.

2. Shift cost: the reference's ``_shift_cost(shifted, original)`` (same logic, see :func:`shift_cost`): scanning
   original positions ``i`` with ``original[i] != shifted[i]``, it finds the first later shifted position where
   ``original[i]`` re-appears, extends the run of following words that also agree, adds the *average character
   length of the words of that run* and skips the run; positions whose word does not re-appear later add 0. So a
   shifted word costs about its length in characters, not 1 (the shift cost is not a count of shifts).
3. Edit distance: character-level Levenshtein distance (unit costs) between ``" ".join(shifted words)`` and
   ``" ".join(reference words)``.
4. Score = ``min(1, (shift cost + edit distance) / len(" ".join(hyp words)))`` — normalised by the *hypothesis*
   length (the paper's choice), capped at 1 (as the ``cer`` package; the rwth script does not cap).

Reported × 100 (0-100, lower is better). Multiple references: the minimum (best) score over the references.
Corner cases: an empty hypothesis scores 100 against a non-empty reference (the reference implementation returns
1.0 for every empty hypothesis); an empty hypothesis against an empty reference scores 0 (nothing to edit — a
deliberate deviation from the reference's division guard). A non-empty hypothesis against an empty reference
scores 100 (the cap). Corpus score: the mean of the sentence scores (the reference script prints the average),
statistics ``[100 · score, 1]``.

Exactness and speed. The search above is the reference algorithm, computed exactly with three devices that never
change its result:

* bit-parallel Levenshtein distance over the words (Myers 1999, multi-word blocks of 64 reference tokens), with
  the states after every prefix of the current hypothesis cached, because a candidate shares the hypothesis prefix
  ``[0, min(s1, p))``;
* an upper bound on a candidate's gain: moving a block of ``L`` words by ``d`` positions is at most
  ``2 · min(L, d)`` edits away from the current hypothesis, so (triangle inequality) its gain is ≤ ``2 · min(L, d)``;
  a candidate whose bound is below the best gain found, or equal to it while its shifted list is not
  lexicographically larger than the best one's, cannot win the reference's sort and is skipped;
* integer token ids assigned in sorted (code point) order of the tokens, so comparing id sequences equals Python's
  comparison of the word lists.

Also exact, per shift round: a candidate's distance is computed from cached forward/backward bit-parallel states
and decoded distance rows of the current hypothesis (only the rows touched by the previous shift are recomputed),
streaming only over the words between the block and its target; candidates are further bounded by the distance of
the hypothesis with the block deleted (``ED(cand) ≥ ED(reduced) - L``) and with the block inserted at the target
(``ED(cand) ≥ ED(inserted) - L``).

The kernels are compiled with numba (``cache=True``, ``nogil=True``); segments can be scored on several threads
(``n_jobs``). The tests compare the kernels with a direct Python port of the reference on random inputs and with the
published ``cer`` test values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from korean_eval.metrics.base import MetricInfo, SentenceMeanMetric, resolve_jobs, segment_references

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)
_HIGH = np.uint64(1) << np.uint64(63)


def _tokens(text: str) -> list[str]:
    """The tokens of a token string: ``text.split(" ")``, none for the empty string."""
    return text.split(" ") if text else []


# ------------------------------------------------------------------------------------ bit-parallel Levenshtein


@njit(cache=True, nogil=True)
def _peq(pattern: np.ndarray, n_symbols: int) -> np.ndarray:
    """Match masks: bit ``j % 64`` of ``peq[c, j // 64]`` is set iff ``pattern[j] == c``."""
    m = pattern.shape[0]
    nblocks = max(1, (m + 63) // 64)
    peq = np.zeros((n_symbols, nblocks), np.uint64)
    for j in range(m):
        peq[pattern[j], j >> 6] |= _ONE << np.uint64(j & 63)
    return peq


@njit(cache=True, nogil=True)
def _advance(pv: np.ndarray, mv: np.ndarray, eq_row: np.ndarray, last_bit: np.uint64) -> int:
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
            eq |= _ONE
        xh = (((eq & p) + p) ^ p) | eq
        ph = mm | ~(xh | p)
        mh = p & xh
        hb = _HIGH if b < nblocks - 1 else last_bit
        hout = 0
        if (ph & hb) != 0:
            hout = 1
        elif (mh & hb) != 0:
            hout = -1
        ph = ph << _ONE
        mh = mh << _ONE
        if hin < 0:
            mh |= _ONE
        elif hin > 0:
            ph |= _ONE
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
    peq = _peq(b, n_symbols)
    nblocks = peq.shape[1]
    last_bit = _ONE << np.uint64((m - 1) & 63)
    pv = np.full(nblocks, _ALL, np.uint64)
    mv = np.zeros(nblocks, np.uint64)
    score = m
    for i in range(n):
        score += _advance(pv, mv, peq[a[i]], last_bit)
    return score


# ---------------------------------------------------------------------------------------------- shift search


@njit(cache=True, nogil=True)
def _greater(a: np.ndarray, b: np.ndarray) -> bool:
    """Lexicographic ``a > b`` for equal-length id sequences."""
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return a[i] > b[i]
    return False


@njit(cache=True, nogil=True)
def _shift_words(hyp: np.ndarray, s1: int, length: int, s2: int, out: np.ndarray) -> int:
    """``out`` = ``hyp`` with ``hyp[s1:s1+length]`` moved to index ``s2`` of the shortened list (Python slice
    insertion); returns the actual insertion index ``p = min(s2, n - length)``."""
    n = hyp.shape[0]
    p = min(s2, n - length)
    k = 0
    for i in range(n):
        if k == p:
            for t in range(length):
                out[k] = hyp[s1 + t]
                k += 1
        if s1 <= i < s1 + length:
            continue
        out[k] = hyp[i]
        k += 1
    if k == p:  # insertion at the very end
        for t in range(length):
            out[k] = hyp[s1 + t]
            k += 1
    return p


@njit(cache=True, nogil=True)
def shift_search_simple(h: np.ndarray, r: np.ndarray, n_symbols: int) -> np.ndarray:
    """Same result as :func:`shift_search`, computed more directly (every candidate's distance from the cached
    prefix state over the rest of the candidate); kept as an independent cross-check for the tests."""
    n = h.shape[0]
    m = r.shape[0]
    hyp = h.copy()
    if n == 0 or m == 0:
        return hyp
    peq = _peq(r, n_symbols)
    nblocks = peq.shape[1]
    last_bit = _ONE << np.uint64((m - 1) & 63)
    pv_hist = np.empty((n + 1, nblocks), np.uint64)
    mv_hist = np.empty((n + 1, nblocks), np.uint64)
    sc_hist = np.empty(n + 1, np.int64)
    pv = np.empty(nblocks, np.uint64)
    mv = np.empty(nblocks, np.uint64)
    cand = np.empty(n, h.dtype)
    best = np.empty(n, h.dtype)
    while True:
        pv_hist[0, :] = _ALL
        mv_hist[0, :] = 0
        sc_hist[0] = m
        for k in range(n):
            pv[:] = pv_hist[k]
            mv[:] = mv_hist[k]
            sc_hist[k + 1] = sc_hist[k] + _advance(pv, mv, peq[hyp[k]], last_bit)
            pv_hist[k + 1] = pv
            mv_hist[k + 1] = mv
        pre = sc_hist[n]
        have_best = False
        best_gain = 0
        for s1 in range(n):
            w = hyp[s1]
            for s2 in range(m):
                if s1 == s2 or r[s2] != w:
                    continue
                length = 1
                for step in range(1, n - s1):
                    if s2 + step < m and hyp[s1 + step] == r[s2 + step]:
                        length += 1
                    else:
                        break
                p = min(s2, n - length)
                bound = 2 * min(length, abs(s1 - p))
                if have_best and bound < best_gain:
                    continue
                _shift_words(hyp, s1, length, s2, cand)
                if have_best and bound == best_gain and not _greater(cand, best):
                    continue
                start = min(s1, p)
                pv[:] = pv_hist[start]
                mv[:] = mv_hist[start]
                score = sc_hist[start]
                for k in range(start, n):
                    score += _advance(pv, mv, peq[cand[k]], last_bit)
                gain = pre - score
                if (not have_best) or gain > best_gain or (gain == best_gain and _greater(cand, best)):
                    have_best = True
                    best_gain = gain
                    best[:] = cand
        if not have_best or best_gain <= 0:
            return hyp
        hyp[:] = best


@njit(cache=True, nogil=True)
def _combine_forward(pv: np.ndarray, mv: np.ndarray, i0: int, row: np.ndarray, m: int) -> int:
    """``min_j D[j] + row[j]`` where ``D`` is the column encoded by ``(pv, mv)`` with ``D[0] = i0``."""
    d = i0
    best = d + row[0]
    j = 1
    for b in range(pv.shape[0]):
        p = pv[b]
        q = mv[b]
        stop = min(m + 1, j + 64)
        while j < stop:
            d += np.int64(p & _ONE) - np.int64(q & _ONE)
            p >>= _ONE
            q >>= _ONE
            v = d + row[j]
            if v < best:
                best = v
            j += 1
    return best


@njit(cache=True, nogil=True)
def _combine_backward(pv: np.ndarray, mv: np.ndarray, length: int, row: np.ndarray, m: int) -> int:
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
            e += np.int64(p & _ONE) - np.int64(q & _ONE)
            p >>= _ONE
            q >>= _ONE
            v = e + row[m - t]
            if v < best:
                best = v
            t += 1
    return best


@njit(cache=True, nogil=True)
def _decode_forward(pv: np.ndarray, mv: np.ndarray, k: int, out: np.ndarray, m: int) -> None:
    """``out[j] = ED(hyp[:k], r[:j])`` from the forward state after ``k`` words (``out[0] = k``)."""
    d = k
    out[0] = d
    j = 1
    for b in range(pv.shape[0]):
        p = pv[b]
        q = mv[b]
        stop = min(m + 1, j + 64)
        while j < stop:
            d += np.int64(p & _ONE) - np.int64(q & _ONE)
            p >>= _ONE
            q >>= _ONE
            out[j] = d
            j += 1


@njit(cache=True, nogil=True)
def _decode_backward(pv: np.ndarray, mv: np.ndarray, length: int, out: np.ndarray, m: int) -> None:
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
            e += np.int64(p & _ONE) - np.int64(q & _ONE)
            p >>= _ONE
            q >>= _ONE
            out[m - t] = e
            t += 1


@njit(cache=True, nogil=True)
def _cand_at(hyp: np.ndarray, s1: int, length: int, p: int, i: int) -> int:
    """Element ``i`` of the candidate that moves ``hyp[s1:s1+length]`` to index ``p``."""
    if p < s1:
        if i < p or i >= s1 + length:
            return hyp[i]
        if i < p + length:
            return hyp[s1 + i - p]
        return hyp[i - length]
    if i < s1 or i >= p + length:
        return hyp[i]
    if i < p:
        return hyp[i + length]
    return hyp[s1 + i - p]


@njit(cache=True, nogil=True)
def _cand_greater(hyp: np.ndarray, s1: int, length: int, p: int, best: np.ndarray) -> bool:
    """Lexicographic ``candidate > best`` without building the candidate."""
    for i in range(hyp.shape[0]):
        c = _cand_at(hyp, s1, length, p, i)
        if c != best[i]:
            return c > best[i]
    return False


@njit(cache=True, nogil=True)
def _inserted_distance(f_pv: np.ndarray, f_mv: np.ndarray, bwd: np.ndarray, peq: np.ndarray, hyp: np.ndarray,
                       s1: int, length: int, at: int, last_bit: np.uint64, qv: np.ndarray, nv: np.ndarray,
                       vcache: np.ndarray, s2: int, side: int) -> int:
    """``ED(hyp[:at] + B + hyp[at:], r)`` for the block ``B = hyp[s1:s1+length]`` (memoised for one-word blocks
    by ``(s2, side)``, which determine ``B = [r[s2]]`` and ``at``). The candidate is this sequence with the
    original ``B`` deleted, so ``ED(cand) >= ED(inserted) - length``."""
    if length == 1 and vcache[s2, side] >= 0:
        return vcache[s2, side]
    qv[:] = f_pv[at]
    nv[:] = f_mv[at]
    for t in range(length):
        _advance(qv, nv, peq[hyp[s1 + t]], last_bit)
    d = _combine_forward(qv, nv, at + length, bwd[at], bwd.shape[1] - 1)
    if length == 1:
        vcache[s2, side] = d
    return d


@njit(cache=True, nogil=True)
def shift_search(h: np.ndarray, r: np.ndarray, n_symbols: int) -> np.ndarray:
    """The reference's greedy word-shift search (``cer``'s ``while True: shifter(...)`` loop); returns the final
    shifted hypothesis (word ids). See the module docstring for the exact definition and the pruning.

    A candidate moving ``B = hyp[s1:s1+L]`` to index ``p`` is scored without re-running the whole distance:

    * ``p > s1``: the candidate is ``hyp[:s1] + hyp[s1+L:p+L] + B + hyp[p+L:]``. For fixed ``(s1, L)`` the
      forward bit-parallel state is streamed from the cached prefix state at ``s1`` through ``hyp[s1+L:]``; at
      each target ``p`` a copy absorbs ``B`` and is combined with the backward matrix:
      ``ED = min_j D[p+L][j] + ED(hyp[p+L:], r[j:])``.
    * ``p < s1``: the candidate is ``hyp[:p] + B + hyp[p:s1] + hyp[s1+L:]``. A backward state (reversed strings)
      is streamed from the cached suffix state at ``s1+L`` through ``hyp[s1-1], …, hyp[p]``; a copy absorbs ``B``
      reversed and is combined with the forward matrix: ``ED = min_j ED(hyp[:p], r[:j]) + ED(suffix, r[j:])``.
    """
    n = h.shape[0]
    m = r.shape[0]
    hyp = h.copy()
    if n == 0 or m == 0:
        return hyp
    r_rev = r[::-1].copy()
    peq = _peq(r, n_symbols)
    peq_rev = _peq(r_rev, n_symbols)
    nblocks = peq.shape[1]
    last_bit = _ONE << np.uint64((m - 1) & 63)
    f_pv = np.empty((n + 1, nblocks), np.uint64)
    f_mv = np.empty((n + 1, nblocks), np.uint64)
    b_pv = np.empty((n + 1, nblocks), np.uint64)
    b_mv = np.empty((n + 1, nblocks), np.uint64)
    fwd = np.empty((n + 1, m + 1), np.int32)
    bwd = np.empty((n + 1, m + 1), np.int32)
    # positions of every symbol in r (counting sort), to enumerate the matches of hyp[s1] without scanning r
    r_start = np.zeros(n_symbols + 1, np.int64)
    for j in range(m):
        r_start[r[j] + 1] += 1
    for c in range(n_symbols):
        r_start[c + 1] += r_start[c]
    r_pos = np.empty(m, np.int64)
    fill = r_start[:-1].copy()
    for j in range(m):
        r_pos[fill[r[j]]] = j
        fill[r[j]] += 1
    pv = np.empty(nblocks, np.uint64)
    mv = np.empty(nblocks, np.uint64)
    qv = np.empty(nblocks, np.uint64)
    nv = np.empty(nblocks, np.uint64)
    best = np.empty(n, h.dtype)
    cand_l = np.empty(m, np.int64)
    cand_p = np.empty(m, np.int64)
    cand_s2 = np.empty(m, np.int64)
    order = np.empty(m, np.int64)
    vcache = np.empty((m, 2), np.int64)  # ED of hyp with the one-word block r[s2] inserted (see below)
    f_pv[0, :] = _ALL
    f_mv[0, :] = 0
    b_pv[n, :] = _ALL
    b_mv[n, :] = 0
    _decode_forward(f_pv[0], f_mv[0], 0, fwd[0], m)
    _decode_backward(b_pv[n], b_mv[n], 0, bwd[n], m)
    changed_lo = 0  # hyp[changed_lo:changed_hi] differs from the previous round's hypothesis
    changed_hi = n
    while True:
        # cached states and decoded rows of the current hypothesis: forward rows k > changed_lo and backward rows
        # k < changed_hi depend on the changed span; the others are unchanged from the previous round
        for k in range(changed_lo, n):
            pv[:] = f_pv[k]
            mv[:] = f_mv[k]
            _advance(pv, mv, peq[hyp[k]], last_bit)
            f_pv[k + 1] = pv
            f_mv[k + 1] = mv
            _decode_forward(pv, mv, k + 1, fwd[k + 1], m)
        for k in range(changed_hi - 1, -1, -1):
            pv[:] = b_pv[k + 1]
            mv[:] = b_mv[k + 1]
            _advance(pv, mv, peq_rev[hyp[k]], last_bit)
            b_pv[k] = pv
            b_mv[k] = mv
            _decode_backward(pv, mv, n - k, bwd[k], m)
        pre = np.int64(fwd[n, m])
        have_best = False
        best_gain = 0
        best_lo = 0
        best_hi = n
        vcache[:, :] = -1
        for s1 in range(n):
            w = hyp[s1]
            # this position's candidates: phrase length and insertion index
            nc = 0
            for a in range(r_start[w], r_start[w + 1]):
                s2 = r_pos[a]
                if s1 == s2:
                    continue
                length = 1
                for step in range(1, n - s1):
                    if s2 + step < m and hyp[s1 + step] == r[s2 + step]:
                        length += 1
                    else:
                        break
                cand_l[nc] = length
                cand_p[nc] = min(s2, n - length)
                cand_s2[nc] = s2
                nc += 1
            if nc == 0:
                continue
            # sort candidates by (length, p) so that groups stream in one direction
            for a in range(nc):
                order[a] = a
            for a in range(1, nc):
                x = order[a]
                b = a - 1
                while b >= 0 and (cand_l[order[b]] > cand_l[x]
                                  or (cand_l[order[b]] == cand_l[x] and cand_p[order[b]] > cand_p[x])):
                    order[b + 1] = order[b]
                    b -= 1
                order[b + 1] = x
            g0 = 0
            while g0 < nc:
                length = cand_l[order[g0]]
                g1 = g0
                while g1 < nc and cand_l[order[g1]] == length:
                    g1 += 1
                # candidates of this (s1, length) are order[g0:g1], p ascending. Group bound: the candidate is the
                # reduced hypothesis (B removed) plus L insertions, so ED(cand) >= ED(reduced) - L.
                if have_best and 2 * length < best_gain:  # every candidate's gain is at most 2L
                    g0 = g1
                    continue
                frow = fwd[s1]
                brow = bwd[s1 + length]
                reduced = np.int64(frow[0]) + np.int64(brow[0])
                for j in range(1, m + 1):
                    v = np.int64(frow[j]) + np.int64(brow[j])
                    if v < reduced:
                        reduced = v
                group_bound = pre - reduced + length
                if group_bound < 1 or (have_best and group_bound < best_gain):
                    g0 = g1
                    continue
                # forward stream for p > s1 (ascending)
                pv[:] = f_pv[s1]
                mv[:] = f_mv[s1]
                pos = s1  # candidate prefix length represented by (pv, mv)
                for a in range(g0, g1):
                    p = cand_p[order[a]]
                    if p <= s1 or (a > g0 and cand_p[order[a - 1]] == p):
                        continue
                    bound = min(2 * min(length, p - s1), group_bound)
                    if bound < 1 or (have_best and bound < best_gain):
                        continue
                    ins = _inserted_distance(f_pv, f_mv, bwd, peq, hyp, s1, length, p + length, last_bit, qv, nv,
                                             vcache, cand_s2[order[a]], 1)
                    bound = min(bound, pre - ins + length)
                    if bound < 1 or (have_best and bound < best_gain):
                        continue
                    if have_best and bound == best_gain and not _cand_greater(hyp, s1, length, p, best):
                        continue
                    while pos < p:
                        _advance(pv, mv, peq[hyp[pos + length]], last_bit)
                        pos += 1
                    qv[:] = pv
                    nv[:] = mv
                    for t in range(length):
                        _advance(qv, nv, peq[hyp[s1 + t]], last_bit)
                    score = _combine_forward(qv, nv, p + length, bwd[p + length], m)
                    gain = pre - score
                    if gain >= 1 and ((not have_best) or gain > best_gain
                                      or (gain == best_gain and _cand_greater(hyp, s1, length, p, best))):
                        have_best = True
                        best_gain = gain
                        best_lo = s1
                        best_hi = p + length
                        for i in range(n):
                            best[i] = _cand_at(hyp, s1, length, p, i)
                # backward stream for p < s1 (descending)
                pv[:] = b_pv[s1 + length]
                mv[:] = b_mv[s1 + length]
                pos = s1  # suffix hyp[pos:s1] + hyp[s1+length:] is represented by (pv, mv)
                for a in range(g1 - 1, g0 - 1, -1):
                    p = cand_p[order[a]]
                    if p >= s1 or (a < g1 - 1 and cand_p[order[a + 1]] == p):
                        continue
                    bound = min(2 * min(length, s1 - p), group_bound)
                    if bound < 1 or (have_best and bound < best_gain):
                        continue
                    ins = _inserted_distance(f_pv, f_mv, bwd, peq, hyp, s1, length, p, last_bit, qv, nv,
                                             vcache, cand_s2[order[a]], 0)
                    bound = min(bound, pre - ins + length)
                    if bound < 1 or (have_best and bound < best_gain):
                        continue
                    if have_best and bound == best_gain and not _cand_greater(hyp, s1, length, p, best):
                        continue
                    while pos > p:
                        pos -= 1
                        _advance(pv, mv, peq_rev[hyp[pos]], last_bit)
                    qv[:] = pv
                    nv[:] = mv
                    for t in range(length - 1, -1, -1):
                        _advance(qv, nv, peq_rev[hyp[s1 + t]], last_bit)
                    score = _combine_backward(qv, nv, n - p, fwd[p], m)
                    gain = pre - score
                    if gain >= 1 and ((not have_best) or gain > best_gain
                                      or (gain == best_gain and _cand_greater(hyp, s1, length, p, best))):
                        have_best = True
                        best_gain = gain
                        best_lo = p
                        best_hi = s1 + length
                        for i in range(n):
                            best[i] = _cand_at(hyp, s1, length, p, i)
                g0 = g1
        if not have_best:
            return hyp
        hyp[:] = best
        changed_lo = best_lo
        changed_hi = best_hi


@njit(cache=True, nogil=True)
def shift_cost(shifted: np.ndarray, original: np.ndarray, word_len: np.ndarray) -> float:
    """The reference's ``_shift_cost(shifted_words, original_words)`` (average character length of each shifted
    run), on word ids with ``word_len[id]`` = number of characters of the word."""
    n = shifted.shape[0]
    cost = 0.0
    os_ = 0
    while os_ < n:
        avg = 0.0
        oi = os_
        if original[os_] == shifted[os_]:
            os_ += 1
            continue
        for ss in range(os_ + 1, n):
            if original[os_] == shifted[ss]:
                length = 1
                for pos in range(1, n - oi):
                    if ss + pos < n and original[oi + pos] == shifted[ss + pos]:
                        length += 1
                        if os_ + 1 < n:
                            os_ += 1
                    else:
                        break
                chars = 0
                for idx in range(length):
                    chars += word_len[original[oi + idx]]
                avg = chars / length
                break
        cost += avg
        os_ += 1
    return cost


@njit(cache=True, nogil=True)
def _joined(words: np.ndarray, wchars: np.ndarray, woff: np.ndarray, space: int) -> np.ndarray:
    """Character ids of ``" ".join(words)`` from the flat per-word character ids."""
    n = words.shape[0]
    total = max(0, n - 1)
    for i in range(n):
        total += woff[words[i] + 1] - woff[words[i]]
    out = np.empty(total, np.int64)
    k = 0
    for i in range(n):
        if i > 0:
            out[k] = space
            k += 1
        for c in range(woff[words[i]], woff[words[i] + 1]):
            out[k] = wchars[c]
            k += 1
    return out


@njit(cache=True, nogil=True)
def character_pair(h: np.ndarray, r: np.ndarray, woff: np.ndarray, wchars: np.ndarray, space: int,
                   n_chars: int) -> float:
    """CharacTER (0..1) of one hypothesis/reference pair of word-id sequences (see the module docstring).

    Word ``i`` of the segment vocabulary has the character ids ``wchars[woff[i]:woff[i+1]]``; ``space`` is the
    character id of the blank and character ids are below ``n_chars``.
    """
    n = h.shape[0]
    if n == 0:
        return 0.0 if r.shape[0] == 0 else 1.0
    word_len = woff[1:] - woff[:-1]
    shifted = shift_search(h, r, word_len.shape[0])
    cost = shift_cost(shifted, h, word_len)
    hyp_chars = _joined(shifted, wchars, woff, space)
    ref_chars = _joined(r, wchars, woff, space)
    edit = levenshtein(hyp_chars, ref_chars, n_chars)
    return min(1.0, (edit + cost) / hyp_chars.shape[0])


@njit(cache=True, nogil=True)
def _character_batch(ids: np.ndarray, hyp_start: np.ndarray, hyp_end: np.ndarray, ref_start: np.ndarray,
                     ref_end: np.ndarray, voc_start: np.ndarray, voc_end: np.ndarray, woff: np.ndarray,
                     wchars: np.ndarray, n_chars: np.ndarray, out: np.ndarray) -> None:
    """``out[k]`` = CharacTER of pair ``k`` (slices of the flat arrays built by :func:`_encode`)."""
    for k in range(out.shape[0]):
        out[k] = character_pair(ids[hyp_start[k]:hyp_end[k]], ids[ref_start[k]:ref_end[k]],
                                woff[voc_start[k]:voc_end[k]], wchars, 0, n_chars[k])


class _Encoded:
    """Flat integer encoding of (hypothesis, reference) pairs for :func:`_character_batch`.

    Per segment, the vocabulary (hypothesis and reference tokens) is sorted by code point, so that comparing
    word-id sequences equals Python's comparison of the word lists; characters get segment-local ids with the blank
    as id 0.
    """

    def __init__(self, hyps: Sequence[str], seg_refs: Sequence[Sequence[str]]):
        ids: list[int] = []
        woff: list[int] = []
        wchars: list[int] = []
        cols: dict[str, list[int]] = {k: [] for k in ("hs", "he", "rs", "re", "vs", "ve", "nc", "seg")}
        for i, (hyp, refs) in enumerate(zip(hyps, seg_refs, strict=True)):
            h_tokens = _tokens(hyp)
            r_tokens = [_tokens(r) for r in refs]
            vocab = sorted(set(h_tokens).union(*r_tokens))
            word_id = {w: k for k, w in enumerate(vocab)}
            char_id: dict[str, int] = {" ": 0}
            v0 = len(woff)
            woff.append(len(wchars))
            for w in vocab:
                wchars.extend(char_id.setdefault(c, len(char_id)) for c in w)
                woff.append(len(wchars))
            v1 = len(woff)
            h0 = len(ids)
            ids.extend(word_id[w] for w in h_tokens)
            h1 = len(ids)
            for rt in r_tokens:
                r0 = len(ids)
                ids.extend(word_id[w] for w in rt)
                for key, value in (("hs", h0), ("he", h1), ("rs", r0), ("re", len(ids)), ("vs", v0), ("ve", v1),
                                   ("seg", i)):
                    cols[key].append(value)
            cols["nc"].extend([len(char_id)] * len(r_tokens))
        self.ids = np.asarray(ids, dtype=np.int64)
        self.woff = np.asarray(woff, dtype=np.int64)
        self.wchars = np.asarray(wchars, dtype=np.int64)
        self.cols = {k: np.asarray(v, dtype=np.int64) for k, v in cols.items()}

    @property
    def n_pairs(self) -> int:
        return len(self.cols["hs"])

    def run(self, lo: int, hi: int, out: np.ndarray) -> None:
        """Score pairs ``lo:hi`` into ``out[lo:hi]`` (releases the GIL while computing)."""
        c = self.cols
        _character_batch(self.ids, c["hs"][lo:hi], c["he"][lo:hi], c["rs"][lo:hi], c["re"][lo:hi],
                         c["vs"][lo:hi], c["ve"][lo:hi], self.woff, self.wchars, c["nc"][lo:hi], out[lo:hi])


_CHUNK_PAIRS = 64


def character_scores(hyps: Sequence[str], seg_refs: Sequence[Sequence[str]], n_jobs: int | None = 1) -> np.ndarray:
    """CharacTER (0..1) per segment, the minimum over each segment's references; ``n_jobs`` threads (``None`` =
    all usable cores) score chunks of pairs concurrently — the result does not depend on it."""
    enc = _Encoded(hyps, seg_refs)
    n_pairs = enc.n_pairs
    pair_scores = np.empty(n_pairs, dtype=np.float64)
    jobs = resolve_jobs(n_jobs)
    if jobs == 1 or n_pairs <= _CHUNK_PAIRS:
        if n_pairs:
            enc.run(0, n_pairs, pair_scores)
    else:
        with ThreadPoolExecutor(max_workers=min(jobs, math.ceil(n_pairs / _CHUNK_PAIRS))) as pool:
            list(pool.map(lambda lo: enc.run(lo, min(lo + _CHUNK_PAIRS, n_pairs), pair_scores),
                          range(0, n_pairs, _CHUNK_PAIRS)))
    best = np.full(len(hyps), np.inf)
    np.minimum.at(best, enc.cols["seg"], pair_scores)
    return best


def character_sentence(hyp: str, refs: Sequence[str]) -> float:
    """CharacTER (0..1) of a token string against its references: the minimum over the references."""
    return float(character_scores([hyp], [list(refs)])[0])


class CharacTER(SentenceMeanMetric):
    """CharacTER × 100 (lower is better); corpus score = mean sentence score, statistics ``[100 · score, 1]``.

    See the module docstring for the exact definition (reference-implementation shift search and shift cost,
    character Levenshtein distance over the space-joined tokens, normalised by the hypothesis length incl. spaces,
    capped at 1, best reference).

    Args:
        n_jobs: worker threads for :meth:`segment_statistics` (``None`` = all usable cores); the statistics do not
            depend on it.
    """

    def __init__(self, n_jobs: int | None = None) -> None:
        self.n_jobs = n_jobs
        resolve_jobs(n_jobs)
        self.info = MetricInfo(
            name="character",
            label="CharacTER",
            group="extended",
            higher_is_better=False,
            corpus_definition="mean of the sentence CharacTER scores × 100 (as the reference script); statistics "
                              "(score, 1)",
            options={},
        )

    def segment_statistics(self, hyps: Sequence[str], refs: Sequence[Sequence[str | None]]) -> np.ndarray:
        """``(n, 2)`` rows ``[100 · CharacTER, 1]``."""
        seg_refs = segment_references(hyps, refs)
        out = np.ones((len(hyps), 2), dtype=np.float64)
        out[:, 0] = 100.0 * character_scores(hyps, seg_refs, self.n_jobs)
        return out

    def signature(self, nrefs: int) -> str:
        """E.g. ``character|nrefs:1|shift:rwth-i6|norm:hyp-chars|space:counted|cap:1|version:1``."""
        return f"character|nrefs:{nrefs}|shift:rwth-i6|norm:hyp-chars|space:counted|cap:1|version:1"
