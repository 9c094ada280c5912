"""The numba kernels of CharacTER (:mod:`korean_eval.metrics.character`): the reference's greedy word-shift search,
its shift cost and the score of one (hypothesis, reference) pair of word-id sequences (``docs/design.md §3``).

Exactness and speed. The search is the reference algorithm (defined in :mod:`korean_eval.metrics.character`),
computed exactly with three devices that never change its result:

* bit-parallel Levenshtein distance over the words (Myers 1999, multi-word blocks of 64 reference tokens), with
  the states after the prefixes of the current hypothesis kept (at checkpoint rows once they exceed a byte budget,
  the rows between recomputed from them: the same numbers), because a candidate shares the hypothesis prefix
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

Memory per pair is bounded: ``O(n + m)`` plus the budgets :data:`STATE_BYTES` (checkpoint columns) and
:data:`ROW_BYTES` (decoded rows, twice: forward and backward), never ``O(n · m)``; see
:func:`shift_search_bounded` and :mod:`korean_eval.metrics.kernels.levenshtein`. Time is not linear: every shift round
enumerates the ``≈ n · m / |Σ|`` word matches and decodes two ``O(m)`` rows per (start, phrase length) group
that survives the gain bounds, so a round costs ``Θ(n · m)`` word operations; this is what limits CharacTER at
paragraph length (``benchmarks/README.md``, ``docs/design.md §3``).

The kernels are compiled with numba (``cache=True``, ``nogil=True``, so several threads can run them at once);
:func:`shift_search_simple` is an independent, more direct version kept for the tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from korean_eval.metrics.kernels.levenshtein import (
    ALL_ONES,
    ONE,
    advance,
    advance_through,
    backward_at,
    checkpoint_stride,
    combine_backward,
    combine_forward,
    eq_table,
    fill_backward_row,
    fill_forward_row,
    forward_at,
    levenshtein,
    load_column,
    match_masks,
    new_checkpoints,
    refresh_checkpoints,
    row_slots,
    symbol_positions,
)

# Memory of one pair's search (korean_eval.metrics.kernels.levenshtein): bit-parallel columns kept at checkpoint rows, and
# decoded rows cached per direction; within these budgets every row is kept.
STATE_BYTES = 1 << 26
ROW_BYTES = 1 << 25


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
def phrase_length(hyp: np.ndarray, r: np.ndarray, s1: int, s2: int) -> int:
    """The reference's phrase length of the match ``hyp[s1] == r[s2]``: the longest run ``hyp[s1+t] == r[s2+t]``
    (``couples`` in ``CharacTER.py``)."""
    n = hyp.shape[0]
    m = r.shape[0]
    length = 1
    for step in range(1, n - s1):
        if s2 + step < m and hyp[s1 + step] == r[s2 + step]:
            length += 1
        else:
            break
    return length


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
            sc_hist[k + 1] = sc_hist[k] + advance(pv, mv, peq, hyp[k], last_bit)
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
                length = phrase_length(hyp, r, s1, s2)
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
                    score += advance(pv, mv, peq, cand[k], last_bit)
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
def _absorb(pv: np.ndarray, mv: np.ndarray, out_pv: np.ndarray, out_mv: np.ndarray, hyp: np.ndarray, s1: int,
            length: int, reverse: bool, masks: np.ndarray, index: np.ndarray) -> None:
    """``(out_pv, out_mv)`` = the column ``(pv, mv)`` after the block ``hyp[s1:s1+length]`` (``reverse``: its
    symbols last to first)."""
    out_pv[:] = pv
    out_mv[:] = mv
    if reverse:
        advance_through(out_pv, out_mv, masks, index, hyp, s1 + length - 1, length, -1)
    else:
        advance_through(out_pv, out_mv, masks, index, hyp, s1, length, 1)


@njit(cache=True, nogil=True)
def _offer(hyp: np.ndarray, best: np.ndarray, result: np.ndarray, gain: int, s1: int, length: int, p: int,
           lo: int, hi: int) -> None:
    """Keep the candidate in ``best`` if it wins the reference's sort so far (largest gain, then largest list;
    gain >= 1); ``result`` = [have best, best gain, best's changed span lo, hi]."""
    if gain >= 1 and (result[0] == 0 or gain > result[1]
                      or (gain == result[1] and _cand_greater(hyp, s1, length, p, best))):
        result[0] = 1
        result[1] = gain
        result[2] = lo
        result[3] = hi
        for i in range(hyp.shape[0]):
            best[i] = _cand_at(hyp, s1, length, p, i)


@njit(cache=True, nogil=True)
def _candidates(hyp: np.ndarray, r: np.ndarray, s1: int, positions: np.ndarray, cand_l: np.ndarray,
                cand_p: np.ndarray, cand_s2: np.ndarray, order: np.ndarray) -> int:
    """The candidates of start ``s1`` (``positions``: where ``hyp[s1]`` occurs in ``r``): every ``s2 != s1`` with
    its phrase length and insertion index ``min(s2, n - L)``; returns their number, ``order`` sorting them by
    ``(length, p)`` (so that each group of one length streams in one direction)."""
    n = hyp.shape[0]
    nc = 0
    for s2 in positions:
        if s1 == s2:
            continue
        length = phrase_length(hyp, r, s1, s2)
        cand_l[nc] = length
        cand_p[nc] = min(s2, n - length)
        cand_s2[nc] = s2
        nc += 1
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
    return nc


@njit(cache=True, nogil=True)
def _inserted_distance(at: int, hyp: np.ndarray, s1: int, length: int, f_masks: np.ndarray, f_index: np.ndarray,
                       f_ck: np.ndarray, b_masks: np.ndarray, b_index: np.ndarray, b_ck: np.ndarray, stride: int,
                       f_cur: np.ndarray, b_cur: np.ndarray, b_rows: np.ndarray, b_tag: np.ndarray,
                       c_pv: np.ndarray, c_mv: np.ndarray, vcache: np.ndarray, s2: int, side: int) -> int:
    """``ED(hyp[:at] + B + hyp[at:], r)`` for the block ``B = hyp[s1:s1+length]``: forward row ``at`` (cursor 1)
    absorbing ``B``, combined with backward row ``at`` (decoded into its cache slot if missing). Memoised for
    one-word blocks in ``vcache[s2, side]`` (``B = [r[s2]]``; ``side`` 1: ``p > s1``, 0: ``p < s1``, which with
    ``s2`` determines ``at``)."""
    if length == 1 and vcache[s2, side] >= 0:
        return vcache[s2, side]
    bs = at % b_tag.shape[0]
    if b_tag[bs] != at:
        fill_backward_row(at, hyp, b_masks, b_index, b_ck, stride, b_cur, 1, b_rows, b_tag)
    load_column(f_ck, forward_at(at, hyp, f_masks, f_index, f_ck, stride, f_cur, 1), c_pv, c_mv)
    advance_through(c_pv, c_mv, f_masks, f_index, hyp, s1, length, 1)
    d = combine_forward(c_pv, c_mv, at + length, b_rows, bs)
    if length == 1:
        vcache[s2, side] = d
    return d


@njit(cache=True, nogil=True)
def shift_search(h: np.ndarray, r: np.ndarray, n_symbols: int) -> np.ndarray:
    """The reference's greedy word-shift search (``cer``'s ``while True: shifter(...)`` loop); returns the final
    shifted hypothesis (word ids). :func:`shift_search_bounded` with :data:`STATE_BYTES` and :data:`ROW_BYTES`,
    passed as plain ``int64`` values: a module constant would be typed as a literal and compile a specialisation of
    its own, so a direct call with other budgets (tests/unit/metrics/kernels/test_character_bounded_search.py) would compile the search again
    instead of loading the one ``korean-eval compile`` cached."""
    return shift_search_bounded(h, r, n_symbols, np.int64(STATE_BYTES), np.int64(ROW_BYTES))


@njit(cache=True, nogil=True)
def shift_search_bounded(h: np.ndarray, r: np.ndarray, n_symbols: int, state_bytes: int,
                         row_bytes: int) -> np.ndarray:
    """The reference's greedy word-shift search, keeping about ``state_bytes`` of bit-parallel checkpoint columns
    and ``row_bytes`` of decoded rows per direction (:mod:`korean_eval.metrics.kernels.levenshtein`; the result does not
    depend on them). See the module docstring for the definition and the pruning.

    A candidate moving ``B = hyp[s1:s1+L]`` to index ``p`` is scored without re-running the whole distance:

    * ``p > s1``: the candidate is ``hyp[:s1] + hyp[s1+L:p+L] + B + hyp[p+L:]``. For fixed ``(s1, L)`` the
      forward bit-parallel column is streamed from row ``s1`` through ``hyp[s1+L:]``; at each target ``p`` a copy
      absorbs ``B`` and is combined with backward row ``p + L``: ``ED = min_j D[p+L][j] + ED(hyp[p+L:], r[j:])``.
    * ``p < s1``: the candidate is ``hyp[:p] + B + hyp[p:s1] + hyp[s1+L:]``. A backward column (reversed strings)
      is streamed from row ``s1+L`` through ``hyp[s1-1], …, hyp[p]``; a copy absorbs ``B`` reversed and is
      combined with forward row ``p``: ``ED = min_j ED(hyp[:p], r[:j]) + ED(suffix, r[j:])``.

    The distance of the hypothesis with ``B`` inserted at the target (forward row ``at`` absorbing ``B``,
    combined with backward row ``at``) bounds the candidate's: it is that sequence with the original ``B``
    deleted, so ``ED(cand) >= ED(inserted) - L`` (:func:`_inserted_distance`). Row caches are checked in line;
    the kernels of :mod:`korean_eval.metrics.kernels.levenshtein` are called on a miss.
    """
    n = h.shape[0]
    m = r.shape[0]
    hyp = h.copy()
    if n == 0 or m == 0:
        return hyp
    f_masks, f_index = eq_table(r, n_symbols)
    b_masks, b_index = eq_table(r[::-1].copy(), n_symbols)
    nblocks = f_masks.shape[1]
    stride = checkpoint_stride(n, m, state_bytes)
    # cursors: forward [0] row s1, [1] a target row, [2] rows being decoded; backward [0] row s1 + L, [1] rows
    # being decoded (f_cur / b_cur: the row each holds, -1: none)
    f_ck, b_ck, f_score, b_score = new_checkpoints(n, m, stride, 3)
    f_cur = np.full(3, -1, np.int64)
    b_cur = np.full(2, -1, np.int64)
    slots = row_slots(n, m, row_bytes)
    f_rows = np.empty((slots, m + 1), np.int32)
    b_rows = np.empty((slots, m + 1), np.int32)
    f_tag = np.full(slots, -1, np.int64)
    b_tag = np.full(slots, -1, np.int64)
    s_pv = np.empty(nblocks, np.uint64)  # the streamed column
    s_mv = np.empty(nblocks, np.uint64)
    c_pv = np.empty(nblocks, np.uint64)  # a copy absorbing the block
    c_mv = np.empty(nblocks, np.uint64)
    best = np.empty(n, h.dtype)
    result = np.zeros(4, np.int64)  # have best, best gain, best's changed span [lo, hi)
    cand_l = np.empty(m, np.int64)
    cand_p = np.empty(m, np.int64)
    cand_s2 = np.empty(m, np.int64)
    order = np.empty(m, np.int64)
    vcache = np.empty((m, 2), np.int64)  # ED(inserted) of the one-word block r[s2] per (s2, side)
    changed_lo = 0  # hyp[changed_lo:changed_hi] differs from the previous round's hypothesis
    changed_hi = n
    while True:
        # checkpoints, distances and cached rows of the current hypothesis: forward rows > changed_lo and
        # backward rows < changed_hi depend on the changed span; the others are unchanged from the previous round
        refresh_checkpoints(hyp, changed_lo, changed_hi, stride, f_ck, b_ck, f_score, b_score, f_masks, f_index,
                            b_masks, b_index, s_pv, s_mv)
        for slot in range(slots):
            if f_tag[slot] > changed_lo:
                f_tag[slot] = -1
            if b_tag[slot] < changed_hi:
                b_tag[slot] = -1
        f_cur[:] = -1
        b_cur[:] = -1
        pre = f_score[n]
        result[:] = 0
        vcache[:, :] = -1
        for s1 in range(n):
            nc = _candidates(hyp, r, s1, symbol_positions(f_index, hyp[s1]), cand_l, cand_p, cand_s2, order)
            g0 = 0
            while g0 < nc:
                length = cand_l[order[g0]]
                g1 = g0
                while g1 < nc and cand_l[order[g1]] == length:
                    g1 += 1
                # candidates of this (s1, length) are order[g0:g1], p ascending. Group bound: the candidate is the
                # reduced hypothesis (B removed) plus L insertions, so ED(cand) >= ED(reduced) - L.
                if result[0] == 1 and 2 * length < result[1]:  # every candidate's gain is at most 2L
                    g0 = g1
                    continue
                fs = s1 % slots
                if f_tag[fs] != s1:
                    fill_forward_row(s1, hyp, f_masks, f_index, f_ck, stride, f_cur, 2, f_rows, f_tag)
                bs = (s1 + length) % slots
                if b_tag[bs] != s1 + length:
                    fill_backward_row(s1 + length, hyp, b_masks, b_index, b_ck, stride, b_cur, 1, b_rows, b_tag)
                reduced = np.int64(f_rows[fs, 0]) + np.int64(b_rows[bs, 0])
                for j in range(1, m + 1):
                    v = np.int64(f_rows[fs, j]) + np.int64(b_rows[bs, j])
                    if v < reduced:
                        reduced = v
                group_bound = pre - reduced + length
                if group_bound < 1 or (result[0] == 1 and group_bound < result[1]):
                    g0 = g1
                    continue
                # forward stream for p > s1 (ascending)
                load_column(f_ck, forward_at(s1, hyp, f_masks, f_index, f_ck, stride, f_cur, 0), s_pv, s_mv)
                pos = s1  # candidate prefix length represented by the stream
                for a in range(g0, g1):
                    p = cand_p[order[a]]
                    if p <= s1 or (a > g0 and cand_p[order[a - 1]] == p):
                        continue
                    bound = min(2 * min(length, p - s1), group_bound)
                    if bound < 1 or (result[0] == 1 and bound < result[1]):
                        continue
                    at = p + length
                    bs = at % slots
                    if b_tag[bs] != at:
                        fill_backward_row(at, hyp, b_masks, b_index, b_ck, stride, b_cur, 1, b_rows, b_tag)
                    s2 = cand_s2[order[a]]
                    ins = _inserted_distance(at, hyp, s1, length, f_masks, f_index, f_ck, b_masks, b_index, b_ck,
                                             stride, f_cur, b_cur, b_rows, b_tag, c_pv, c_mv, vcache, s2, 1)
                    bound = min(bound, pre - ins + length)
                    if bound < 1 or (result[0] == 1 and bound < result[1]):
                        continue
                    if result[0] == 1 and bound == result[1] and not _cand_greater(hyp, s1, length, p, best):
                        continue
                    advance_through(s_pv, s_mv, f_masks, f_index, hyp, pos + length, p - pos, 1)
                    pos = p
                    _absorb(s_pv, s_mv, c_pv, c_mv, hyp, s1, length, False, f_masks, f_index)
                    score = combine_forward(c_pv, c_mv, at, b_rows, bs)
                    _offer(hyp, best, result, pre - score, s1, length, p, s1, at)
                # backward stream for p < s1 (descending)
                load_column(b_ck, backward_at(s1 + length, hyp, b_masks, b_index, b_ck, stride, b_cur, 0), s_pv,
                            s_mv)
                pos = s1  # the stream represents hyp[pos:s1] + hyp[s1+length:]
                for a in range(g1 - 1, g0 - 1, -1):
                    p = cand_p[order[a]]
                    if p >= s1 or (a < g1 - 1 and cand_p[order[a + 1]] == p):
                        continue
                    bound = min(2 * min(length, s1 - p), group_bound)
                    if bound < 1 or (result[0] == 1 and bound < result[1]):
                        continue
                    s2 = cand_s2[order[a]]
                    ins = _inserted_distance(p, hyp, s1, length, f_masks, f_index, f_ck, b_masks, b_index, b_ck,
                                             stride, f_cur, b_cur, b_rows, b_tag, c_pv, c_mv, vcache, s2, 0)
                    bound = min(bound, pre - ins + length)
                    if bound < 1 or (result[0] == 1 and bound < result[1]):
                        continue
                    if result[0] == 1 and bound == result[1] and not _cand_greater(hyp, s1, length, p, best):
                        continue
                    advance_through(s_pv, s_mv, b_masks, b_index, hyp, pos - 1, pos - p, -1)
                    pos = p
                    _absorb(s_pv, s_mv, c_pv, c_mv, hyp, s1, length, True, b_masks, b_index)
                    fs = p % slots
                    if f_tag[fs] != p:
                        fill_forward_row(p, hyp, f_masks, f_index, f_ck, stride, f_cur, 2, f_rows, f_tag)
                    score = combine_backward(c_pv, c_mv, n - p, f_rows, fs)
                    _offer(hyp, best, result, pre - score, s1, length, p, p, s1 + length)
                g0 = g1
        if result[0] == 0:
            return hyp
        hyp[:] = best
        changed_lo = result[2]
        changed_hi = result[3]


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
