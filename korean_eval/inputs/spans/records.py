"""The records of error-span annotations (MQM, ESA): one error span, one judgment (a rater's rating of one
translation), and what reading a file of them produced (docs/design.md §4, "Error spans").

The fields follow mt-metrics-eval's ``ratings.Error`` / ``ratings.Rating`` (mt-metrics-eval 0.0.3,
``mt_metrics_eval/ratings.py``): ``start``/``end`` are character offsets (``end`` exclusive) in the hypothesis, or
in the source when ``is_source_error``; ``score`` is the score a rater or a method gave this one error, when given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from korean_eval.inputs.table_reader import Table, read_table
from korean_eval.inputs.text_files import InputError

__all__ = ["ErrorSpan", "Judgment", "RatingsRead", "SIDES", "ratings_table"]

#: Which text a span's offsets refer to.
SIDES: tuple[str, ...] = ("target", "source")


@dataclass(frozen=True)
class ErrorSpan:
    """One error: where (``start``/``end``, None when the annotation marks no span), what (``category``, e.g.
    ``Accuracy/Mistranslation``) and how bad (``severity``: ``Major``, ``Minor``, ``Neutral``…), in which text
    (``is_source_error``), and the error's own ``score`` when the file gives one. ``system``, ``seg_id`` and
    ``rater`` identify the judgment it belongs to; ``file``/``line`` where it was read."""

    system: str
    seg_id: str
    rater: str
    start: int | None
    end: int | None
    category: str | None
    severity: str | None
    is_source_error: bool = False
    score: float | None = None
    file: str = ""
    line: int | None = None

    @property
    def side(self) -> str:
        """``"source"`` for a source error, else ``"target"``."""
        return "source" if self.is_source_error else "target"

    @property
    def has_offsets(self) -> bool:
        return self.start is not None and self.end is not None


@dataclass
class Judgment:
    """One rater's rating of one translation (``system``, ``seg_id``): its error spans (none = rated, no error)
    and, for ESA, the segment score the rater gave (``score``; None for MQM, whose score comes from the spans).
    ``group``: the set of ratings it belongs to (the file's name, e.g. ``mqm`` or ``esa-human1``); ``target`` /
    ``source``: the texts the rater saw, when the file carries them (Google's MQM TSV), to check offsets against."""

    system: str
    seg_id: str
    rater: str
    group: str
    errors: list[ErrorSpan] = field(default_factory=list)
    score: float | None = None
    file: str = ""
    line: int | None = None
    target: str | None = None
    source: str | None = None


@dataclass
class RatingsRead:
    """A ratings file read: its group name, its kind (``mqm`` from spans, ``esa`` with segment scores), every
    usable judgment, and the rows excluded as ``(line, reason)``; ``notes`` on decoding and counts; ``seg_offset``:
    the offset added to its seg_ids (:mod:`korean_eval.inputs.spans.seg_offset`)."""

    name: str
    group: str
    kind: str
    judgments: list[Judgment] = field(default_factory=list)
    excluded: list[tuple[int | None, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seg_offset: int = 0

    def spans(self) -> list[ErrorSpan]:
        """Every error span of every judgment, in file order."""
        return [e for j in self.judgments for e in j.errors]


def ratings_table(data: bytes, name: str, required: Sequence[str], what: str, group: str, kind: str) -> tuple[Table, RatingsRead]:
    """A ratings table read (:func:`korean_eval.inputs.table_reader.read_table`) and an empty :class:`RatingsRead` for it;
    InputError when a ``required`` column is missing (``what``: the shape's name, e.g. ``an MQM TSV``)."""
    table = read_table(data, name)
    missing = [c for c in required if c not in table.columns]
    if missing:
        raise InputError(name, f"not {what}: no column(s) {', '.join(missing)} (columns: {', '.join(table.columns)})")
    return table, RatingsRead(name, group, kind, notes=list(table.notes))
