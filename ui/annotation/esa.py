"""ESA's scale and severities as an annotator reads them, and the checks a screen passes before it is submitted (pure).

Error Span Annotation (Kocmi et al. 2024, "Error Span Annotation: A Balanced Approach for Human Evaluation of Machine
Translation", WMT): the annotator marks error spans, each minor or major, then scores the whole translation from 0
to 100. The anchors and severity definitions are the wording of Appraise's ESA instructions used at WMT24
(AppraiseDev/Appraise, ``EvalView/templates/EvalView/_instructions-esa.html``, March 2024). A score below
:data:`SPAN_EXPECTED_BELOW` with no marked error contradicts the protocol (a translation that loses meaning has
errors to mark): the page warns, as Pearmut does, and still lets the annotator submit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from korean_eval.annotation.judgments import SEVERITIES, ErrorSpan, JudgmentError


@dataclass(frozen=True)
class Anchor:
    """One labelled point of the 0–100 scale."""

    score: int
    label: str
    description: str


#: ESA's four anchors (Appraise's WMT24 wording).
ANCHORS: tuple[Anchor, ...] = (
    Anchor(0, "No meaning preserved", "Nearly all information is lost in the translation."),
    Anchor(33, "Some meaning preserved", "Some of the meaning is preserved but significant parts are missing. The "
           "narrative is hard to follow due to errors. Grammar may be poor."),
    Anchor(66, "Most meaning preserved and few grammar mistakes", "The translation retains most of the meaning. It "
           "may have some grammar mistakes or minor inconsistencies."),
    Anchor(100, "Perfect meaning and grammar", "The meaning and grammar of the translation is completely consistent "
           "with the source."),
)

#: ESA's two severities, as Appraise's WMT24 instructions define them.
SEVERITY_HELP: Mapping[str, str] = {
    "minor": "Style, grammar or lexical choice could be better or more natural.",
    "major": "Seriously changed meaning, difficult to read, decreases usability.",
}

#: A score below this with no marked error gets a warning (the anchor "Most meaning preserved and few grammar mistakes").
SPAN_EXPECTED_BELOW = 66


def anchor_text(score: float) -> str:
    """Where ``score`` lies on the scale: the anchor it equals, or the two anchors it lies between."""
    for anchor in ANCHORS:
        if score == anchor.score:
            return f"{anchor.score}: {anchor.label}"
    lower = max((a for a in ANCHORS if a.score < score), key=lambda a: a.score)
    upper = min((a for a in ANCHORS if a.score > score), key=lambda a: a.score)
    return f"between {lower.score} ({lower.label}) and {upper.score} ({upper.label})"


def needs_span_warning(score: float, spans: Sequence[ErrorSpan]) -> bool:
    """Whether to warn: a score below :data:`SPAN_EXPECTED_BELOW` and no error span (an omission counts as one)."""
    return score < SPAN_EXPECTED_BELOW and not spans


def parse_spans(raw: object, text: str) -> tuple[ErrorSpan, ...]:
    """The error spans the span editor returned for ``text``, checked (they come from the browser).

    Args:
        raw: a list of objects ``{start, end, severity, missing}`` — character offsets into ``text`` as Python counts
            them (code points; start inclusive, end exclusive); an omission has ``missing`` true and
            ``start == end == len(text)`` (the ``[MISSING]`` mark after the translation). None means no span.
        text: the translation the spans belong to.

    Returns:
        The spans ordered by start, then end.

    Raises:
        JudgmentError: anything else (a wrong type, an unknown severity, an offset outside the text, two spans
            that overlap).
    """
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise JudgmentError("the error spans are not a list")
    spans = []
    for entry in raw:
        if not isinstance(entry, dict):
            raise JudgmentError("an error span is not an object")
        start, end, severity, missing = (entry.get(k) for k in ("start", "end", "severity", "missing"))
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end)):
            raise JudgmentError(f"span offsets must be whole numbers, got {start!r}–{end!r}")
        if severity not in SEVERITIES or not isinstance(missing, bool):
            raise JudgmentError(f"a span's severity must be one of {', '.join(SEVERITIES)}, got {severity!r}")
        if missing and not start == end == len(text):
            raise JudgmentError(f"an omission is marked on [MISSING] ({len(text)}), got {start}–{end}")
        if not missing and not 0 <= start < end <= len(text):
            raise JudgmentError(f"span {start}–{end} is not inside the translation (0…{len(text)} characters)")
        spans.append(ErrorSpan(start, end, severity, missing))
    spans.sort(key=lambda s: (s.start, s.end))
    for a, b in zip(spans, spans[1:], strict=False):
        if not a.missing and not b.missing and b.start < a.end:
            raise JudgmentError(f"spans {a.start}–{a.end} and {b.start}–{b.end} overlap")
    if sum(s.missing for s in spans) > 1:
        raise JudgmentError("[MISSING] is marked more than once")
    return tuple(spans)
