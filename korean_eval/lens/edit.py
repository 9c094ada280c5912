"""What one perturbation did to a reference (:class:`Edit`), and the text surgery the perturbations share: splicing
a span, rebuilding one eojeol from morphemes with Kiwi's ``join``, and comparing two analyses (docs/design.md §8).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from korean_eval.lens.analysis import Analysis, Morpheme, word_spans
from korean_eval.lens.pos_categories import base_tag
from korean_eval.levels.registry import kiwi_analyzer

Key = tuple[str, str]
Check = Callable[[Analysis, Analysis], bool]


@dataclass(frozen=True)
class Edit:
    """One applied perturbation.

    Attributes:
        text: the perturbed reference.
        description: what changed, in words (e.g. ``가/JKS → 는/JX in '정부가'``).
        span: the changed characters of the original (start, end); new_span: the same region in ``text``.
        check: given the analyses of the original and of ``text``, whether Kiwi's re-analysis shows exactly the
            intended change (see each kind).
    """

    text: str
    description: str
    span: tuple[int, int]
    new_span: tuple[int, int]
    check: Check


def splice(text: str, start: int, end: int, new: str) -> tuple[str, tuple[int, int]]:
    """``text`` with ``text[start:end]`` replaced by ``new``, and the span of ``new`` in the result."""
    return text[:start] + new + text[end:], (start, start + len(new))


def join(morphemes: Sequence[Key]) -> str:
    """Kiwi's ``join`` of (form, tag) pairs written as one eojeol (no space between them)."""
    items = [(form, tag) if i == 0 else (form, tag, False) for i, (form, tag) in enumerate(morphemes)]
    return kiwi_analyzer().join(items)


def word_morphemes(analysis: Analysis, word: int) -> list[Morpheme]:
    """The morphemes that start in whitespace word ``word``."""
    return [m for m in analysis if m.word == word]


def rebuild_word(text: str, analysis: Analysis, word: int, new: Sequence[Key]) -> tuple[str, tuple[int, int], tuple[int, int]] | str:
    """``text`` with eojeol ``word`` rebuilt by :func:`join` from the morphemes ``new``: (new text, the word's span
    in ``text``, its span in the new text); or the reason it cannot be done — when ``join`` of the word's own
    morphemes does not give back the word exactly, a rebuilt word could differ in more than the intended change."""
    start, end = word_spans(text)[word]
    own = [(m.form, m.tag) for m in word_morphemes(analysis, word)]
    if join(own) != text[start:end]:
        return f"Kiwi's join does not rebuild the eojeol '{text[start:end]}' exactly"
    rebuilt = join(new)
    if rebuilt == text[start:end]:
        return f"Kiwi's join gives the eojeol '{text[start:end]}' back unchanged"
    new_text, new_span = splice(text, start, end, rebuilt)
    return new_text, (start, end), new_span


def keys(analysis: Analysis) -> list[Key]:
    """The analysis as (form, tag without ``-R``/``-I``) pairs, in order."""
    return [(m.form, base_tag(m.tag)) for m in analysis]


def difference(old: Analysis, new: Analysis) -> tuple[list[Key], list[Key]]:
    """(morphemes removed, morphemes added) going from ``old`` to ``new``: the replaced, deleted and inserted
    elements of :class:`difflib.SequenceMatcher`'s opcodes over the two (form, tag) sequences."""
    a, b = keys(old), keys(new)
    removed: list[Key] = []
    added: list[Key] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            removed += a[i1:i2]
            added += b[j1:j2]
    return removed, added


def final_punctuation_start(text: str) -> int:
    """Where the trailing run of punctuation and symbols of ``text`` starts (``len(text)`` without one), never
    before the end of the first character of the last word: ``밝혔다."`` → the position of ``.``."""
    end = len(text.rstrip())
    position = end
    while position > 0 and unicodedata.category(text[position - 1])[0] in "PS":
        position -= 1
    spans = word_spans(text)
    floor = spans[-1][0] + 1 if spans else 0
    return max(position, floor) if position < end else end
