"""Clipped n-gram matches of a hypothesis against its references, numba-compiled (BLEU's and chrF's counting step).

Definition (Papineni et al. 2002, §2.1 "modified n-gram precision"; Popović 2015 and sacrebleu 2.x's
``CHRF._get_match_statistics`` for chrF with one reference): for a hypothesis ``h`` and references
``r_1 … r_k``, sequences of symbols, and an order ``n``, let ``c_x(g)`` be the number of positions at which the
n-gram ``g`` starts in ``x``. The clipped matches of order ``n`` are

    m_n = Σ_g min(c_h(g), max_j c_{r_j}(g)).

How it is counted, per pair: every text of the pair is laid out in one sequence; an n-gram starting at position
``p`` is identified by the key ``id_{n-1}(p) · V + symbol(p + n - 1)``, where ``id_{n-1}(p)`` is the rank of the
(n−1)-gram at ``p`` among the pair's distinct (n−1)-grams (``id_0`` is the symbol itself) and ``V`` the number of
symbols. A hash table gives each distinct key a rank (in order of first occurrence); occurrences are counted per
rank and text, each rank's ``min(c_h, max_j c_{r_j})`` added, and the rank becomes ``id_n`` for the next order. Cost per order:
one pass over the pair's positions with a hash table of ranks, ``O(T)`` for ``T`` symbols in the pair, with
``O(T · texts)`` memory.

Compiled with ``cache=True, nogil=True`` like the other kernels (:mod:`korean_eval.metrics.kernels.levenshtein`).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _lay_out(symbols, text_start, texts, seq, owner, left):
    """Copy the pair's texts into ``seq``; ``owner[p]`` is the text's place in the pair (0 = hypothesis),
    ``left[p]`` the number of symbols of that text from ``p`` on (so an n-gram starts at ``p`` iff ``left[p] >= n``)."""
    p = 0
    for t in range(texts.shape[0]):
        lo, hi = text_start[texts[t]], text_start[texts[t] + 1]
        for q in range(lo, hi):
            seq[p] = symbols[q]
            owner[p] = t
            left[p] = hi - q
            p += 1


GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing's multiplier, 2^64 / φ


@njit(cache=True, nogil=True)
def _rank(key, table, ranks, shift, next_rank) -> tuple[int, int]:
    """The rank of ``key`` in the open-addressing table (linear probing), a new one (``next_rank``) if unseen;
    returns (rank, the next unused rank)."""
    mask = np.int64(table.shape[0] - 1)
    slot = np.int64((np.uint64(key) * GOLDEN) >> shift)
    while True:
        if table[slot] == key:
            return ranks[slot], next_rank
        if table[slot] == -1:
            table[slot] = key
            ranks[slot] = next_rank
            return next_rank, next_rank + 1
        slot = (slot + np.int64(1)) & mask


@njit(cache=True, nogil=True)
def pair_matches(symbols, text_start, texts, max_order, n_symbols, out):
    """``out[n - 1] = m_n`` for ``n = 1 … max_order`` (module docstring), for the pair whose texts are
    ``texts`` (indices into ``text_start``; ``texts[0]`` the hypothesis, the rest its references). ``out`` is
    assumed zeroed. Equal n-grams are found by hashing their keys (an open-addressing table at most half full)."""
    k = texts.shape[0]
    total = 0
    for t in range(k):
        total += text_start[texts[t] + 1] - text_start[texts[t]]
    seq = np.empty(total, np.int64)
    owner = np.empty(total, np.int64)
    left = np.empty(total, np.int64)
    _lay_out(symbols, text_start, texts, seq, owner, left)
    bits = 1
    while (1 << bits) < 2 * total:
        bits += 1
    shift = np.uint64(64 - bits)
    table = np.empty(1 << bits, np.int64)
    ranks = np.empty(1 << bits, np.int64)
    ids = seq.copy()
    counts = np.zeros((total, k), np.int64)
    for n in range(1, max_order + 1):
        table[:] = -1
        used = 0
        for p in range(total):
            if left[p] >= n:
                key = ids[p] if n == 1 else ids[p] * n_symbols + seq[p + n - 1]
                ids[p], used = _rank(key, table, ranks, shift, used)
                counts[ids[p], owner[p]] += 1
        if used == 0:
            return
        matched = 0
        for g in range(used):
            best = 0
            for t in range(1, k):
                best = max(best, counts[g, t])
            matched += min(counts[g, 0], best)
            counts[g, :] = 0
        out[n - 1] = matched


@njit(cache=True, nogil=True)
def clipped_matches(symbols, text_start, pair_texts, pair_start, max_order, n_symbols):
    """``m_n`` of every pair: pair ``i``'s texts are ``pair_texts[pair_start[i] : pair_start[i + 1]]`` (hypothesis
    first); returns an ``(n_pairs, max_order)`` int64 array."""
    n_pairs = pair_start.shape[0] - 1
    out = np.zeros((n_pairs, max_order), np.int64)
    for i in range(n_pairs):
        pair_matches(symbols, text_start, pair_texts[pair_start[i] : pair_start[i + 1]], max_order, n_symbols, out[i])
    return out
