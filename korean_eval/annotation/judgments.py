"""One ESA judgment and its checks (Kocmi et al. 2024, "Error Span Annotation: A Balanced Approach for Human
Evaluation of Machine Translation", WMT).

An ESA judgment of one translation: the annotator first marks error spans in the translation, each ``minor`` or
``major``, an omission marked on the ``[MISSING]`` token that follows the translation, then gives the whole
translation a score from 0 to 100. Spans are character offsets into the translation as shown (start inclusive, end
exclusive); an omission is a span with ``missing=True`` and ``start == end`` at the place where content is
missing (``len(text)`` when the annotator marked the ``[MISSING]`` token and no place). ``seconds`` is the time the
annotator spent on the screen that holds the translation.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["SEVERITIES", "ErrorSpan", "Judgment", "JudgmentError", "check_judgment", "spans_from_json", "spans_to_json"]

#: ESA's two severities.
SEVERITIES: tuple[str, ...] = ("minor", "major")


class JudgmentError(ValueError):
    """A judgment that cannot be stored: a score outside 0–100, a span outside the text, an unknown severity."""


@dataclass(frozen=True)
class ErrorSpan:
    """One marked error: characters ``start``–``end`` of the translation, its severity; ``missing`` for an omission."""

    start: int
    end: int
    severity: str
    missing: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"start": self.start, "end": self.end, "severity": self.severity, "missing": self.missing}


@dataclass(frozen=True)
class Judgment:
    """One annotator's ESA judgment of one translation (``unit``: the opaque key the annotator was shown)."""

    unit: str
    score: float
    spans: tuple[ErrorSpan, ...] = ()
    seconds: float = 0.0


def check_judgment(judgment: Judgment, text: str) -> Judgment:
    """``judgment``, checked against the translation ``text`` it judges; raises :class:`JudgmentError` otherwise.

    A score is a finite number in [0, 100]; seconds finite and ≥ 0; a span's severity one of :data:`SEVERITIES`;
    an error span ``0 ≤ start < end ≤ len(text)``; an omission ``0 ≤ start == end ≤ len(text)``.
    """
    score = judgment.score
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score) or not 0 <= score <= 100:
        raise JudgmentError(f"the score must be a number from 0 to 100, got {score!r}")
    seconds = judgment.seconds
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not math.isfinite(seconds) or seconds < 0:
        raise JudgmentError(f"seconds must be a number ≥ 0, got {seconds!r}")
    for span in judgment.spans:
        if span.severity not in SEVERITIES:
            raise JudgmentError(f"severity {span.severity!r} is not one of {', '.join(SEVERITIES)}")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (span.start, span.end)):
            raise JudgmentError(f"span offsets must be whole numbers, got {span.start!r}–{span.end!r}")
        if span.missing:
            if not 0 <= span.start == span.end <= len(text):
                raise JudgmentError(f"an omission is one place 0…{len(text)}, got {span.start}–{span.end}")
        elif not 0 <= span.start < span.end <= len(text):
            raise JudgmentError(f"span {span.start}–{span.end} is not inside the translation (0…{len(text)} characters)")
    return judgment


def spans_to_json(spans: Sequence[ErrorSpan]) -> str:
    """The spans as a JSON list of objects (``start, end, severity, missing``), as stored."""
    return json.dumps([s.to_dict() for s in spans], ensure_ascii=False)


def spans_from_json(text: str) -> tuple[ErrorSpan, ...]:
    """The spans stored by :func:`spans_to_json`."""
    return tuple(ErrorSpan(int(s["start"]), int(s["end"]), str(s["severity"]), bool(s.get("missing", False)))
                 for s in json.loads(text))
