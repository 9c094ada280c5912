"""Perturbations that change the text around the morphemes (docs/design.md §8): one spacing error, two adjacent
eojeol swapped, a number changed, a content eojeol dropped, a negation 안 added.

Each kind is a function ``(text, analysis, rng) → Edit | str`` (a string: why it cannot apply to this text), as in
:mod:`korean_eval.lens.perturb_morphemes`. Sentence-final punctuation (the trailing run of punctuation and symbols,
:func:`korean_eval.lens.edit.final_punctuation_start`) stays at the end when eojeol are swapped or dropped.
"""

from __future__ import annotations

import random

from korean_eval.lens.analysis import Analysis, word_spans
from korean_eval.lens.edit import Edit, difference, final_punctuation_start, splice
from korean_eval.lens.perturb_morphemes import final_predicate
from korean_eval.lens.pos_categories import base_tag, is_content

_LEXICAL_NEGATION = frozenset({"있", "없", "알", "계시"})
"""Stems whose negation is another word (있다 → 없다, 알다 → 모르다), not 안 + the stem."""


def _unchecked(before: Analysis, after: Analysis) -> bool:
    """The kinds whose change is fixed by construction on the characters (checked in the tests)."""
    return True


def _body_words(text: str) -> list[tuple[int, int]]:
    """Word spans with the last word cut before the sentence-final punctuation."""
    spans = word_spans(text)
    if spans:
        spans[-1] = (spans[-1][0], min(spans[-1][1], final_punctuation_start(text)))
    return spans


def spacing_error(text: str, analysis: Analysis, rng: random.Random) -> Edit | str:
    """One space removed between two eojeol, or one inserted inside an eojeol at a boundary between two morphemes
    that are not punctuation or symbols (학교에 → 학교 에); each of the two with probability ½ when both are
    possible."""
    spans = word_spans(text)
    removals = [(spans[i][1], spans[i + 1][0]) for i in range(len(spans) - 1)]
    insertions = sorted(
        {
            m.start for prev, m in zip(analysis, analysis[1:], strict=False)
            if m.word == prev.word and prev.end <= m.start and spans[m.word][0] < m.start < spans[m.word][1]
            and not base_tag(m.tag).startswith("S") and not base_tag(prev.tag).startswith("S")
        }
    )
    if not removals and not insertions:
        return "a single eojeol without a morpheme boundary between characters"
    if insertions and (not removals or rng.random() < 0.5):
        at = rng.choice(insertions)
        new_text, new_span = splice(text, at, at, " ")
        word = text[slice(*next(s for s in spans if s[0] <= at < s[1]))]
        return Edit(new_text, f"space inserted in '{word}'", (at, at), new_span, _unchecked)
    start, end = rng.choice(removals)
    new_text, new_span = splice(text, start, end, "")
    left, right = text[:start].split()[-1], text[end:].split()[0]
    return Edit(new_text, f"space removed between '{left}' and '{right}'", (start, end), new_span, _unchecked)


def eojeol_swap(text: str, analysis: Analysis, rng: random.Random) -> Edit | str:
    """Two adjacent, different eojeol swapped."""
    spans = _body_words(text)
    candidates = [i for i in range(len(spans) - 1) if text[slice(*spans[i])] != text[slice(*spans[i + 1])]]
    if not candidates:
        return "fewer than two different eojeol"
    i = rng.choice(candidates)
    (a0, a1), (b0, b1) = spans[i], spans[i + 1]
    first, gap, second = text[a0:a1], text[a1:b0], text[b0:b1]
    new_text, new_span = splice(text, a0, b1, second + gap + first)
    return Edit(new_text, f"'{first}' and '{second}' swapped", (a0, b1), new_span, _unchecked)


def number_change(text: str, analysis: Analysis, rng: random.Random) -> Edit | str:
    """One number (``SN``) changed: its last digit d becomes (d + 1) mod 10 (2024 → 2025, 3.5 → 3.6, 19 → 10)."""
    numbers = [m for m in analysis if m.tag == "SN" and any(c.isdigit() for c in text[m.start : m.end])]
    if not numbers:
        return "no number"
    m = rng.choice(numbers)
    old = text[m.start : m.end]
    last = max(i for i, c in enumerate(old) if c.isdigit())
    new = old[:last] + str((int(old[last]) + 1) % 10) + old[last + 1 :]
    new_text, new_span = splice(text, m.start, m.end, new)

    def check(before: Analysis, after: Analysis) -> bool:
        removed, added = difference(before, after)
        return removed == [(old, "SN")] and added == [(new, "SN")]

    return Edit(new_text, f"number {old} → {new}", (m.start, m.end), new_span, check)


def drop_content(text: str, analysis: Analysis, rng: random.Random) -> Edit | str:
    """One eojeol that holds a content morpheme dropped (with the space before it, or after it for the first)."""
    spans = _body_words(text)
    if len(spans) < 2:
        return "a single eojeol (nothing would remain)"
    content_words = sorted({m.word for m in analysis if is_content(m.tag) and spans[m.word][0] < spans[m.word][1]})
    if not content_words:
        return "no eojeol with a content morpheme"
    w = rng.choice(content_words)
    start, end = spans[w]
    dropped = text[start:end]
    start, end = (start, spans[w + 1][0]) if w == 0 else (spans[w - 1][1], end)
    new_text, new_span = splice(text, start, end, "")
    return Edit(new_text, f"'{dropped}' dropped", (start, end), new_span, _unchecked)


def negation(text: str, analysis: Analysis, rng: random.Random) -> Edit | str:
    """안 put before the final predicate (a verb or adjective; before 하 of a noun + 하다 verb: 확인 안 했다); the
    re-analysis must show 안/MAG right before a verb or adjective and the original forms otherwise."""
    found = final_predicate(analysis)
    if isinstance(found, str):
        return found
    _end, stem_index, _prefinal = found
    stem = analysis[stem_index]
    if base_tag(stem.tag) in ("VCP", "VCN", "VX") or stem.form in _LEXICAL_NEGATION:
        return "the final predicate is a copula, an auxiliary or 있다/없다/알다 (negated by another word, not 안)"
    before = analysis[:stem_index]
    if before and before[-1].form in ("안", "못") and base_tag(before[-1].tag) == "MAG":
        return "the final predicate is already negated"
    word_start = word_spans(text)[stem.word][0]
    insert = "안 " if stem.start == word_start else " 안 "
    new_text, new_span = splice(text, stem.start, stem.start, insert)

    def check(old: Analysis, after: Analysis) -> bool:
        old_forms, new_forms = [m.form for m in old], [m.form for m in after]
        negated = [
            i for i, m in enumerate(after[:-1])
            if m.form == "안" and base_tag(m.tag) == "MAG" and base_tag(after[i + 1].tag) in ("VV", "VA")
        ]
        return len(new_forms) == len(old_forms) + 1 and any(new_forms[:i] + new_forms[i + 1 :] == old_forms for i in negated)

    return Edit(new_text, f"안 added before '{text[stem.start:].split()[0]}'", (stem.start, stem.start), new_span, check)
