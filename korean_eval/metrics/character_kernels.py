"""The numba kernels of CharacTER (:mod:`korean_eval.metrics.character`): the reference's greedy word-shift search,
its shift cost and the score of one (hypothesis, reference) pair of word-id sequences (``docs/design.md §3``).

Exactness and speed. The search is the reference algorithm (defined in :mod:`korean_eval.metrics.character`),
computed exactly with three devices that never change its result:

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

The kernels are compiled with numba (``cache=True``, ``nogil=True``, so several threads can run them at once);
:func:`shift_search_simple` is an independent, more direct version kept for the tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from korean_eval.metrics.levenshtein import (
    ALL_ONES,
    ONE,
    advance,
    combine_backward,
    combine_forward,
    decode_backward,
    decode_forward,
    levenshtein,
    match_masks,
)


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
    peq = match_masks(r, n_symbols)
    nblocks = peq.shape[1]
    last_bit = ONE << np.uint64((m - 1) & 63)
    pv_hist = np.empty((n + 1, nblocks), np.uint64)
    mv_hist = np.empty((n + 1, nblocks), np.uint64)
    sc_hist = np.empty(n + 1, np.int64)
    pv = np.empty(nblocks, np.uint64)
    mv = np.empty(nblocks, np.uint64)
    cand = np.empty(n, h.dtype)
    best = np.empty(n, h.dtype)
    while True:
        pv_hist[0, :] = ALL_ONES
        mv_hist[0, :] = 0
        sc_hist[0] = m
        for k in range(n):
            pv[:] = pv_hist[k]
            mv[:] = mv_hist[k]
            sc_hist[k + 1] = sc_hist[k] + advance(pv, mv, peq[hyp[k]], last_bit)
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
                    score += advance(pv, mv, peq[cand[k]], last_bit)
                gain = pre - score
                if (not have_best) or gain > best_gain or (gain == best_gain and _greater(cand, best)):
                    have_best = True
                    best_gain = gain
                    best[:] = cand
        if not have_best or best_gain <= 0:
            return hyp
        hyp[:] = best



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
        advance(qv, nv, peq[hyp[s1 + t]], last_bit)
    d = combine_forward(qv, nv, at + length, bwd[at], bwd.shape[1] - 1)
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
    peq = match_masks(r, n_symbols)
    peq_rev = match_masks(r_rev, n_symbols)
    nblocks = peq.shape[1]
    last_bit = ONE << np.uint64((m - 1) & 63)
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
    f_pv[0, :] = ALL_ONES
    f_mv[0, :] = 0
    b_pv[n, :] = ALL_ONES
    b_mv[n, :] = 0
    decode_forward(f_pv[0], f_mv[0], 0, fwd[0], m)
    decode_backward(b_pv[n], b_mv[n], 0, bwd[n], m)
    changed_lo = 0  # hyp[changed_lo:changed_hi] differs from the previous round's hypothesis
    changed_hi = n
    while True:
        # cached states and decoded rows of the current hypothesis: forward rows k > changed_lo and backward rows
        # k < changed_hi depend on the changed span; the others are unchanged from the previous round
        for k in range(changed_lo, n):
            pv[:] = f_pv[k]
            mv[:] = f_mv[k]
            advance(pv, mv, peq[hyp[k]], last_bit)
            f_pv[k + 1] = pv
            f_mv[k + 1] = mv
            decode_forward(pv, mv, k + 1, fwd[k + 1], m)
        for k in range(changed_hi - 1, -1, -1):
            pv[:] = b_pv[k + 1]
            mv[:] = b_mv[k + 1]
            advance(pv, mv, peq_rev[hyp[k]], last_bit)
            b_pv[k] = pv
            b_mv[k] = mv
            decode_backward(pv, mv, n - k, bwd[k], m)
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
                        advance(pv, mv, peq[hyp[pos + length]], last_bit)
                        pos += 1
                    qv[:] = pv
                    nv[:] = mv
                    for t in range(length):
                        advance(qv, nv, peq[hyp[s1 + t]], last_bit)
                    score = combine_forward(qv, nv, p + length, bwd[p + length], m)
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
                        advance(pv, mv, peq_rev[hyp[pos]], last_bit)
                    qv[:] = pv
                    nv[:] = mv
                    for t in range(length - 1, -1, -1):
                        advance(qv, nv, peq_rev[hyp[s1 + t]], last_bit)
                    score = combine_backward(qv, nv, n - p, fwd[p], m)
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
def character_batch(ids: np.ndarray, hyp_start: np.ndarray, hyp_end: np.ndarray, ref_start: np.ndarray,
                     ref_end: np.ndarray, voc_start: np.ndarray, voc_end: np.ndarray, woff: np.ndarray,
                     wchars: np.ndarray, n_chars: np.ndarray, out: np.ndarray) -> None:
    """``out[k]`` = CharacTER of pair ``k`` (slices of the flat arrays built by ``character._Encoded``)."""
    for k in range(out.shape[0]):
        out[k] = character_pair(ids[hyp_start[k]:hyp_end[k]], ids[ref_start[k]:ref_end[k]],
                                woff[voc_start[k]:voc_end[k]], wchars, 0, n_chars[k])
