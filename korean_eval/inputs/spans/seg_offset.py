"""The seg_id offset of a ratings file (docs/design.md §4, "Error spans").

Google's MQM TSV numbers the segments of a document set from 1 (its ``seg_id``), while the ids of an evaluation
set read from text files are the 0-based line numbers. Nothing is guessed: the user gives the offset
(``run --ratings-seg-offset N``; the Data page's "seg_id offset of the ratings" beside the ratings uploader), and
:func:`apply_seg_offset` adds it to every integer ``seg_id`` of a table's judgments (``1`` with offset −1 → ``0``;
the shifted id is written as Python's ``str(int)``). A judgment whose seg_id is not an integer is excluded with its
line. mt-metrics-eval's ``.seg.rating`` files are positional (0-based already): the offset is not applied to them,
and a note says so.

:func:`offset_hint`: when fewer than half of a file's judgments name a segment of the evaluation set but at least
half would with the offset one more or one less — or some do not and all would (ids 1…N against 0…N−1: all but one
match, wrongly) — the sentence that says so and names the option.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection

from korean_eval.inputs.spans.records import Judgment, RatingsRead

__all__ = ["OFFSET_FLAG", "OFFSET_LABEL", "apply_seg_offset", "offset_hint"]

#: The option's names: the command line's flag and the Data page's number input (ui/mtme_panel.ratings_inputs).
OFFSET_FLAG, OFFSET_LABEL = "--ratings-seg-offset", "seg_id offset of the ratings"
_INTEGER = re.compile(r"[+-]?\d+")


def _as_int(seg_id: str) -> int | None:
    return int(seg_id) if _INTEGER.fullmatch(seg_id) else None


def _shifted(judgment: Judgment, seg_id: str) -> Judgment:
    errors = [dataclasses.replace(e, seg_id=seg_id) for e in judgment.errors]
    return dataclasses.replace(judgment, seg_id=seg_id, errors=errors)


def apply_seg_offset(read: RatingsRead, offset: int, positional: bool = False) -> RatingsRead:
    """``read`` with ``offset`` added to its judgments' integer seg_ids (module docstring); ``positional``: a
    ``.seg.rating`` file, left as read with a note. Records the offset in ``read.seg_offset``."""
    if not offset:
        return read
    if positional:
        read.notes.append(f"seg_id offset {offset:+d} not applied: a .seg.rating file numbers its segments by "
                          "position (0-based)")
        return read
    kept = []
    for j in read.judgments:
        number = _as_int(j.seg_id)
        if number is None:
            read.excluded.append((j.line, f"seg_id {j.seg_id!r} is not an integer: the seg_id offset {offset:+d} "
                                  "cannot be added"))
            continue
        kept.append(_shifted(j, str(number + offset)))
    read.judgments = kept
    read.seg_offset = offset
    read.notes.append(f"seg_id offset {offset:+d}: the file's seg_id + ({offset:+d}) = the evaluation set's seg_id")
    return read


def offset_hint(read: RatingsRead, seg_ids: Collection[str]) -> str:
    """The hint of the module docstring, or ``""``."""
    total = len(read.judgments)
    matched = sum(j.seg_id in seg_ids for j in read.judgments)
    if matched == total:
        return ""
    numbers = [n for n in (_as_int(j.seg_id) for j in read.judgments) if n is not None]
    would, step = max(((sum(str(n + step) in seg_ids for n in numbers), step) for step in (1, -1)), key=lambda c: c[0])
    if not (2 * matched < total <= 2 * would or matched < would == total):
        return ""
    offset = read.seg_offset + step
    why = " (Google's MQM TSV numbers segments from 1, text files from 0)" if offset == -1 else ""
    return (f"{matched} of {total} judgment(s) name a segment of the evaluation set, {would} would with a seg_id "
            f"offset of {offset:+d}{why}: give {OFFSET_FLAG} {offset} (on the Data page: “{OFFSET_LABEL}” {offset})")
