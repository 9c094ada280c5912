"""CharacTER's shift search in bounded memory (:func:`korean_eval.metrics.kernels.character.shift_search_bounded`).

The bounded search keeps the bit-parallel columns of the hypothesis only at checkpoint rows (every ``stride``-th
row once ``state_bytes`` is exceeded) and decoded distance rows in a direct-mapped cache of ``row_bytes``
(:mod:`korean_eval.metrics.kernels.levenshtein`). With tiny budgets every row is recomputed from a checkpoint and cache
slots are evicted all the time; the final shifted hypothesis must still equal the direct search
(:func:`shift_search_simple`), which keeps the column of every prefix.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from korean_eval.metrics.kernels.character import shift_search, shift_search_bounded, shift_search_simple
from korean_eval.metrics.kernels.levenshtein import checkpoint_stride, eq_table, row_slots, symbol_positions


def _similar_pair(rng: np.random.Generator, vocab: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A hypothesis and a reference that is it with a few block moves and substitutions (as translations are)."""
    h = rng.integers(0, vocab, n)
    r = h.copy()
    for _ in range(rng.integers(1, 6)):
        a, b = sorted(rng.integers(0, len(r), 2))
        r = np.concatenate([r[b:], r[a:b], r[:a]]) if rng.integers(2) else np.concatenate([r[:a], r[b:], r[a:b]])
    r[rng.integers(0, len(r), 5)] = rng.integers(0, vocab, 5)
    return h, r


#: Longest side: three 64-symbol blocks (129-159 tokens) give a first, a middle and a last block (every carry path of
#: the bit-parallel columns) and an EqTable that keeps a symbol seen once sparse (dense only from ``nblocks / 2``
#: occurrences). The direct search costs about ``n^4.5`` here, so 200 tokens cost 2.7 times as much per example.
MAX_LENGTH = 160


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 30), st.integers(0, 2**32 - 1),
       st.lists(st.tuples(st.integers(1, 3000), st.integers(1, 3000)), min_size=2, max_size=2), st.booleans())
def test_bounded_search_with_tiny_budgets_equals_simple_search(vocab: int, seed: int,
                                                              budgets: list[tuple[int, int]], similar: bool) -> None:
    """Budgets from 1 byte (only row 0 / row n kept, two row slots) to a few kilobytes, lengths 0-159 (up to three
    64-symbol blocks), random or similar pairs, including very unequal lengths. Each pair is searched with two
    budget pairs ``(state_bytes, row_bytes)`` against one direct search (the expensive part): 300 bounded searches
    on 150 pairs."""
    rng = np.random.default_rng(seed)
    if similar:
        h, r = _similar_pair(rng, vocab, int(rng.integers(12, MAX_LENGTH)))
    else:
        h = rng.integers(0, vocab, rng.integers(0, MAX_LENGTH))
        r = rng.integers(0, vocab, rng.integers(0, MAX_LENGTH))
    expected = shift_search_simple(h, r, vocab)
    for state_bytes, row_bytes in budgets:
        np.testing.assert_array_equal(shift_search_bounded(h, r, vocab, state_bytes, row_bytes), expected)
    np.testing.assert_array_equal(shift_search(h, r, vocab), expected)


def test_tiny_budgets_do_force_checkpoints_and_evictions() -> None:
    """The budgets of the test above really exercise the bounded paths (stride > 1, fewer slots than rows)."""
    n, m = MAX_LENGTH - 10, MAX_LENGTH - 10
    assert checkpoint_stride(n, m, 1) > n
    assert checkpoint_stride(n, m, 3000) > 1
    assert row_slots(n, m, 1) == 2
    assert row_slots(n, m, 3000) < n + 1
    assert checkpoint_stride(n, m, 1 << 26) == 1 and row_slots(n, m, 1 << 25) == n + 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 299), max_size=400), st.integers(1, 300))
def test_eq_table_positions_and_masks(pattern: list[int], n_symbols_extra: int) -> None:
    """The EqTable lists every symbol's positions and keeps dense masks only for frequent symbols (its scratch row
    stays zero)."""
    p = np.array(pattern, dtype=np.int64)
    n_symbols = (max(pattern) + 1 if pattern else 1) + n_symbols_extra
    masks, index = eq_table(p, n_symbols)
    nblocks = masks.shape[1]
    for c in range(n_symbols):
        np.testing.assert_array_equal(symbol_positions(index, c), np.flatnonzero(p == c))
    assert not masks[-1].any()
    dense = [c for c in range(n_symbols) if 0 < np.count_nonzero(p == c) and 2 * np.count_nonzero(p == c) >= nblocks]
    assert masks.shape[0] == len(dense) + 1
