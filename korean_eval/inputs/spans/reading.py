"""One entry point for a ratings file of any supported shape (docs/design.md §4, "Error spans").

:func:`read_ratings` chooses the reader by the file: a name ending in ``.rating`` → mt-metrics-eval's rating file
(:mod:`korean_eval.inputs.spans.rating_file`; its group is NAME of ``SRC-TGT.NAME.seg.rating``, else the file stem); a table
with ``category``, ``severity`` and ``target`` columns → Google's MQM TSV (:mod:`korean_eval.inputs.spans.mqm_tsv`); a table
with a ``score`` column → an ESA table (:mod:`korean_eval.inputs.spans.esa`). Anything else is refused naming the shapes.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from korean_eval.inputs.spans.esa import ESA_COLUMNS, read_esa_table
from korean_eval.inputs.spans.mqm_tsv import REQUIRED_COLUMNS, read_mqm_tsv
from korean_eval.inputs.spans.rating_file import read_rating_file
from korean_eval.inputs.spans.records import RatingsRead
from korean_eval.inputs.spans.seg_offset import apply_seg_offset
from korean_eval.inputs.table_reader import read_table
from korean_eval.inputs.text_files import InputError

__all__ = ["check_rating_counts", "group_name", "read_ratings"]

FORMATS = (
    "an mt-metrics-eval SRC-TGT.NAME.seg.rating file, a Google MQM TSV "
    f"({', '.join(REQUIRED_COLUMNS)}) or an ESA table ({', '.join(ESA_COLUMNS)}[, rater, errors])"
)


def group_name(file_name: str) -> str:
    """The rater group a file stands for: NAME of ``SRC-TGT.NAME.seg.rating`` (``en-ko.esa-human1.seg.rating`` →
    ``esa-human1``), else the file name without its extension."""
    base = PurePosixPath(file_name).name
    parts = base.split(".")
    if len(parts) >= 4 and parts[-1] == "rating":
        return ".".join(parts[1:-2])
    return base.rsplit(".", 1)[0] if "." in base else base


def check_rating_counts(counts: dict[str, list[int]], n_segments: int, name: str) -> None:
    """A rating file holds one line per segment for every system it names (InputError at the system's last line
    otherwise)."""
    for system, lines in counts.items():
        if len(lines) != n_segments:
            raise InputError(name, f"system {system!r} has {len(lines)} rating line(s), expected {n_segments} (one "
                             "per segment of the source, in order); its last one is on this line", line=lines[-1])


def read_ratings(data: bytes, name: str, n_segments: int, seg_offset: int = 0) -> RatingsRead:
    """Read ``data`` (file ``name``) as one rater group (module docstring); ``n_segments``: the evaluation set's
    segments (a rating file is positional); ``seg_offset``: added to a table's integer seg_ids
    (:func:`korean_eval.inputs.spans.seg_offset.apply_seg_offset`)."""
    group = group_name(name)
    if name.endswith(".rating"):
        read, counts = read_rating_file(data, name, group)
        check_rating_counts(counts, n_segments, name)
        return apply_seg_offset(read, seg_offset, positional=True)
    columns = set(read_table(data, name).columns)
    if {"category", "severity", "target"} <= columns:
        return apply_seg_offset(read_mqm_tsv(data, name, group), seg_offset)
    if "score" in columns:
        return apply_seg_offset(read_esa_table(data, name, group), seg_offset)
    raise InputError(name, f"not a ratings file; give {FORMATS}")
