"""The one reader of every table input: long tables, human scores, raw judgments for QC, given metric scores.

Reading rules (docs/design.md §4), the same for every kind of table:

* **Bytes → text** by :func:`korean_eval.inputs.text_files.decode_bytes` (byte-order marks incl. UTF-16/32, UTF-8, CP949/EUC-KR,
  BOM-less UTF-16; refused above :data:`korean_eval.inputs.text_files.MAX_FILE_BYTES`); line ends by
  :func:`korean_eval.inputs.text_files.normalise_line_ends` (CRLF and LF; a stray CR inside a line is read as a space and its
  lines are named in a note).
* **Format.** JSON Lines when the name ends in ``.jsonl``, ``.ndjson`` or ``.json`` or the text starts with ``{``;
  otherwise a delimited table whose first line is the header.
* **Delimiter.** The extension names the expected delimiter: ``.tsv``/``.tab`` → tab, ``.csv`` → comma. It is used
  when the header line contains it. Otherwise (``.txt``, another or no extension, or a header without the expected
  delimiter) the delimiter is whichever of comma, tab, semicolon and pipe occurs most often in the header line (the
  first of them in that order on a tie); a header with none of them is a one-column table. So a ``;``-separated
  ``.csv`` is read as semicolon-separated, and a tab-separated ``.csv`` as tab-separated.
* **Tab-separated: no quoting.** Each line is one row, split at every tab; a cell holds no tab or line break and
  quote characters are ordinary text.
* **Other delimiters: CSV as in RFC 4180, strictly.** A double-quoted cell may hold delimiters, line breaks and
  doubled quotes (``""`` → ``"``); a quote inside an unquoted cell is ordinary text. A quoted cell must end at a
  delimiter or the line end (``"경제가 회복된다" 정부 발표`` is refused naming its line, never read without its
  quotes), and a quote that is never closed is refused naming the line where it opens (it would swallow every
  following row). Rows whose quoted cell holds a line break are kept (the break becomes a space in text) and listed
  with their line ranges in a note, unless the caller reads a table whose cells hold no text
  (``multiline_cells=False``: raw judgments, human scores, metric scores): there such a row is refused naming the
  lines it spans, since an unescaped quote that the next row closes would join two rows into one.
* **Header.** Names are NFC-normalised, stripped of invisible characters and surrounding whitespace; an empty name
  becomes ``column_<i>`` (0-based position, listed in :attr:`Table.unnamed`); a duplicate name is refused.
* **Rows.** Every cell is a string exactly as in the file: nothing is stripped, normalised or guessed (``NA``,
  ``null``, ``3.10`` stay text); conversions are explicit (:func:`parse_number`). A row whose cells are all blank
  is skipped; a row with another number of cells than the header is refused naming its line; a header without
  rows is refused.
* **JSON Lines.** One JSON object per line (blank lines skipped); ``null`` → ``""``, any other value → ``str(value)``;
  the columns are the keys in order of first appearance, a key missing from a line is ``""``. An unpaired surrogate
  (``"\ud800"``, no character) is refused naming its line.

Every problem raises :class:`~korean_eval.inputs.text_files.InputError` naming the file and, where known, the line; a row's
line is the file line where the row starts.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from korean_eval.inputs.text_files import (
    MAX_FILE_BYTES,
    InputError,
    clean_segment,
    decode_bytes,
    line_list,
    normalise_line_ends,
    split_lines,
)

__all__ = ["DECIMAL_COMMA_RULE", "NumberCell", "Table", "choose_delimiter", "parse_number", "read_number", "read_table"]

JSONL_SUFFIXES: tuple[str, ...] = (".jsonl", ".ndjson", ".json")
#: Delimiters tried on the header line, in tie-breaking order.
DELIMITERS: tuple[str, ...] = (",", "\t", ";", "|")
_EXPECTED_DELIMITER = {".tsv": "\t", ".tab": "\t", ".csv": ","}


@dataclass
class Table:
    """A parsed table: column names, rows as dicts of strings, and the file line where each row starts.

    ``notes`` say how the file was decoded; ``unnamed`` lists the names given to empty header cells.
    """

    name: str
    columns: list[str]
    rows: list[dict[str, str]]
    lines: list[int]
    notes: list[str] = field(default_factory=list)
    unnamed: tuple[str, ...] = ()

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame of strings (object dtype), columns in header order, index 0…n−1."""
        return pd.DataFrame(self.rows, columns=self.columns, dtype=object)


def choose_delimiter(header_line: str, name: str) -> str:
    """The delimiter of a delimited table, by the rule of the module docstring."""
    expected = _EXPECTED_DELIMITER.get(Path(name).suffix.lower())
    if expected is not None and expected in header_line:
        return expected
    counts = [header_line.count(d) for d in DELIMITERS]
    best = max(counts)
    if best:
        return DELIMITERS[counts.index(best)]
    return expected or ","


def read_table(data: bytes, name: str, multiline_cells: bool = True) -> Table:
    """Decode and parse a CSV, TSV or JSON Lines table into a :class:`Table` of strings (rules: module docstring).

    Args:
        multiline_cells: whether a quoted cell may hold a line break (tables with text columns); when False, the
            first row spanning lines is refused with its line range.
    """
    if not data:
        raise InputError(name, "file is empty")
    text, _encoding, notes = decode_bytes(data, name)
    text, ends = normalise_line_ends(text)
    notes.extend(ends.notes())
    if name.lower().endswith(JSONL_SUFFIXES) or text.lstrip().startswith("{"):
        table = _read_jsonl(text, name)
    else:
        delimiter = choose_delimiter(text.split("\n", 1)[0], name)
        spans: list[tuple[int, int]] = []
        records = _tab_records(text) if delimiter == "\t" else _csv_records(text, name, delimiter, spans)
        if not multiline_cells:
            records = _single_line_records(records, spans, name)
        table = _table_from_records(records, name)
        if spans:
            notes.append(_spans_note(spans))
    table.notes.extend(notes)
    return table


def _tab_records(text: str) -> Iterator[tuple[int, list[str]]]:
    """(line, cells) per line of tab-separated text: no quoting."""
    lines, _ = split_lines(text)
    for number, line in enumerate(lines, start=1):
        yield number, line.split("\t")


_QUOTING_HELP = (
    'in CSV (RFC 4180) a cell that starts with " must end with " before the next delimiter, and a quote inside a '
    'quoted cell is written twice (""); or save the table as TSV, which has no quoting'
)


def _csv_records(
    text: str, name: str, delimiter: str, spans: list[tuple[int, int]]
) -> Iterator[tuple[int, list[str]]]:
    """(first line, cells) per RFC 4180 record, read strictly; records spanning lines are appended to ``spans``."""
    csv.field_size_limit(max(csv.field_size_limit(), MAX_FILE_BYTES))  # one cell may be a whole long segment
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    start = 1
    try:
        for record in reader:
            if reader.line_num > start:
                spans.append((start, reader.line_num))
            yield start, record
            start = reader.line_num + 1
    except csv.Error as err:
        if "unexpected end of data" in str(err):
            raise InputError(name, f"a quoted cell that starts on this line is never closed; {_QUOTING_HELP}",
                             line=start) from None
        if "expected after" in str(err):
            raise InputError(name, f"text follows the closing quote of a quoted cell; {_QUOTING_HELP}",
                             line=reader.line_num) from None
        raise InputError(name, f"cannot parse: {err}", line=reader.line_num) from None


def _single_line_records(
    records: Iterable[tuple[int, list[str]]], spans: list[tuple[int, int]], name: str
) -> Iterator[tuple[int, list[str]]]:
    """``records``, refusing the first one that spans lines (``spans`` grows as ``records`` is read)."""
    for line, record in records:
        if spans:
            first, last = spans[0]
            raise InputError(
                name,
                f"a quoted cell runs from line {first} to line {last}; this table's cells hold no line breaks, so "
                f"the quote is probably text that was not escaped and joins rows into one; {_QUOTING_HELP}",
                line=first,
            )
        yield line, record


def _spans_note(spans: list[tuple[int, int]]) -> str:
    shown = line_list([f"{a}–{b}" for a, b in spans])
    return (f"{len(spans)} row(s) hold a quoted cell with a line break (RFC 4180), kept as one row each "
            f"(lines {shown}); in text the break is read as a space")


def _header(cells: list[str], name: str) -> tuple[list[str], tuple[str, ...]]:
    header = [clean_segment(cell)[0].strip() for cell in cells]
    if not any(header):
        raise InputError(name, "the first line (header) is empty", line=1)
    unnamed = tuple(f"column_{i}" for i, h in enumerate(header) if not h)
    header = [h if h else f"column_{i}" for i, h in enumerate(header)]
    dupes = {h for h in header if header.count(h) > 1}
    if dupes:
        raise InputError(name, f"duplicate column name(s) {', '.join(sorted(dupes))} in the header", line=1)
    return header, unnamed


def _table_from_records(records: Iterable[tuple[int, list[str]]], name: str) -> Table:
    records = iter(records)
    first = next(records, None)
    if first is None:
        raise InputError(name, "file is empty")
    header, unnamed = _header(first[1], name)
    rows: list[dict[str, str]] = []
    lines: list[int] = []
    for line, record in records:
        if not any(cell.strip() for cell in record):
            continue
        if len(record) != len(header):
            raise InputError(name, f"row has {len(record)} fields, the header has {len(header)}", line=line)
        rows.append(dict(zip(header, record, strict=True)))
        lines.append(line)
    if not rows:
        raise InputError(name, "table has a header but no rows")
    return Table(name, header, rows, lines, unnamed=unnamed)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _read_jsonl(text: str, name: str) -> Table:
    lines_text, _ = split_lines(text)
    rows: list[dict[str, str]] = []
    lines: list[int] = []
    columns: list[str] = []
    for no, raw in enumerate(lines_text, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as err:
            raise InputError(name, f"not valid JSON: {err.msg}", line=no) from None
        if not isinstance(obj, dict):
            raise InputError(name, "each line must be a JSON object", line=no)
        row = {str(k): "" if v is None else str(v) for k, v in obj.items()}
        if any(_SURROGATE.search(k) or _SURROGATE.search(v) for k, v in row.items()):
            raise InputError(name, "an unpaired UTF-16 surrogate escape (\\ud800–\\udfff) is no character", line=no)
        for key in row:
            if key not in columns:
                columns.append(key)
        rows.append(row)
        lines.append(no)
    if not rows:
        raise InputError(name, "no JSON lines")
    for row in rows:
        for c in columns:
            row.setdefault(c, "")
    return Table(name, columns, rows, lines)


# ---------------------------------------------------------------------------------------------------------------
# Explicit conversion of cells

_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_NON_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_COMMA_FRACTION = re.compile(r",(\d*)", re.ASCII)
_DIGITS_COMMAS_DOTS = re.compile(r"[+-]?[\d.,]*\d[\d.,]*", re.ASCII)

#: The decimal-comma rule, as stated in notes and reasons.
DECIMAL_COMMA_RULE = (
    "a comma is read as a decimal comma only in a value with exactly one comma, no dot and not exactly three "
    "digits after the comma (85,5 → 85.5)"
)


@dataclass(frozen=True)
class NumberCell:
    """What a cell holds as a number: ``value`` (``None`` when none), whether it was read with a decimal comma,
    and ``problem``: why a non-empty cell holds no number (``""`` for a number or an empty cell)."""

    value: float | None
    decimal_comma: bool = False
    problem: str = ""


def read_number(cell: str) -> NumberCell:
    """Read a cell as a number (rules: :func:`parse_number`), saying why a non-empty cell holds none."""
    text = cell.strip()
    if not text:
        return NumberCell(None)
    if _DECIMAL.fullmatch(text) or _NON_FINITE.fullmatch(text):
        return NumberCell(float(text))
    if "," not in text:
        return NumberCell(None, problem=f"not a finite number ({text[:20]!r})")
    with_dot = text.replace(",", ".")
    fraction = _COMMA_FRACTION.search(text)
    if text.count(",") == 1 and "." not in text and _DECIMAL.fullmatch(with_dot) and fraction:
        if len(fraction.group(1)) != 3:
            return NumberCell(float(with_dot), decimal_comma=True)
    if _DIGITS_COMMAS_DOTS.fullmatch(text) or _DECIMAL.fullmatch(with_dot):
        return NumberCell(None, problem=f"ambiguous number {text[:20]!r}: thousands separator or decimal comma? "
                          f"({DECIMAL_COMMA_RULE}; write plain digits with a dot, e.g. 1000 or 85.5)")
    return NumberCell(None, problem=f"not a finite number ({text[:20]!r})")


def parse_number(cell: str) -> float | None:
    """The number a cell holds, or ``None`` when it holds none (empty, text, a locale-ambiguous value).

    Surrounding whitespace is ignored. A number is an ASCII decimal with an optional sign, fraction and exponent
    (``3``, ``-0.5``, ``.5``, ``1e-3``). A comma is a decimal comma only in a value with exactly one comma, no dot
    and not exactly three digits after the comma (``85,5`` → 85.5, ``-0,25`` → −0.25); every other value with a
    comma is no number (``1,000``, ``1,000,000``, ``1.000,5``, ``0,125``: a thousands separator or a decimal comma
    cannot be told apart; :func:`read_number` gives the reason). ``inf``, ``infinity`` and ``nan`` (any case,
    optional sign) are numbers, not finite ones: callers that need a finite score check :func:`math.isfinite`.
    """
    return read_number(cell).value
