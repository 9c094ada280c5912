"""Perturbations that change morphemes, rebuilt into text with Kiwi's ``join`` (docs/design.md §8): a particle
swapped within its class or across classes, the final ending moved to another speech level, the subject honorific
시 removed or added, the tense of the final predicate changed.

Each kind is a function ``(text, analysis, rng) → Edit | str`` (a string: why it cannot apply to this text). Only
the eojeol that holds the change is rebuilt (:func:`korean_eval.lens.edit.rebuild_word`); the rest of the text is
kept character for character. Each :class:`~korean_eval.lens.edit.Edit` carries the check that Kiwi's re-analysis
of the result differs from the original's in exactly the intended morphemes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from korean_eval.lens.analysis import Analysis, Morpheme
from korean_eval.lens.edit import Edit, Key, difference, rebuild_word, word_morphemes
from korean_eval.lens.pos_categories import HONORIFIC_PREFINAL, base_tag
from korean_eval.lens.speech_level import SPEECH_LEVELS, final_ending, honorific_count, speech_level

ALLOMORPHS: dict[Key, frozenset[str]] = {
    ("는", "JX"): frozenset({"은", "는"}),
    ("가", "JKS"): frozenset({"이", "가"}),
    ("을", "JKO"): frozenset({"을", "를"}),
    ("에", "JKB"): frozenset({"에"}),
    ("에서", "JKB"): frozenset({"에서"}),
}
"""The forms ``join`` may write for a target particle (it picks the allomorph that fits the preceding sound)."""

WITHIN_CLASS: dict[Key, Key] = {
    ("이", "JKS"): ("는", "JX"),
    ("가", "JKS"): ("는", "JX"),
    ("은", "JX"): ("가", "JKS"),
    ("는", "JX"): ("가", "JKS"),
    ("에", "JKB"): ("에서", "JKB"),
    ("에서", "JKB"): ("에", "JKB"),
}
"""Swaps that keep the particle's role: subject 이/가 ↔ topic 은/는, locative 에 ↔ 에서."""

ACROSS_CLASS: dict[Key, Key] = {
    ("을", "JKO"): ("에", "JKB"),
    ("를", "JKO"): ("에", "JKB"),
    ("에", "JKB"): ("을", "JKO"),
    ("에서", "JKB"): ("을", "JKO"),
    ("이", "JKS"): ("을", "JKO"),
    ("가", "JKS"): ("을", "JKO"),
    ("의", "JKG"): ("에", "JKB"),
}
"""Swaps that change the particle's case: object 을/를 → 에, locative 에/에서 → 을/를, subject 이/가 → 을/를,
genitive 의 → 에."""

_HOST_TAGS = frozenset({"NNG", "NNP", "NNB", "NR", "NP", "XSN", "SN", "SL", "SH", "ETN"})
_STEM_TAGS = frozenset({"VV", "VA", "VX", "XSV", "XSA"})
_ACTION_STEMS = frozenset({"VV", "XSV"})


def _particle_swap(text: str, analysis: Analysis, rng: random.Random, table: dict[Key, Key], what: str) -> Edit | str:
    """Replace one particle of ``table`` that follows a noun-like morpheme by its partner."""
    candidates = [
        i for i, m in enumerate(analysis)
        if (m.form, m.tag) in table and i > 0 and base_tag(analysis[i - 1].tag) in _HOST_TAGS
        and analysis[i - 1].word == m.word
    ]
    if not candidates:
        return f"no particle to swap {what} ({', '.join(sorted({f'{f}/{t}' for f, t in table}))} after a noun)"
    index = rng.choice(candidates)
    old = analysis[index]
    target = table[(old.form, old.tag)]
    return _replace_in_word(text, analysis, index, [target], _expect_one(old, target), f"{old.form}/{old.tag} → {target[0]}/{target[1]}")


def _expect_one(old: Morpheme, target: Key):
    """Check: exactly ``old`` removed and one allomorph of ``target`` added."""
    forms = ALLOMORPHS.get(target, frozenset({target[0]}))

    def check(before: Analysis, after: Analysis) -> bool:
        removed, added = difference(before, after)
        return removed == [(old.form, base_tag(old.tag))] and len(added) == 1 and added[0][1] == target[1] and added[0][0] in forms

    return check


def _replace_in_word(text: str, analysis: Analysis, index: int, new: Sequence[Key], check, description: str) -> Edit | str:
    """Replace morpheme ``index`` by ``new`` (zero or more morphemes) and rebuild its eojeol."""
    m = analysis[index]
    word = word_morphemes(analysis, m.word)
    position = word.index(m)
    morphemes = [(x.form, x.tag) for x in word]
    morphemes[position : position + 1] = list(new)
    rebuilt = rebuild_word(text, analysis, m.word, morphemes)
    if isinstance(rebuilt, str):
        return rebuilt
    new_text, span, new_span = rebuilt
    return Edit(new_text, f"{description} in '{text[span[0]:span[1]]}'", span, new_span, check)


def particle_within(text: str, analysis: Analysis, rng: random.Random) -> Edit | str:
    """A particle swapped within its class (:data:`WITHIN_CLASS`)."""
    return _particle_swap(text, analysis, rng, WITHIN_CLASS, "within its class")


def particle_across(text: str, analysis: Analysis, rng: random.Random) -> Edit | str:
    """A particle swapped across classes (:data:`ACROSS_CLASS`)."""
    return _particle_swap(text, analysis, rng, ACROSS_CLASS, "across classes")


def final_predicate(analysis: Analysis) -> tuple[int, int, list[int]] | str:
    """(index of the final ``EF``, index of its predicate's stem, indices of the prefinal endings between them), or
    why the segment has none (it must end in an ``EF`` right after a stem and its ``EP`` chain, in one eojeol)."""
    ending = final_ending(analysis)
    if ending is None or ending.tag != "EF":
        return "the segment does not end in a final ending (EF)"
    end = analysis.index(ending)
    i = end - 1
    while i >= 0 and analysis[i].tag == "EP":
        i -= 1
    if i < 0 or base_tag(analysis[i].tag) not in _STEM_TAGS | {"VCP", "VCN"} or analysis[i].word != ending.word:
        return "the final ending does not follow a verb, adjective or copula stem in its eojeol"
    return end, i, list(range(i + 1, end))


def _new_ending(level: str, stem_tag: str, has_prefinal: bool, question: bool) -> str:
    """The final ending that puts a predicate into ``level`` (declarative, or interrogative for a question)."""
    if level == "formal":
        return "ᆸ니까" if question else "ᆸ니다"
    if level == "polite":
        return "에요" if stem_tag == "VCP" else "어요"
    if question:
        return "냐"
    return "ᆫ다" if stem_tag in _ACTION_STEMS and not has_prefinal else "다"


def speech_level_change(text: str, analysis: Analysis, rng: random.Random) -> Edit | str:
    """The final ending moved to another of 합쇼체 / 해요체 / 해체·해라체 (chosen at random)."""
    found = final_predicate(analysis)
    if isinstance(found, str):
        return found
    end, stem, prefinal = found
    current = speech_level(analysis)
    if current == "other":
        return "the final ending is of no speech level this probe changes (하오체, nominal)"
    target = rng.choice([lv for lv in SPEECH_LEVELS if lv not in (current, "other")])
    form = _new_ending(target, base_tag(analysis[stem].tag), bool(prefinal), text.rstrip().endswith("?"))
    old = analysis[end]

    def check(before: Analysis, after: Analysis) -> bool:
        removed, added = difference(before, after)
        return speech_level(after) == target and removed == [(old.form, "EF")] and [t for _f, t in added] == ["EF"]

    return _replace_in_word(text, analysis, end, [(form, "EF")], check, f"{old.form}/EF → {form}/EF ({current} → {target})")


def honorific_change(text: str, analysis: Analysis, rng: random.Random) -> Edit | str:
    """The subject honorific 시 removed (when the segment has one) or added to the final predicate (when not)."""
    before = honorific_count(analysis)
    if before:
        candidates = [i for i, m in enumerate(analysis) if m.tag == "EP" and m.form in HONORIFIC_PREFINAL]
        fused = [i for i, m in enumerate(analysis) if m.tag == "EF" and m.form in ("세요", "으세요", "셔요", "으셔요")]
        if not candidates + fused:
            return "the honorific is fused into an ending this probe does not split (-십시오)"
        index = rng.choice(candidates + fused)
        new = [] if index in candidates else [("어요", "EF")]
        description = f"honorific {analysis[index].form}/{analysis[index].tag} removed"
    else:
        found = final_predicate(analysis)
        if isinstance(found, str):
            return found
        _end, index, _prefinal = found
        if base_tag(analysis[index].tag) in ("VCP", "VCN"):
            return "the final predicate is a copula"
        new = [(analysis[index].form, analysis[index].tag), ("시", "EP")]
        description = f"honorific 시/EP added after {analysis[index].form}/{analysis[index].tag}"

    def check(old: Analysis, after: Analysis) -> bool:
        removed, added = difference(old, after)
        changed = removed + added
        return abs(honorific_count(after) - before) == 1 and all(t in ("EP", "EF") for _f, t in changed) and len(changed) <= 2

    return _replace_in_word(text, analysis, index, new, check, description)


def tense_change(text: str, analysis: Analysis, rng: random.Random) -> Edit | str:
    """The final predicate's tense changed: past 었 removed (present), or 었 added (past); a plain 다 / ㄴ다 ending
    follows (먹었다 ↔ 먹는다)."""
    found = final_predicate(analysis)
    if isinstance(found, str):
        return found
    end, stem, prefinal = found
    word = analysis[stem].word
    past = [i for i in prefinal if analysis[i].form == "었"]
    ending = analysis[end]
    new_ending = ending.form
    morphemes = [(m.form, m.tag) for m in analysis[stem : end + 1]]
    if past:
        del morphemes[past[0] - stem]
        if ending.form == "다" and base_tag(analysis[stem].tag) in _ACTION_STEMS and len(prefinal) == 1:
            new_ending = "ᆫ다"
        description = "past 었/EP removed"
    else:
        after_honorific = max([i for i in prefinal if analysis[i].form in HONORIFIC_PREFINAL], default=stem)
        morphemes.insert(after_honorific - stem + 1, ("었", "EP"))
        new_ending = "다" if ending.form in ("ᆫ다", "는다") else ending.form
        description = "past 었/EP added"
    morphemes[-1] = (new_ending, "EF")
    if any(m.word != word for m in analysis[stem : end + 1]):
        return "the final predicate spans two eojeol"

    def check(before: Analysis, after: Analysis) -> bool:
        removed, added = difference(before, after)
        pasts = [k for k in removed + added if k == ("었", "EP")]
        others = [k for k in removed + added if k != ("었", "EP")]
        return len(pasts) == 1 and all(t == "EF" for _f, t in others) and len(others) in (0, 2)

    word_all = word_morphemes(analysis, word)
    first, last = word_all.index(analysis[stem]), word_all.index(ending)
    whole = [(m.form, m.tag) for m in word_all]
    whole[first : last + 1] = morphemes
    rebuilt = rebuild_word(text, analysis, word, whole)
    if isinstance(rebuilt, str):
        return rebuilt
    new_text, span, new_span = rebuilt
    return Edit(new_text, f"{description} in '{text[span[0]:span[1]]}'", span, new_span, check)
