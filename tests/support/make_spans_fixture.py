"""Error-span ratings added to the mt-metrics-eval fixture (tests/support/make_mtme_fixture.py): two raters'
``.seg.rating`` files (``mqm.rater1``, ``mqm.rater2``) whose errors are the hypothesis eojeol missing from the
reference, each rater seeing and grading them a little differently, and the hand computation of their MQM
penalties."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.make_mtme_fixture import LP, all_outputs, texts, write_fixture

RATERS = ("rater1", "rater2")


def rated(rater: str, system_index: int, segment: int) -> bool:
    """Which items a rater rated: they share about half of them."""
    return (segment + system_index) % (3 if rater == "rater1" else 4) != 0


def errors(rater: str, hyp: str, ref: str) -> list[dict]:
    """One error per hypothesis eojeol not in the reference (offsets in ``hyp``): rater1 grades eojeol longer
    than 3 characters Major (Accuracy/Mistranslation), others Minor Fluency/Grammar; rater2 grades every such
    eojeol Minor and skips every third one; a final '.' missing from the hypothesis is a Minor Fluency/Punctuation
    error at its end (rater1 only)."""
    out, start, ref_words = [], 0, set(ref.split())
    for k, word in enumerate(hyp.split()):
        start = hyp.index(word, start)
        if word not in ref_words and not (rater == "rater2" and k % 3 == 2):
            major = rater == "rater1" and len(word) > 3
            out.append({"start": start, "end": start + len(word), "severity": "Major" if major else "Minor",
                        "category": "Accuracy/Mistranslation" if major else "Fluency/Grammar"})
        start += len(word)
    if rater == "rater1" and ref.endswith(".") and not hyp.endswith("."):
        out.append({"start": len(hyp), "end": len(hyp), "severity": "Minor", "category": "Fluency/Punctuation"})
    return out


def hand_penalty(errs: list[dict]) -> float:
    """Major 5, Minor 1, Minor Fluency/Punctuation 0.1, capped at 25 (Freitag et al. 2021)."""
    weight = {"Major": 5.0, "Minor": 1.0}
    total = sum(0.1 if e["category"] == "Fluency/Punctuation" else weight[e["severity"]] for e in errs)
    return min(total, 25.0)


def rating_lines(rater: str) -> str:
    refs = texts()[1]["refA"]
    lines = []
    for k, (name, hyps) in enumerate(all_outputs().items()):
        for i, hyp in enumerate(hyps):
            if rated(rater, k, i):
                lines.append(f"{name}\t{json.dumps({'errors': errors(rater, hyp, refs[i])}, ensure_ascii=False)}\t{rater}")
            else:
                lines.append(f"{name}\tNone")
    return "\n".join(lines) + "\n"


def write_rating_fixture(root: Path) -> Path:
    """The mt-metrics-eval fixture plus ``human-scores/en-ko.mqm.rater1.seg.rating`` and ``…rater2…``."""
    base = write_fixture(root)
    for rater in RATERS:
        (base / "human-scores" / f"{LP}.mqm.{rater}.seg.rating").write_text(rating_lines(rater), encoding="utf-8")
    return base


def write_rater_groups(base: Path, rated_by_both: bool = True) -> None:
    """``mqm.rater1`` and ``mqm.rater2`` rating files in ``base`` (every item rated by both), no other human score."""
    refs = texts()[1]["refA"]
    for path in (base / "human-scores").iterdir():
        path.unlink()
    for rater in RATERS:
        lines = [f"{name}\t{json.dumps({'errors': errors(rater, hyp, refs[i])}, ensure_ascii=False)}\t{rater}"
                 if rated_by_both or rater == "rater1" else f"{name}\tNone"
                 for name, hyps in all_outputs().items() for i, hyp in enumerate(hyps)]
        (base / "human-scores" / f"{LP}.mqm.{rater}.seg.rating").write_text("\n".join(lines) + "\n", encoding="utf-8")
