"""Kiwi's morphological analysis of texts, each distinct text analysed once (docs/design.md §8).

:func:`analyse` returns, per distinct text, its morphemes as :class:`Morpheme` tuples: form, tag (Kiwi's Sejong-based
tags, with Kiwi's ``-R``/``-I`` conjugation suffix kept: :func:`korean_eval.lens.pos_categories.base_tag` drops it),
character span in the text, and the index of the whitespace word (eojeol) it starts in. The analyzer is the ``kiwi``
token level's own (:func:`korean_eval.levels.registry.kiwi_analyzer`, ``Kiwi().tokenize`` with default options), so a
text's forms are exactly its ``kiwi``-level tokens.

Analyses are kept in this process (at most :data:`MEMO_SIZE` texts) and in the project's persistent cache
(:mod:`korean_eval.engine.cache`, the token table, under :func:`analysis_key`: the analyzer's library and model versions), so
a text is analysed once per cache.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from korean_eval.engine.cache import NullCache, text_key
from korean_eval.levels.registry import KIWI_CHUNK, KiwiLevel, kiwi_analyzer

MEMO_SIZE = 200_000
_FIELD, _ROW = "\x1f", "\x1e"  # separators of the cached form; textio removes control characters from every text
_MEMO: dict[str, tuple[Morpheme, ...]] = {}
_WORD = re.compile(r"\S+")


class Morpheme(NamedTuple):
    """One morpheme of Kiwi's analysis.

    Attributes:
        form: the morpheme as Kiwi writes it (lemmatised: 했 → 하 + 었; endings may start with a jamo, ᆸ니다).
        tag: Kiwi's tag (``NNG``, ``JKS``, ``VV-I`` …).
        start, end: its span in the text (Python string indices; ``end == start`` for a morpheme contracted into its
            neighbour, e.g. the copula 이 in 거야).
        word: index of the whitespace-separated word (eojeol) in which it starts.
    """

    form: str
    tag: str
    start: int
    end: int
    word: int


Analysis = tuple[Morpheme, ...]


def analysis_key() -> str:
    """The cache namespace of analyses: the analyzer's library and model versions."""
    return f"lens-analysis|{KiwiLevel().version()}"


def word_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every whitespace-separated word (eojeol) of ``text``, in order."""
    return [m.span() for m in _WORD.finditer(text)]


def word_of(starts: Sequence[int], position: int) -> int:
    """Index of the word in which ``position`` lies, given the words' start positions in order (the last word
    starting at or before it; 0 before the first)."""
    return max(bisect_right(starts, position) - 1, 0)


def _from_tokens(text: str, tokens: Iterable) -> Analysis:
    starts = [start for start, _end in word_spans(text)]
    return tuple(
        Morpheme(t.form, t.tag, t.start, t.start + t.len, word_of(starts, t.start)) for t in tokens if t.form.strip()
    )


def _encode(analysis: Analysis) -> str:
    return _ROW.join(_FIELD.join((m.form, m.tag, str(m.start), str(m.end), str(m.word))) for m in analysis)


def _decode(value: str) -> Analysis | None:
    """A cached analysis, or None when the stored value is malformed (then the text is analysed again)."""
    if not value:
        return ()
    try:
        rows = [row.split(_FIELD) for row in value.split(_ROW)]
        return tuple(Morpheme(f, t, int(s), int(e), int(w)) for f, t, s, e, w in rows)
    except ValueError:
        return None


def analyse(texts: Iterable[str], cache: NullCache | None = None,
            progress: Callable[[float, str], None] | None = None) -> dict[str, Analysis]:
    """Kiwi's analysis of every distinct text of ``texts``: memo, then the cache, then Kiwi, in batches of
    :data:`~korean_eval.levels.registry.KIWI_CHUNK` texts (each text's analysis does not depend on its batch), each
    batch stored in the cache as it is done and reported to ``progress(fraction, message)`` — which may raise to
    stop the analysis between batches (the stored batches are kept)."""
    unique = list(dict.fromkeys(texts))
    out = {t: hit for t in unique if (hit := _MEMO.get(t)) is not None}
    missing = [t for t in unique if t not in out]
    if missing and cache is not None and cache.enabled:
        keys = [text_key(t) for t in missing]
        stored = cache.get_tokens(analysis_key(), keys)
        for text, key in zip(missing, keys, strict=True):
            decoded = _decode(stored[key]) if key in stored else None
            if decoded is not None:
                out[text] = decoded
        missing = [t for t in missing if t not in out]
    for start in range(0, len(missing), KIWI_CHUNK):
        if progress is not None:
            progress(start / len(missing), f"analysing texts with Kiwi: {start:,} of {len(missing):,}")
        batch = missing[start:start + KIWI_CHUNK]
        fresh = {t: _from_tokens(t, tokens) for t, tokens in zip(batch, kiwi_analyzer().tokenize(batch), strict=True)}
        out.update(fresh)
        if cache is not None:
            cache.put_tokens(analysis_key(), ((text_key(t), _encode(a)) for t, a in fresh.items()))
    if len(_MEMO) + len(out) > MEMO_SIZE:
        _MEMO.clear()
    _MEMO.update(out)
    return out


def analyse_one(text: str, cache: NullCache | None = None) -> Analysis:
    """:func:`analyse` of one text."""
    return analyse([text], cache)[text]


def kiwi_tokens(analysis: Analysis) -> str:
    """The ``kiwi`` token level's tokens of the analysed text, joined by spaces (its forms, split on whitespace as
    :class:`korean_eval.levels.registry.TokenLevel` does)."""
    return " ".join(part for m in analysis for part in m.form.split())
