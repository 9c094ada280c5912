"""Reading Google's MQM TSV files (docs/design.md §4), as released with Freitag et al. (2021) and read by
mt-metrics-eval's ``converters/score_mqm.py``.

Columns (tab-separated, no quoting, a header line): ``system, doc, doc_id, seg_id, rater, source, target, category,
severity`` (``doc``/``doc_id`` optional here; other columns ignored). One row per error; a row of category or
severity ``No-error`` says the rater found none. The error's span is marked with ``<v>…</v>`` in the source
(``is_source_error``) or in the target; its offsets are computed on the text with the markers removed (``end``
exclusive). A row without a marker (e.g. a non-translation) is an error without a span. The rows of one (system,
seg_id, rater) make one judgment; the texts without markers are kept to check the offsets against the hypothesis.

Excluded with line and reason: an empty system, seg_id or rater; an empty severity; markers in both texts, more
than one marked span, or an unclosed or unopened marker; texts of one judgment that differ between its rows; and
then the judgment's other rows (a judgment missing an error would be scored wrong).
"""

from __future__ import annotations

from korean_eval.inputs.spans.records import ErrorSpan, Judgment, RatingsRead, ratings_table
from korean_eval.inputs.spans.weights import NO_ERROR
from korean_eval.inputs.text_files import identifier, system_identifier

__all__ = ["REQUIRED_COLUMNS", "read_mqm_tsv", "strip_markers"]

REQUIRED_COLUMNS: tuple[str, ...] = ("system", "seg_id", "rater", "source", "target", "category", "severity")
OPEN, CLOSE = "<v>", "</v>"


class _BadRow(Exception):
    """A row that cannot be used (the message says why)."""


def strip_markers(text: str) -> tuple[str, tuple[int, int] | None]:
    """``text`` without ``<v>``/``</v>`` and the offsets of the marked span in it (None without a marker)."""
    opens, closes = text.count(OPEN), text.count(CLOSE)
    if opens == closes == 0:
        return text, None
    if opens != 1 or closes != 1:
        raise _BadRow(f"{opens} {OPEN} and {closes} {CLOSE} marker(s); one marked span per row")
    start = text.index(OPEN)
    end = text.index(CLOSE) - len(OPEN)
    if end < start:
        raise _BadRow(f"{CLOSE} before {OPEN}")
    return text.replace(OPEN, "", 1).replace(CLOSE, "", 1), (start, end)


def _is_no_error(category: str, severity: str) -> bool:
    return NO_ERROR in (category.strip().lower(), severity.strip().lower())


def _row_error(row: dict[str, str], key: tuple[str, str, str], name: str, line: int) -> tuple[ErrorSpan | None, str, str]:
    """The row's error (None for a no-error row) and the source and target without markers."""
    for column in ("system", "seg_id", "rater"):
        if not identifier(row[column]):
            raise _BadRow(f"empty {column}")
    source, src_span = strip_markers(row["source"])
    target, tgt_span = strip_markers(row["target"])
    if src_span and tgt_span:
        raise _BadRow("a span marked in both source and target")
    category, severity = row["category"].strip(), row["severity"].strip()
    if _is_no_error(category, severity):
        return None, source, target
    if not severity:
        raise _BadRow("empty severity")
    span = src_span or tgt_span
    error = ErrorSpan(
        system=key[0], seg_id=key[1], rater=key[2], start=span[0] if span else None, end=span[1] if span else None,
        category=category or None, severity=severity, is_source_error=src_span is not None, file=name, line=line,
    )
    return error, source, target


def read_mqm_tsv(data: bytes, name: str, group: str = "mqm") -> RatingsRead:
    """Read a Google MQM TSV (module docstring) into judgments of ``group``."""
    table, out = ratings_table(data, name, REQUIRED_COLUMNS, "an MQM TSV", group, "mqm")
    judgments: dict[tuple[str, str, str], Judgment] = {}
    bad: dict[tuple[str, str, str], int] = {}
    for row, line in zip(table.rows, table.lines, strict=True):
        key = (system_identifier(row["system"], name, line), identifier(row["seg_id"]), identifier(row["rater"]))
        try:
            error, source, target = _row_error(row, key, name, line)
            judgment = judgments.get(key)
            if judgment is None:
                judgment = Judgment(*key, group, file=name, line=line, target=target, source=source)
            elif (judgment.target, judgment.source) != (target, source):
                raise _BadRow(f"the texts differ from this judgment's first row (line {judgment.line})")
        except _BadRow as why:
            out.excluded.append((line, str(why)))
            bad.setdefault(key, line)
            continue
        judgments[key] = judgment
        if error is not None:
            judgment.errors.append(error)
    for key, line in bad.items():  # a judgment missing one of its rows would be scored wrong: all of it goes
        if key in judgments:
            dropped = judgments.pop(key)
            out.excluded.append((dropped.line, f"judgment left out: its row on line {line} is unusable"))
    out.judgments = list(judgments.values())
    return out
