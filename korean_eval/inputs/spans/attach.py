"""Error-span ratings → the human side of an :class:`~korean_eval.model.evalset.EvalSet` (docs/design.md §4, "Error spans").

:func:`attach_ratings` takes one or more :class:`~korean_eval.inputs.spans.records.RatingsRead` (each a rater group: a
file, or a layout name such as ``esa-human1``) and sets:

* ``evalset.human_ratings`` — one row per usable judgment ``system, seg_id, group, rater, score, score_raw``:
  ``score`` higher-is-better everywhere (MQM: the negated penalty of :func:`~korean_eval.inputs.spans.weights.
  judgment_penalty`; ESA: the rater's score), ``score_raw`` as read or computed (the MQM penalty);
* ``evalset.human`` — the merged scores: per item, the mean over every judgment of every group (MQM: declared
  lower-is-better, so ``score`` = −mean penalty and ``score_raw`` = mean penalty, as mt-metrics-eval's
  ``score_mqm.py`` averages raters' penalties);
* ``evalset.spans`` — one row per error span, with its weight and whether its offsets fit the text
  (``fits``: 0 ≤ start ≤ end ≤ len(text) of the hypothesis, or the source for a source error — and, when the file
  carries the rater's text, the same characters there; None when there is no span or no text to check against).
  Spans that do not fit are counted and their lines named in the report; they keep their weight in the score
  (their severity and category were read), and are left out of the Korean-category analysis.

Excluded with file, line and reason: judgments of an unknown system or segment or without a hypothesis, a second
judgment of an item by the same rater of a group, an error whose severity has no weight, an ESA judgment without a
segment score. MQM and ESA groups are not merged with each other (InputError). A file whose seg_ids would match
with a seg_id offset one more or one less gets a note (or, when nothing is usable, the error) naming the option
(:func:`korean_eval.inputs.spans.seg_offset.offset_hint`); an offset given is written into ``evalset.human_note``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from korean_eval.inputs.spans.records import ErrorSpan, Judgment, RatingsRead
from korean_eval.inputs.spans.seg_offset import offset_hint
from korean_eval.inputs.spans.weights import (
    MqmWeights,
    error_problem,
    error_weight,
    judgment_penalty,
    parse_weights,
)
from korean_eval.inputs.tables import attach_human_frame, declare_human_lower_is_better
from korean_eval.inputs.text_files import InputError, line_list
from korean_eval.model.evalset import EvalSet

__all__ = ["RATING_COLUMNS", "SPAN_COLUMNS", "attach_ratings"]

RATING_COLUMNS = ["system", "seg_id", "group", "rater", "score", "score_raw", "file", "line"]
SPAN_COLUMNS = [
    "system", "seg_id", "group", "rater", "start", "end", "category", "severity", "side", "is_source_error",
    "score", "weight", "fits", "file", "line",
]


def _judgment_problem(j: Judgment, kind: str, evalset: EvalSet, weights: MqmWeights, seen: set) -> str:
    problem = evalset.pair_problem(j.system, j.seg_id)
    if problem:
        return problem
    key = (j.group, j.rater, j.system, j.seg_id)
    if key in seen:
        return f"item rated twice by rater {j.rater!r}"
    if kind == "esa" and j.score is None:
        return "ESA judgment without a segment score"
    if kind == "mqm":
        return next((p for p in (error_problem(e, weights) for e in j.errors) if p), "")
    return ""


def _text_of(error: ErrorSpan, evalset: EvalSet, position: dict[str, int]) -> str | None:
    if error.is_source_error:
        return evalset.src[position[error.seg_id]] if evalset.src is not None else None
    return evalset.systems[error.system][position[error.seg_id]]


def span_fits(error: ErrorSpan, judgment: Judgment, text: str | None) -> bool | None:
    """Whether the span's offsets fit ``text`` (module docstring); None without offsets or text."""
    if not error.has_offsets or text is None:
        return None
    if not 0 <= error.start <= error.end <= len(text):
        return False
    seen = judgment.source if error.is_source_error else judgment.target
    return seen is None or seen[error.start : error.end] == text[error.start : error.end]


def _span_row(
    error: ErrorSpan, judgment: Judgment, weights: MqmWeights, evalset: EvalSet, position: dict[str, int]
) -> dict:
    return {
        "system": error.system, "seg_id": error.seg_id, "group": judgment.group, "rater": judgment.rater,
        "start": error.start, "end": error.end, "category": error.category, "severity": error.severity,
        "side": error.side, "is_source_error": error.is_source_error, "score": error.score,
        "weight": error_weight(error, weights), "fits": span_fits(error, judgment, _text_of(error, evalset, position)),
        "file": error.file, "line": error.line,
    }


def _usable(read: RatingsRead, evalset: EvalSet, weights: MqmWeights) -> list[Judgment]:
    """The judgments of ``read`` that can be used; the others, and the file's own exclusions, go to the report."""
    report = evalset.report
    for note in read.notes:
        report.note(read.name, note)
    for line, reason in read.excluded:
        report.exclude(read.name, line, reason)
    seen: set = set()
    usable = []
    for j in read.judgments:
        problem = _judgment_problem(j, read.kind, evalset, weights, seen)
        if problem:
            report.exclude(read.name, j.line, problem)
            continue
        seen.add((j.group, j.rater, j.system, j.seg_id))
        usable.append(j)
    return usable


def _report_fit(evalset: EvalSet, spans: pd.DataFrame) -> None:
    for file, rows in spans.groupby("file", sort=False):
        bad = rows[rows["fits"] == False]  # noqa: E712 (None = not checked)
        unchecked = int(rows["fits"].isna().sum())
        text = f"{len(rows)} error span(s); offsets that do not fit the text: {len(bad)}"
        if len(bad):
            text += f" (lines {line_list([int(n) for n in bad['line'] if pd.notna(n)], 5)}; kept in the scores, " \
                    "left out of the Korean categories)"
        if unchecked:
            text += f"; without offsets or text to check: {unchecked}"
        evalset.report.note(file, text)


def attach_ratings(
    evalset: EvalSet, reads: Sequence[RatingsRead], weights: MqmWeights | None = None, scores_lower_is_better: bool = False
) -> EvalSet:
    """Attach ``reads`` (each one rater group) to ``evalset`` (module docstring); InputError when nothing is usable
    or MQM and ESA groups are mixed. ``scores_lower_is_better``: the given segment scores (ESA, or a layout's
    ``.seg.score`` file) are penalties (e.g. MQM as counted), negated like every such human score."""
    weights = weights or parse_weights(None)
    kinds = {r.kind for r in reads}
    if len(kinds) > 1:
        raise InputError(", ".join(r.name for r in reads), "MQM ratings (penalties from spans) and ESA ratings "
                         "(0–100 scores) cannot be merged into one human score; give one kind")
    kind = kinds.pop() if kinds else "mqm"
    lower = kind == "mqm" or scores_lower_is_better
    rows, spans = [], []
    position = {s: i for i, s in enumerate(evalset.seg_ids)}
    hints = {r.name: offset_hint(r, position) for r in reads}
    for read in reads:
        if hints[read.name]:
            evalset.report.note(read.name, hints[read.name])
        for j in _usable(read, evalset, weights):
            raw = judgment_penalty(j, weights) if kind == "mqm" else float(j.score)
            rows.append((j.system, j.seg_id, j.group, j.rater, -raw if lower else raw, raw, j.file, j.line))
            spans += [_span_row(e, j, weights, evalset, position) for e in j.errors]
    names = ", ".join(r.name for r in reads)
    if not rows:
        raise InputError(names, "; ".join(["no usable rating (see the excluded rows)", *filter(None, hints.values())]))
    ratings = pd.DataFrame(rows, columns=RATING_COLUMNS)
    attach_human_frame(evalset, ratings[["system", "seg_id"]].assign(score=ratings["score_raw"]), names)
    evalset.human_ratings = ratings
    evalset.spans = pd.DataFrame(spans, columns=SPAN_COLUMNS)
    if lower:
        declare_human_lower_is_better(evalset, names)
    if kind == "mqm":
        evalset.human_note = f"MQM penalties from error spans ({weights.signature()}), mean over raters per item"
    else:
        evalset.human_note = f"segment scores given with the ratings ({', '.join(r.group for r in reads)}), mean " \
                             "over raters per item"
    shifted = [f"{r.name}: {r.seg_offset:+d}" for r in reads if r.seg_offset]
    if shifted:
        evalset.human_note += f"; seg_id offset added to the ratings' ids ({', '.join(shifted)})"
    if len(evalset.spans):
        _report_fit(evalset, evalset.spans)
    groups = ratings.groupby("group", sort=False)["rater"].nunique()
    evalset.report.note(names, f"{len(ratings)} judgment(s) in {len(groups)} rater group(s) "
                        f"({', '.join(f'{g}: {n} rater(s)' for g, n in groups.items())})")
    return evalset
