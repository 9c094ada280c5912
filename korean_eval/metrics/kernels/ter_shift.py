"""The shift search of the fast TER: candidate enumeration, the choice of the best shift and the number of edits
of one (hypothesis, reference) pair of token-id arrays, as numba kernels (what they reproduce of sacrebleu 2.6.0's
``lib_ter``: :mod:`korean_eval.metrics.fast_ter`; why it is exact: docs/design.md §3, "The fast TER"); the beam
edit distance they use is :mod:`korean_eval.metrics.kernels.ter_band`.

Two exact savings over scoring every candidate of every round from scratch (``docs/design.md §3``):

* after a shift that changed positions ``[w0, w1)``, only the forward rows below ``w0`` and the backward rows above
  ``w1`` are recomputed (the others depend on an unchanged prefix or suffix);
* a candidate is scored only if an upper bound on its gain could beat the best key found so far
  (:func:`_gain_bounds`; candidates are taken by decreasing bound), which never changes the shift chosen.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from korean_eval.metrics.kernels.levenshtein import levenshtein
from korean_eval.metrics.kernels.ter_band import (
    CHECKPOINT_CELLS,
    INF,
    backward_round,
    beam_bounds,
    candidate_distance,
    checkpoints,
    forward_round,
    trace_alignment,
)

# Limits from sacrebleu.metrics.lib_ter (Tercom-inspired).
_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_MAX_SHIFT_CANDIDATES = 1000

# References up to this many tokens get the exact gain bound (64 words of 64 bits per hypothesis token).
_BOUND_MAX_REF = 4096

__all__ = ["CHECKPOINT_CELLS", "ter_batch", "ter_pair"]


@njit(cache=True, nogil=True)
def _enumerate_candidates(cur: np.ndarray, r: np.ndarray, align: np.ndarray, hyp_cum: np.ndarray,
                          ref_cum: np.ndarray, checked: int, cand_s: np.ndarray, cand_l: np.ndarray,
                          cand_t: np.ndarray) -> tuple[int, int, bool]:
    """This round's candidates in sacrebleu's order (``_find_shifted_pairs`` + the Tercom filters of ``_shift``);
    returns ``(number of candidates, checked candidates so far, budget exhausted)``.

    A start ``sh`` (``sr``) whose next ``_MAX_SHIFT_SIZE`` hypothesis (reference) positions hold no error yields
    no candidate (both spans must contain errors), so it is skipped without changing the enumeration."""
    n = cur.shape[0]
    m = r.shape[0]
    n_cand = 0
    for sh in range(n):
        if hyp_cum[min(n, sh + _MAX_SHIFT_SIZE)] == hyp_cum[sh]:
            continue
        for sr in range(max(0, sh - _MAX_SHIFT_DIST), min(m, sh + _MAX_SHIFT_DIST + 1)):
            if ref_cum[min(m, sr + _MAX_SHIFT_SIZE)] == ref_cum[sr]:
                continue
            length = 0
            while length < _MAX_SHIFT_SIZE and cur[sh + length] == r[sr + length]:
                length += 1
                if (hyp_cum[sh + length] != hyp_cum[sh] and ref_cum[sr + length] != ref_cum[sr]
                        and not (sh <= align[sr] < sh + length)):
                    prev_idx = -1
                    for offset in range(-1, length):
                        idx = 0 if sr + offset == -1 else align[sr + offset] + 1
                        if idx == prev_idx:
                            continue
                        prev_idx = idx
                        cand_s[n_cand] = sh
                        cand_l[n_cand] = length
                        cand_t[n_cand] = idx
                        n_cand += 1
                        checked += 1
                    if checked >= _MAX_SHIFT_CANDIDATES:
                        return n_cand, checked, True
                if n == sh + length or m == sr + length:
                    break
    return n_cand, checked, False


@njit(cache=True, nogil=True)
def _shift_window(w: np.ndarray, s: int, length: int, t: int, out: np.ndarray) -> tuple[int, int]:
    """Write sacrebleu's ``_perform_shift(w, s, length, t)`` (Python slice semantics) into ``out`` where it can
    differ from ``w``, and return that window ``[w0, w1)`` (``out`` is left untouched elsewhere)."""
    n = w.shape[0]
    if t < s:
        out[t:t + length] = w[s:s + length]
        out[t + length:s + length] = w[t:s]
        return t, s + length
    if t > s + length:
        out[s:t - length] = w[s + length:t]
        out[t - length:t] = w[s:s + length]
        return s, t
    e = min(length + t, n)
    mid = e - (s + length)
    out[s:s + mid] = w[s + length:e]
    out[s + mid:s + mid + length] = w[s:s + length]
    return s, e


@njit(cache=True, nogil=True)
def _moved_distance(s: int, length: int, t: int, n: int) -> int:
    """How many tokens the block ``[s, s + length)`` moves past in sacrebleu's ``_perform_shift`` (0: no change)."""
    if t < s:
        return s - t
    if t > s + length:
        return t - s - length
    return min(length + t, n) - (s + length)


@njit(cache=True, nogil=True)
def _beats_tie(length: int, s: int, t: int, best_l: int, best_s: int, best_t: int) -> bool:
    """Whether ``(length, -s, -t)`` is greater than ``(best_l, -best_s, -best_t)`` (sacrebleu's tie order)."""
    return length > best_l or (length == best_l and (s < best_s or (s == best_s and t < best_t)))


@njit(cache=True, nogil=True)
def _gain_bounds(cur: np.ndarray, r: np.ndarray, pre_score: int, n_cand: int, cand_s: np.ndarray,
                 cand_l: np.ndarray, cand_t: np.ndarray, bound: np.ndarray) -> None:
    """``bound[c]`` ≥ the gain ``pre_score - D(candidate c)`` of every candidate (``D`` the beam distance).

    ``D(h') ≥ lev(h', r) ≥ lev(h, r) - lev(h, h')`` (a beam restricts the paths; the triangle inequality of the
    Levenshtein distance ``lev``), and moving a block of ``L`` tokens past ``d`` tokens is undone by ``2 · min(L,
    d)`` insertions and deletions; so ``gain ≤ (pre_score - lev(h, r)) + 2 · min(L, d)``, with ``lev`` computed
    exactly by Myers' bit-parallel algorithm (:func:`korean_eval.metrics.kernels.levenshtein.levenshtein`) while the
    reference has at most :data:`_BOUND_MAX_REF` tokens; that costs ``n · ⌈m / 64⌉`` word operations, about
    a round of the band (``n · 50`` cells) there, but quadratic beyond, so a longer reference goes without the
    bound (slack ``pre_score``, which skips nothing)."""
    n = cur.shape[0]
    if r.shape[0] <= _BOUND_MAX_REF:
        slack = pre_score - levenshtein(cur, r, max(cur.max(), r.max()) + 1)
    else:
        slack = pre_score  # lev ≥ 0: a bound that skips nothing, at no cost
    for c in range(n_cand):
        bound[c] = slack + 2 * min(cand_l[c], _moved_distance(cand_s[c], cand_l[c], cand_t[c], n))


@njit(cache=True, nogil=True)
def _best_shift(cur: np.ndarray, shifted: np.ndarray, r: np.ndarray, pre_score: int, n_cand: int,
                cand_s: np.ndarray, cand_l: np.ndarray, cand_t: np.ndarray, bound: np.ndarray,
                lo: np.ndarray, hi: np.ndarray, stride: int, ck_off: np.ndarray, f_ck: np.ndarray,
                b_ck: np.ndarray, buf_x: np.ndarray, buf_y: np.ndarray, buf_z: np.ndarray) -> tuple[bool, int, int, int]:
    """sacrebleu's choice among this round's candidates: the largest key ``(gain, length, -start_h, -target)``
    with a positive gain, or ``found = False``. Candidates are scored by decreasing :func:`_gain_bounds`; one
    whose bound cannot beat the best key so far is not scored (its key is no larger), so the choice is the one
    scoring every candidate would make."""
    _gain_bounds(cur, r, pre_score, n_cand, cand_s, cand_l, cand_t, bound)
    found = False
    best_score, best_l, best_s, best_t = 0, 0, 0, 0
    for c in np.argsort(-bound[:n_cand], kind="mergesort"):  # stable: enumeration order within a bound
        s, length, t = cand_s[c], cand_l[c], cand_t[c]
        if bound[c] < best_score or bound[c] <= 0:
            break  # every later candidate has a bound at most this one's
        if found and bound[c] == best_score and not _beats_tie(length, s, t, best_l, best_s, best_t):
            continue
        w0, w1 = _shift_window(cur, s, length, t, shifted)
        score = pre_score - candidate_distance(cur, shifted, w0, w1, r, lo, hi, stride, ck_off, f_ck, b_ck,
                                                pre_score, buf_x, buf_y, buf_z)
        shifted[w0:w1] = cur[w0:w1]
        if score > 0 and (not found or score > best_score or (
                score == best_score and _beats_tie(length, s, t, best_l, best_s, best_t))):
            found = True
            best_score, best_l, best_s, best_t = score, length, s, t
    return found, best_s, best_l, best_t


@njit(cache=True, nogil=True)
def ter_pair(h: np.ndarray, r: np.ndarray, checkpoint_cells: int) -> int:
    """Number of TER edits (shifts + edit distance) of hypothesis ids ``h`` against reference ids ``r``;
    ``checkpoint_cells`` bounds the checkpoint rows kept (:data:`CHECKPOINT_CELLS` in :func:`ter_batch`; the
    result does not depend on it).

    After a shift that changed positions ``[w0, w1)``, the forward rows up to ``w0`` and the backward rows from
    ``w1`` on are those of the shifted hypothesis already (row ``i`` of ``F`` depends on ``h[:i]`` only, of ``B``
    on ``h[i:]`` only): the next round recomputes them from the nearest checkpoint."""
    n = h.shape[0]
    m = r.shape[0]
    if m == 0:
        return n
    if n == 0:
        return m
    lo, hi, off = beam_bounds(n, m)
    stride, ck_off = checkpoints(lo, hi, off, checkpoint_cells)
    ops = np.empty(off[n + 1], np.uint8)
    f_ck = np.empty(ck_off[-1], np.int64)
    b_ck = np.empty(ck_off[-1], np.int64)
    buf_x = np.full(m + 1, INF, np.int64)
    buf_y = np.full(m + 1, INF, np.int64)
    buf_z = np.full(m + 1, INF, np.int64)
    cur = h.copy()
    shifted = h.copy()  # equal to cur outside the window of the candidate being scored
    trace = np.empty(n + m, np.uint8)
    align = np.empty(m, np.int64)
    hyp_cum = np.empty(n + 1, np.int64)
    ref_cum = np.empty(m + 1, np.int64)
    cap = _MAX_SHIFT_CANDIDATES + _MAX_SHIFT_SIZE + 1
    cand_s = np.empty(cap, np.int64)
    cand_l = np.empty(cap, np.int64)
    cand_t = np.empty(cap, np.int64)
    bound = np.empty(cap, np.int64)

    shifts = 0
    checked = 0
    dirty_lo, dirty_hi = 0, n  # positions changed since F and B were computed
    while True:
        f_start = (dirty_lo // stride) * stride
        pre_score = forward_round(cur, r, lo, hi, off, ops, stride, ck_off, f_ck, buf_x, buf_y, f_start)
        trace_alignment(ops, off, lo, hi, m, trace, align, hyp_cum, ref_cum)
        n_cand, checked, exhausted = _enumerate_candidates(cur, r, align, hyp_cum, ref_cum, checked,
                                                           cand_s, cand_l, cand_t)
        if exhausted or n_cand == 0:
            # Budget exhausted: sacrebleu discards this round's best shift. No candidates: no shift.
            break
        b_start = min(n, ((dirty_hi + stride - 1) // stride) * stride)
        backward_round(cur, r, lo, hi, stride, ck_off, b_ck, buf_x, buf_y, b_start)
        found, best_s, best_l, best_t = _best_shift(cur, shifted, r, pre_score, n_cand, cand_s, cand_l, cand_t,
                                                    bound, lo, hi, stride, ck_off, f_ck, b_ck, buf_x, buf_y, buf_z)
        if not found:
            break
        shifts += 1
        dirty_lo, dirty_hi = _shift_window(cur, best_s, best_l, best_t, shifted)
        cur[dirty_lo:dirty_hi] = shifted[dirty_lo:dirty_hi]

    return shifts + pre_score


@njit(cache=True, nogil=True)
def ter_batch(tokens: np.ndarray, hyp_start: np.ndarray, hyp_end: np.ndarray, ref_start: np.ndarray,
               ref_end: np.ndarray, out: np.ndarray) -> None:
    """``out[k]`` = TER edits of pair ``k`` (token-id slices of ``tokens``). :data:`CHECKPOINT_CELLS` is passed as
    a plain ``int64``: a module constant would be typed as a literal and compile a specialisation of its own, so a
    direct call with another budget (tests/unit/metrics/test_fast_ter.py) would compile the kernel again instead of loading the
    one ``korean-eval compile`` cached."""
    cells = np.int64(CHECKPOINT_CELLS)
    for k in range(out.shape[0]):
        out[k] = ter_pair(tokens[hyp_start[k]:hyp_end[k]], tokens[ref_start[k]:ref_end[k]], cells)
