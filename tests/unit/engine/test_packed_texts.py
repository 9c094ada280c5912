"""Texts sent to worker processes as UTF-8 buffers (korean_eval.engine.packed_texts): they arrive equal, and pickling
them leaves the strings in this process as small as they were."""

from __future__ import annotations

import pickle
import sys

from hypothesis import given
from hypothesis import strategies as st

from korean_eval.engine.packed_texts import PackedTexts, packable

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)
item = st.one_of(st.none(), text, st.tuples(), st.lists(st.one_of(st.none(), text), max_size=3).map(tuple))


@given(st.lists(item, max_size=20))
def test_a_packed_list_unpickles_as_the_equal_plain_list(items):
    back = pickle.loads(pickle.dumps(PackedTexts(items), protocol=pickle.HIGHEST_PROTOCOL))
    assert type(back) is list and back == items


def test_pickling_packed_texts_does_not_grow_the_strings():
    """A plain pickle of a Korean str makes CPython keep a UTF-8 copy inside it (the size grows); packed, not."""
    packed, plain = "한국어 문장 " * 200, "한국어 단어 " * 200
    size = sys.getsizeof(packed)
    pickle.dumps(PackedTexts([packed, (packed, None)]))
    assert sys.getsizeof(packed) == size
    before = sys.getsizeof(plain)
    pickle.dumps([plain])
    assert sys.getsizeof(plain) > before  # what packing avoids (if CPython stops caching, this documents it)


def test_only_lists_of_texts_are_packed():
    assert packable(["a", None, ("b", None)])
    assert not packable([]) and not packable(("a",)) and not packable([1, 2]) and not packable([("a", 1)])
    assert not packable(PackedTexts(["a"]))
