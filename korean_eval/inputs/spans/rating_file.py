"""Reading mt-metrics-eval rating files, ``human-scores/SRC-TGT.NAME.seg.rating`` (docs/design.md §4).

Format (mt-metrics-eval 0.0.3, ``ratings.py`` ``ReadRatingFile``/``WriteRatingFile``, README "MQM Ratings"): one
line per system and segment, the segments of a system in order (the systems' lines may interleave, as in score
files), tab-separated: ``SYSNAME  RATING`` or ``SYSNAME  RATING  RATER``. RATING is ``None`` (the segment was not
rated) or a JSON object ``{"errors": [{"start", "end", "category", "severity", "score", "is_source_error"}, …]}``
(``ratings.Rating``/``ratings.Error``; ``start``/``end`` character offsets, ``end`` exclusive; an empty list =
rated, no error). RATER defaults to NAME (mt-metrics-eval's ``default_rater``). An ESA file may carry the rater's
segment score in the object (``{"errors": […], "score": 87}``): mt-metrics-eval's reader ignores the extra key,
korean-eval reads it as the ESA score (:mod:`korean_eval.inputs.spans.esa`).

Refused with file and line (:class:`~korean_eval.inputs.text_files.InputError`): a line of another number of fields, a blank
line. Excluded with line and reason (the segment's position is kept): a RATING that is not valid JSON, not an
object with an ``errors`` list, or an error without integer ``start``/``end``, with a non-string category or
severity, a non-number score or a non-boolean ``is_source_error``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from korean_eval.inputs.spans.records import ErrorSpan, Judgment, RatingsRead
from korean_eval.inputs.text_files import (
    InputError,
    clean_segment,
    decode_bytes,
    identifier,
    split_lines,
    system_identifier,
)

__all__ = ["BadRating", "RatingLine", "error_from_json", "parse_rating", "read_rating_file"]

MISSING = "None"


@dataclass(frozen=True)
class RatingLine:
    """A line of a rating file: its system, its position among that system's lines (= segment index), line number."""

    system: str
    position: int
    line: int


class BadRating(Exception):
    """A RATING field that cannot be used (the message says why)."""


def _number(value: object, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadRating(f"{what} is not a finite number ({value!r})")
    return float(value)


def _offset(value: object, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRating(f"error {what} is not an integer ({value!r})")
    return value


def _text(value: object, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise BadRating(f"error {what} is not a string ({value!r})")
    return value


def error_from_json(obj: object, where: RatingLine, rater: str, name: str) -> ErrorSpan:
    if not isinstance(obj, dict):
        raise BadRating("an error is not a JSON object")
    is_source = obj.get("is_source_error", False)
    if not isinstance(is_source, bool):
        raise BadRating(f"is_source_error is not true/false ({is_source!r})")
    return ErrorSpan(
        system=where.system, seg_id=str(where.position), rater=rater,
        start=_offset(obj.get("start"), "start"), end=_offset(obj.get("end"), "end"),
        category=_text(obj.get("category"), "category"), severity=_text(obj.get("severity"), "severity"),
        is_source_error=is_source, score=_number(obj.get("score"), "error score"), file=name, line=where.line,
    )


def parse_rating(text: str, where: RatingLine, rater: str, group: str, name: str) -> Judgment:
    """One RATING JSON object → :class:`Judgment` (``BadRating`` with the reason when unusable)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise BadRating(f"rating is not valid JSON ({err.msg})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("errors"), list):
        raise BadRating('rating is not a JSON object with an "errors" list')
    errors = [error_from_json(e, where, rater, name) for e in obj["errors"]]
    score = _number(obj.get("score"), "segment score")
    return Judgment(where.system, str(where.position), rater, group, errors, score, name, where.line)


def read_rating_file(data: bytes, name: str, group: str) -> tuple[RatingsRead, dict[str, list[int]]]:
    """Read a ``.seg.rating`` file (module docstring): the judgments (seg_id = the segment's 0-based position among
    its system's lines) and, per system, the numbers of its lines (for the caller to check against the segments)."""
    if not data:
        raise InputError(name, "file is empty")
    text, _, notes = decode_bytes(data, name)
    lines, ends = split_lines(text)
    out = RatingsRead(name, group, "mqm", notes=notes + ends.notes())
    counts: dict[str, list[int]] = {}
    unrated = 0
    for number, raw in enumerate(lines, start=1):
        system_identifier(raw.strip().split("\t")[0], name, number)  # a control character in the name: refused
        cols = [clean_segment(c)[0] for c in raw.strip().split("\t")]  # NFC, invisible characters out (as texts)
        if not raw.strip():
            raise InputError(name, "blank line; every line is SYSNAME<TAB>RATING[<TAB>RATER]", line=number)
        if len(cols) not in (2, 3):
            raise InputError(name, f"{len(cols)} tab-separated field(s); every line is SYSNAME<TAB>RATING[<TAB>RATER]",
                             line=number)
        system = identifier(cols[0])
        seen = counts.setdefault(system, [])
        where = RatingLine(system, len(seen), number)
        seen.append(number)
        if cols[1].strip() == MISSING:
            unrated += 1
            continue
        rater = identifier(cols[2]) if len(cols) == 3 and identifier(cols[2]) else group
        try:
            out.judgments.append(parse_rating(cols[1], where, rater, group, name))
        except BadRating as why:
            out.excluded.append((number, str(why)))
    if unrated:
        out.notes.append(f"{unrated} line(s) None: segment not rated")
    if any(j.score is not None for j in out.judgments):
        out.kind = "esa"
    return out, counts
