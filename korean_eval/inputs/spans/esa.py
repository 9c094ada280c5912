"""Reading ESA ratings (Error Span Annotation: a segment score 0–100 plus error spans; Kocmi et al. 2024, "Error
Span Annotation: A Balanced Approach for Human Evaluation of Machine Translation", WMT) (docs/design.md §4).

mt-metrics-eval stores ESA as MQM-like files of one NAME (e.g. ``esa``, ``esa-human1``): the segment scores in
``human-scores/SRC-TGT.NAME.seg.score`` and, where released, the spans in ``SRC-TGT.NAME.seg.rating``
(:mod:`korean_eval.inputs.spans.rating_file`); in a layout both are read together (the score file gives the score). Alone,
korean-eval reads ESA in either shape:

* a ``.seg.rating`` file whose RATING objects carry the segment score: ``{"errors": […], "score": 87}``
  (mt-metrics-eval's reader ignores the extra key);
* a table (TSV/CSV, :func:`korean_eval.inputs.table_reader.read_table`) with columns ``system, seg_id, score`` and optionally
  ``rater`` and ``errors`` — a JSON list of mt-metrics-eval ``Error`` objects (``[{"start": 3, "end": 7,
  "severity": "major", "category": null}]``; empty = no span).

Excluded with line and reason: an empty system or seg_id, a score that is no finite number
(:func:`korean_eval.inputs.table_reader.read_number`), an ``errors`` cell that is not such a JSON list.
"""

from __future__ import annotations

import dataclasses
import json
import math

from korean_eval.inputs.spans.rating_file import BadRating, RatingLine, error_from_json
from korean_eval.inputs.spans.records import Judgment, RatingsRead, ratings_table
from korean_eval.inputs.table_reader import read_number
from korean_eval.inputs.text_files import identifier, system_identifier

__all__ = ["ESA_COLUMNS", "read_esa_table"]

ESA_COLUMNS: tuple[str, ...] = ("system", "seg_id", "score")


def _judgment(row: dict[str, str], line: int, name: str, group: str) -> Judgment:
    system, seg_id = system_identifier(row["system"], name, line), identifier(row["seg_id"])
    if not system or not seg_id:
        raise BadRating("empty system or seg_id")
    cell = read_number(row["score"])
    if cell.value is None or not math.isfinite(cell.value) or cell.decimal_comma:
        raise BadRating(f"score: {cell.problem or 'not a finite number'}")
    rater = identifier(row.get("rater", "")) or group
    text = row.get("errors", "").strip()
    try:
        raw = json.loads(text) if text else []
    except json.JSONDecodeError as err:
        raise BadRating(f"errors is not valid JSON ({err.msg})") from None
    if not isinstance(raw, list):
        raise BadRating("errors is not a JSON list")
    where = RatingLine(system, 0, line)
    errors = [error_from_json(e, where, rater, name) for e in raw]
    errors = [dataclasses.replace(e, seg_id=seg_id) for e in errors]
    return Judgment(system, seg_id, rater, group, errors, cell.value, name, line)


def read_esa_table(data: bytes, name: str, group: str = "esa") -> RatingsRead:
    """Read an ESA table (module docstring) into judgments of ``group``."""
    table, out = ratings_table(data, name, ESA_COLUMNS, "an ESA table", group, "esa")
    for row, line in zip(table.rows, table.lines, strict=True):
        try:
            out.judgments.append(_judgment(row, line, name, group))
        except BadRating as why:
            out.excluded.append((line, str(why)))
    return out
