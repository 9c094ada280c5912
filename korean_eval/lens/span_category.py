"""The Korean category of a character span of a hypothesis, e.g. an MQM error span (docs/design.md §8, "Span categories").

:func:`korean_category` maps the span ``[start, end)`` of ``text`` (Python string indices, as MQM/ESA spans and
:class:`korean_eval.lens.analysis.Morpheme` use them) onto the text's Kiwi morphemes and returns one of
:data:`SPAN_CATEGORIES`. A morpheme is *touched* by the span when their character ranges overlap
(``m.start < end and start < m.end``); a morpheme contracted into its neighbour (``m.start == m.end``, e.g. the
copula 이 in 거야) is touched when ``start <= m.start < end``. Morpheme categories are the lens's
(:func:`korean_eval.lens.pos_categories.classify`) with ``foreign_number`` split into ``foreign`` (SL latin, SH hanja) and
``number`` (SN). The rules, first match wins:

1. ``omission`` — an empty span (``start == end``), unless rule 3 makes it ``spacing``.
2. ``spacing`` — the span holds whitespace only (an inserted space, or a space marked as wrong).
3. ``spacing`` — a *missing space*: the span is empty at, or straddles, a *junction* and reaches no further than the
   two morphemes that meet there. A junction is a position inside one whitespace word where a particle or an ending
   ends and a content morpheme starts (학교에|가요, 먹고|싶어요, 할|수): Korean writes a space after a particle or
   ending before a new content word (한글 맞춤법 제2항, 제41항, 제42항). Not a junction: -아/-어/-여 + auxiliary
   predicate (VX), which 한글 맞춤법 제47항 allows written together (해주세요).
4. ``spacing`` — an *inserted space*: the span straddles whitespace and reaches no further than the morpheme before it
   and the morpheme after it, and the morpheme after it is a particle, an ending or a suffix (a dependent morpheme
   that cannot start a word: 학교 에, 먹었 습니다).
5. Otherwise the span's touched morphemes decide: if one of them is *lexical* (content, foreign or number), the
   category of the first lexical one — a span over 학교에 is about the word 학교, a span over 3개 about the number;
   else the category held by most touched morphemes, ties broken by the one that comes first in the span.
   A span of non-space characters that touches no morpheme (characters Kiwi does not analyse) is ``other``.

:func:`korean_categories` applies the rule to many spans, analysing each distinct text once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise

from korean_eval.engine.cache import NullCache
from korean_eval.lens.analysis import Analysis, Morpheme, analyse
from korean_eval.lens.pos_categories import base_tag, classify

SPAN_CATEGORIES: tuple[str, ...] = (
    "content", "particle", "ending", "affix", "foreign", "number", "punctuation", "other", "spacing", "omission",
)
"""Every category a span can get, in display order."""

LEXICAL: frozenset[str] = frozenset({"content", "foreign", "number"})
"""Morpheme categories that carry a word's meaning (rule 5 prefers them)."""

_DEPENDENT_END = frozenset({"particle", "ending"})
_DEPENDENT_START = frozenset({"particle", "ending", "affix"})
_AUXILIARY_LINK = ("아", "어", "여")


def morpheme_category(morpheme: Morpheme) -> str:
    """The span category of one morpheme: the lens's category, ``foreign_number`` split into foreign / number;
    a suffix (XS*) is ``affix`` like a prefix."""
    category, sub = classify(morpheme.form, morpheme.tag)
    if category == "foreign_number":
        return "number" if sub == "number" else "foreign"
    return category


def _touched(analysis: Analysis, start: int, end: int) -> list[Morpheme]:
    return [
        m for m in analysis
        if (m.start < end and start < m.end) or (m.start == m.end and start <= m.start < end)
    ]


def _is_junction(left: Morpheme, right: Morpheme) -> bool:
    """Whether a space is missing between two neighbouring morphemes (rule 3): the particle or ending ``left`` ends
    exactly where the content morpheme ``right`` starts (no whitespace between, neither contracted into the other)."""
    if left.end != right.start or right.start == right.end or morpheme_category(left) not in _DEPENDENT_END:
        return False
    if morpheme_category(right) != "content":
        return False
    auxiliary_link = base_tag(left.tag) == "EC" and left.form.startswith(_AUXILIARY_LINK)
    return not (auxiliary_link and base_tag(right.tag) == "VX")


def _missing_space(start: int, end: int, analysis: Analysis) -> bool:
    for left, right in pairwise(analysis):
        if not _is_junction(left, right):
            continue
        position = right.start
        if start == end == position:
            return True
        if start < position < end and left.start <= start and end <= right.end:
            return True
    return False


def _inserted_space(text: str, start: int, end: int, analysis: Analysis) -> bool:
    for left, right in pairwise(analysis):
        gap = text[left.end:right.start]
        if not gap or not gap.isspace() or morpheme_category(right) not in _DEPENDENT_START:
            continue
        if left.start <= start < left.end and right.start < end <= right.end:
            return True
    return False


def _by_morphemes(touched: list[Morpheme]) -> str:
    categories = [morpheme_category(m) for m in touched]
    lexical = [c for c in categories if c in LEXICAL]
    if lexical:
        return lexical[0]
    counts = Counter(categories)
    most = max(counts.values())
    return next(c for c in categories if counts[c] == most)


def _check(text: str, start: int, end: int, analysis: Analysis) -> None:
    if not 0 <= start <= end <= len(text):
        raise ValueError(f"span [{start}, {end}) does not fit a text of {len(text)} characters")
    if analysis and max(m.end for m in analysis) > len(text):
        raise ValueError("the analysis is not of this text: a morpheme ends after the text's end")


def korean_category(text: str, start: int, end: int, analysis: Analysis) -> str:
    """The Korean category of the span ``[start, end)`` of ``text``, from the text's Kiwi ``analysis`` (rules in the
    module docstring). Raises ValueError when the span does not fit the text or the analysis is not of it."""
    _check(text, start, end, analysis)
    if start == end:
        return "spacing" if _missing_space(start, end, analysis) else "omission"
    covered = text[start:end]
    if covered.isspace():
        return "spacing"
    if _missing_space(start, end, analysis) or _inserted_space(text, start, end, analysis):
        return "spacing"
    stripped_start = start + len(covered) - len(covered.lstrip())
    stripped_end = end - (len(covered) - len(covered.rstrip()))
    touched = _touched(analysis, stripped_start, stripped_end)
    return _by_morphemes(touched) if touched else "other"


def korean_categories(
    texts: Sequence[str],
    starts: Sequence[int],
    ends: Sequence[int],
    analyses: Mapping[str, Analysis] | None = None,
    cache: NullCache | None = None,
) -> list[str]:
    """:func:`korean_category` of every span ``(texts[i], starts[i], ends[i])``. Each distinct text is analysed once
    (:func:`korean_eval.lens.analysis.analyse`, with ``cache``) unless ``analyses`` holds it already."""
    if not len(texts) == len(starts) == len(ends):
        raise ValueError(f"texts, starts and ends differ in length: {len(texts)}, {len(starts)}, {len(ends)}")
    known = dict(analyses or {})
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    if missing:
        known.update(analyse(missing, cache))
    return [korean_category(t, int(s), int(e), known[t]) for t, s, e in zip(texts, starts, ends, strict=True)]
