"""Deterministic, seeded perturbations of references, one kind at a time (docs/design.md §8).

Kinds (:data:`KINDS`, in display order): ``particle_within`` (이/가 ↔ 은/는, 에 ↔ 에서), ``particle_across``
(을/를 → 에, 에/에서 → 을/를, 이/가 → 을/를, 의 → 에), ``speech_level`` (the final ending moved to another of
합쇼체 / 해요체 / 해체·해라체), ``honorific`` (시 removed, or added to the final predicate), ``tense`` (past 었
removed or added on the final predicate), ``spacing`` (one space removed or inserted), ``eojeol_swap`` (two adjacent
eojeol swapped), ``number`` (one digit of a number changed), ``drop_content`` (an eojeol with a content morpheme
dropped: the severe error the others are compared with) and ``negation`` (안 before the final predicate); their
definitions are in :mod:`korean_eval.lens.perturb_morphemes` and :mod:`korean_eval.lens.perturb_text`.

Where a kind's choice has several candidates (which particle, which space …), it draws from
``random.Random(f"korean-eval-lens|{seed}|{kind}|{text}")`` (Python's ``random`` seeded by a string hashes it with
SHA-512, so the choice is the same on every run and platform and depends only on the seed, the kind and the text).
A perturbation is *applied* only when Kiwi's re-analysis of the result shows exactly the intended change
(:attr:`korean_eval.lens.edit.Edit.check`); otherwise, or when the text offers nothing to perturb, it *cannot
apply* and its reason is kept — such segments are counted and shown, never dropped silently.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from korean_eval.engine.cache import NullCache
from korean_eval.lens import perturb_morphemes as pm
from korean_eval.lens import perturb_text as pt
from korean_eval.lens.analysis import Analysis, analyse
from korean_eval.lens.edit import Edit

KindFunction = Callable[[str, Analysis, random.Random], "Edit | str"]

KINDS: dict[str, KindFunction] = {
    "particle_within": pm.particle_within,
    "particle_across": pm.particle_across,
    "speech_level": pm.speech_level_change,
    "honorific": pm.honorific_change,
    "tense": pm.tense_change,
    "spacing": pt.spacing_error,
    "eojeol_swap": pt.eojeol_swap,
    "number": pt.number_change,
    "drop_content": pt.drop_content,
    "negation": pt.negation,
}
"""Perturbation kind → its function, in display order."""

KIND_LABELS: dict[str, str] = {
    "particle_within": "particle swapped within class (이/가↔은/는)",
    "particle_across": "particle swapped across classes (을→에)",
    "speech_level": "final ending: other speech level",
    "honorific": "honorific 시 removed / added",
    "tense": "tense changed (었)",
    "spacing": "one spacing error",
    "eojeol_swap": "two adjacent eojeol swapped",
    "number": "a number changed",
    "drop_content": "a content eojeol dropped",
    "negation": "negation 안 added",
}
#: Column labels of the probe's heatmaps (two short lines, so that 10 kinds fit side by side; the dashboard's and
#: the HTML report's).
KIND_SHORT_LABELS: dict[str, str] = {
    "particle_within": "particle<br>within class",
    "particle_across": "particle<br>across",
    "speech_level": "speech<br>level",
    "honorific": "honorific<br>시",
    "tense": "tense<br>었",
    "spacing": "one<br>spacing slip",
    "eojeol_swap": "eojeol<br>swap",
    "number": "number<br>changed",
    "drop_content": "content<br>dropped",
    "negation": "negation<br>안",
}

SEVERE_KIND = "drop_content"
"""The kind every other kind's score change is compared with (a severe error: a content word lost)."""

NOT_VERIFIED = "Kiwi's re-analysis of the result shows another change than the intended one"

TABLE_COLUMNS = ["kind", "seg_id", "applied", "reason", "edit", "reference", "perturbed", "ref_start", "ref_end",
                 "new_start", "new_end"]


@dataclass(frozen=True)
class Perturbation:
    """One kind applied to one text: the perturbed ``text`` (None when it cannot apply), the ``reason`` when not,
    the ``edit`` described in words, and the changed spans in the original and in the new text."""

    kind: str
    text: str | None
    reason: str = ""
    edit: str = ""
    span: tuple[int, int] = (0, 0)
    new_span: tuple[int, int] = (0, 0)

    @property
    def applied(self) -> bool:
        return self.text is not None


def rng_for(seed: int, kind: str, text: str) -> random.Random:
    """The random generator of one (seed, kind, text)."""
    return random.Random(f"korean-eval-lens|{seed}|{kind}|{text}")


def propose(text: str, analysis: Analysis, kind: str, seed: int) -> Edit | str:
    """The edit ``kind`` makes to ``text`` (not yet checked against a re-analysis), or why it cannot apply."""
    if not text.strip():
        return "empty text"
    return KINDS[kind](text, analysis, rng_for(seed, kind, text))


def perturb_texts(
    texts: Sequence[str], kinds: Sequence[str], seed: int, cache: NullCache | None = None
) -> dict[tuple[str, str], Perturbation]:
    """(kind, text) → :class:`Perturbation` for every distinct text and kind: proposed, then checked on Kiwi's
    analysis of every result (one batch, cached)."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown perturbation kind(s) {', '.join(unknown)}; kinds are {', '.join(KINDS)}")
    unique = list(dict.fromkeys(texts))
    analyses = analyse(unique, cache)
    proposed = {(kind, t): propose(t, analyses[t], kind, seed) for kind in kinds for t in unique}
    results = analyse([e.text for e in proposed.values() if isinstance(e, Edit)], cache)
    out = {}
    for (kind, text), edit in proposed.items():
        if isinstance(edit, str):
            out[(kind, text)] = Perturbation(kind, None, edit)
        elif not edit.check(analyses[text], results[edit.text]):
            out[(kind, text)] = Perturbation(kind, None, f"{NOT_VERIFIED} ({edit.description})", edit.description)
        else:
            out[(kind, text)] = Perturbation(kind, edit.text, "", edit.description, edit.span, edit.new_span)
    return out


def perturbation_table(
    seg_ids: Sequence[str], references: Sequence[str], kinds: Sequence[str], seed: int, cache: NullCache | None = None
) -> pd.DataFrame:
    """Every kind applied to every reference: :data:`TABLE_COLUMNS`, kinds in the given order, then segments in
    order (``perturbed`` empty and ``reason`` filled where the kind cannot apply)."""
    done = perturb_texts(references, kinds, seed, cache)
    rows = []
    for kind in kinds:
        for seg_id, ref in zip(seg_ids, references, strict=True):
            p = done[(kind, ref)]
            rows.append((kind, seg_id, p.applied, p.reason, p.edit, ref, p.text, *p.span, *p.new_span))
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)
