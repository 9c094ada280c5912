"""The one table reader (korean_eval.inputs.table_reader): decoding, the delimiter rule, quoting, strings only, errors."""

from __future__ import annotations

import codecs
import io
import zipfile

import pytest

from korean_eval.inputs import text_files as textio
from korean_eval.inputs.table_reader import Table, choose_delimiter, parse_number, read_table
from korean_eval.inputs.text_files import InputError, read_input_file

HEADER = ["worker", "DocID", "SentID", "Sys", "Adequacy"]
ROW = ["작업자1", "1", "1", "시스템", "50"]
TSV = "\t".join(HEADER) + "\n" + "\t".join(ROW) + "\n"


def cells(table: Table) -> list[list[str]]:
    return [[row[c] for c in table.columns] for row in table.rows]


@pytest.mark.parametrize(
    "data",
    [
        TSV.encode(),
        codecs.BOM_UTF8 + TSV.encode(),
        TSV.encode("cp949"),
        TSV.encode("utf-16"),  # with a BOM
        TSV.encode("utf-16-le"),  # without a BOM
        TSV.encode("utf-32"),  # with a BOM
        TSV.replace("\n", "\r\n").encode(),
    ],
    ids=["utf-8", "utf-8-bom", "cp949", "utf-16-bom", "utf-16-le", "utf-32-bom", "crlf"],
)
def test_every_encoding_gives_the_same_table(data: bytes) -> None:
    table = read_table(data, "x.tsv")
    assert table.columns == HEADER and cells(table) == [ROW] and table.lines == [2]


@pytest.mark.parametrize(
    ("header", "name", "delimiter"),
    [
        ("a,b", "x.csv", ","),
        ("a;b;c", "x.csv", ";"),  # a ;-separated .csv: the header lacks a comma
        ("a\tb", "x.csv", "\t"),
        ("a\tb,c\td", "x.tsv", "\t"),
        ("a,b", "x.tsv", ","),  # a comma-separated .tsv
        ("a;b", "x.txt", ";"),
        ("a|b", "upload", "|"),
        ("a,b\tc", "x.txt", ","),  # a tie: comma first
        ("a;b;c,d", "x.TXT", ";"),  # most frequent
        ("abc", "x.tsv", "\t"),  # one column
        ("abc", "x.txt", ","),
    ],
)
def test_one_delimiter_rule(header: str, name: str, delimiter: str) -> None:
    assert choose_delimiter(header, name) == delimiter


def test_semicolon_csv_is_read_as_semicolon_separated() -> None:
    table = read_table(b"system;seg_id;score\nA;0;80,5\n", "human.csv")
    assert table.columns == ["system", "seg_id", "score"] and cells(table) == [["A", "0", "80,5"]]


def test_tsv_has_no_quoting() -> None:
    data = 'system\tseg_id\thyp\nA\t0\t"인용" 문장\nB\t0\t"\n'.encode()
    table = read_table(data, "t.tsv")
    assert cells(table) == [["A", "0", '"인용" 문장'], ["B", "0", '"']]


def test_csv_follows_rfc_4180() -> None:
    data = 'a,b\n"x, y","두\n줄"\n"say ""hi""",\n'.encode()
    table = read_table(data, "t.csv")
    assert cells(table) == [["x, y", "두\n줄"], ['say "hi"', ""]]
    assert table.lines == [2, 4]


def test_cells_are_strings_as_in_the_file() -> None:
    table = read_table(b"a,b,c,d\nNA,null,3.10, 5 \n", "t.csv")
    assert cells(table) == [["NA", "null", "3.10", " 5 "]]
    assert table.frame().dtypes.map(str).tolist() == ["object"] * 4


def test_header_names() -> None:
    # names: NFC, invisible characters removed, stripped; an empty name gets a placeholder
    table = read_table(",\u200bname ,x\n0,a,b\n".encode(), "t.csv")
    assert table.columns == ["column_0", "name", "x"] and table.unnamed == ("column_0",)
    with pytest.raises(InputError, match="duplicate column name"):
        read_table(b"a,a\n1,2\n", "t.csv")
    with pytest.raises(InputError, match="header.*empty") as err:
        read_table(b"\na,b\n1,2\n", "t.csv")
    assert err.value.line == 1


def test_blank_rows_are_skipped_and_lines_kept() -> None:
    table = read_table(b"a,b\n\n1,2\n,\n3,4\n", "t.csv")
    assert cells(table) == [["1", "2"], ["3", "4"]] and table.lines == [3, 5]
    table = read_table(b"a\tb\n\n1\t2\n\t\n3\t4\n", "t.tsv")
    assert cells(table) == [["1", "2"], ["3", "4"]] and table.lines == [3, 5]


def test_jsonl() -> None:
    data = b'{"system": "A", "seg_id": 0, "score": 1.5}\n\n{"system": "B", "seg_id": 1, "extra": null}\n'
    table = read_table(data, "s.jsonl")
    assert table.columns == ["system", "seg_id", "score", "extra"]
    assert cells(table) == [["A", "0", "1.5", ""], ["B", "1", "", ""]] and table.lines == [1, 3]


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("t.csv", "a,b\n")
    return buf.getvalue()


@pytest.mark.parametrize(
    ("data", "message", "line"),
    [
        (b"", "file is empty", None),
        (codecs.BOM_UTF8, "file is empty", None),
        (b"a,b\n", "header but no rows", None),
        (b"a,b\n1,2\n3,4,5\n", "row has 3 fields, the header has 2", 3),
        (b"a,b\n1\n", "row has 1 fields, the header has 2", 2),
        (b"a,b\n1,2\n" + "\ud55c".encode("utf-8")[:2] + b"\x80\xff\n", "cannot be decoded", 3),
        (bytes(range(256)) * 4, "binary data", 1),
        (_zip(), "zip archive", None),
    ],
)
def test_bad_tables_name_file_and_line(data: bytes, message: str, line: int | None) -> None:
    with pytest.raises(InputError) as err:
        read_table(data, "broken.csv")
    assert err.value.file == "broken.csv" and message in err.value.problem and err.value.line == line


def test_bad_jsonl_names_the_line() -> None:
    with pytest.raises(InputError, match="not valid JSON") as err:
        read_table(b'{"a": 1}\n{broken\n', "s.jsonl")
    assert err.value.line == 2


def test_size_limit(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setattr(textio, "MAX_FILE_BYTES", 10)
    with pytest.raises(InputError, match="the limit is"):
        read_table(b"a,b\n1,2\n3,4\n", "big.csv")
    path = tmp_path / "big.csv"
    path.write_bytes(b"a,b\n1,2\n3,4\n")
    with pytest.raises(InputError, match="the limit is") as err:
        read_input_file(path, "judgments")  # refused before reading
    assert err.value.file == "big.csv"


def test_read_input_file(tmp_path) -> None:
    path = tmp_path / "j.csv"
    path.write_bytes(b"a\n1\n")
    assert read_input_file(path, "judgments") == ("j.csv", b"a\n1\n")
    with pytest.raises(InputError, match="judgments file not found"):
        read_input_file(tmp_path / "nope.csv", "judgments")


@pytest.mark.parametrize(
    ("cell", "number"),
    [
        ("3", 3.0), (" -0.5 ", -0.5), (".5", 0.5), ("5.", 5.0), ("1e-3", 0.001), ("+2E2", 200.0), ("3.10", 3.1),
        ("80,5", 80.5), ("1,000", None), ("", None), ("  ", None), ("NA", None), ("null", None), ("good", None),
        ("1,000.5", None), ("1_000", None), ("５０", None), ("0x10", None),
    ],
)
def test_parse_number(cell: str, number: float | None) -> None:
    assert parse_number(cell) == number


def test_parse_number_non_finite() -> None:
    assert parse_number("inf") == float("inf") and parse_number("-Infinity") == float("-inf")
    nan = parse_number("NaN")
    assert nan is not None and nan != nan
