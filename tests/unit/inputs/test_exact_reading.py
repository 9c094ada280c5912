"""Text files and tables are read exactly as written: quotes eat no rows, nothing is guessed (types, missing values),
messages name the right line, and random tables come back exactly as written, as CSV (Python's ``csv`` module) and
as TSV (a property test).

Every case asserts the exact outcome: an error naming file and line, or the data with every change noted.
"""

from __future__ import annotations

import csv
import io
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from korean_eval.cli.main import main
from korean_eval.inputs.human_qc.options import QCOptions
from korean_eval.inputs.human_qc.run import run_qc
from korean_eval.inputs.table_reader import read_table
from korean_eval.inputs.tables import attach_human, evalset_from_table
from korean_eval.inputs.text_files import InputError, read_text_lines
from korean_eval.model.evalset import evalset_from_texts

REF = ["가나다 라마", "바사 아자차", "카타 파하"]
HYPS = {"한국어시스템": ["가나다 라마", "바사 아자", "카 파하"], "b": ["가나 라마바", "사 아자차", "카타 파"]}
QUOTING = 'in CSV (RFC 4180) a cell that starts with " must end with " before the next delimiter'


def refused(call, *args, line: int, problem: str) -> InputError:
    with pytest.raises(InputError) as err:
        call(*args)
    assert err.value.line == line and problem in err.value.problem, (err.value.line, err.value.problem)
    return err.value


def long_csv(rows: list[list[str]]) -> bytes:
    return ("system,seg_id,hyp,ref\n" + "".join(",".join(r) + "\n" for r in rows)).encode()


def texts_evalset(names=None):
    return evalset_from_texts(
        [("ref.txt", ("\n".join(REF) + "\n").encode())],
        [(f"{n}.txt", ("\n".join(h) + "\n").encode()) for n, h in HYPS.items()],
        system_names=names,
    )


# --------------------------------------------------------------------------------------- quotes eat no rows


def test_unmatched_quote_in_a_csv_hypothesis_is_refused_where_it_opens() -> None:
    data = long_csv([["A", "0", "좋은 번역", "참조"], ["A", "1", '"따옴표로 시작하는 번역', "참조2"],
                     ["B", "0", "x", "참조"], ["B", "1", "y", "참조2"]])
    refused(evalset_from_table, data, "long.csv", line=3, problem=f"never closed; {QUOTING}")


def test_korean_cell_starting_with_a_quoted_phrase_is_refused_not_stripped() -> None:
    data = long_csv([["A", "0", '"경제가 회복된다" 정부 발표', "참조"], ["B", "0", "x", "참조"]])
    refused(evalset_from_table, data, "long.csv", line=2, problem=f"text follows the closing quote of a quoted cell; {QUOTING}")
    # the same cell written as RFC 4180 says keeps its quotes exactly
    ok = long_csv([["A", "0", '"""경제가 회복된다"" 정부 발표"', "참조"], ["B", "0", "x", "참조"]])
    assert evalset_from_table(ok, "long.csv").systems["A"] == ['"경제가 회복된다" 정부 발표']


def test_quotes_in_a_tsv_are_text_and_swallow_nothing() -> None:
    rows = [["A", "0", '"경제가 회복된다" 정부 발표', "참조"], ["A", "1", '"열린 따옴표만', "참조2"],
            ["B", "0", 'x"', "참조"], ["B", "1", "y", "참조2"]]
    data = ("system\tseg_id\thyp\tref\n" + "".join("\t".join(r) + "\n" for r in rows)).encode()
    ev = evalset_from_table(data, "long.tsv")
    assert ev.systems == {"A": ['"경제가 회복된다" 정부 발표', '"열린 따옴표만'], "B": ['x"', "y"]}


def test_human_tsv_with_a_lone_quote_loses_no_row() -> None:
    ev = texts_evalset()
    human = 'system\tseg_id\tscore\tcomment\nb\t0\t70\t"unfinished\nb\t1\t60\tok\nb\t2\t50\t"\n'
    attach_human(ev, human.encode(), "human.tsv")
    assert sorted(ev.human["score"]) == [50, 60, 70] and not ev.report.excluded


def test_plain_text_files_are_never_parsed_with_quoting() -> None:
    lines = ['"인용으로 시작', "둘째 줄", '셋째 "줄"']
    doc = read_text_lines(("\n".join(lines) + "\n").encode(), "sys.txt")
    assert doc.lines == lines and not doc.notes


def test_quoted_cell_spanning_lines_in_judgments_is_kept_and_its_lines_named() -> None:
    text = 'worker,DocID,SentID,Sys,Src,Adequacy\na,1,1,S,"two\nlines\nthree",10\na,1,2,S,x,20\n'
    table = read_table(text.encode(), "judgments.csv")
    assert table.lines == [2, 5] and table.rows[0]["Src"] == "two\nlines\nthree"
    assert table.notes == ["1 row(s) hold a quoted cell with a line break (RFC 4180), kept as one row each "
                           "(lines 2–4); in text the break is read as a space"]


# ------------------------------------------------------------------------------------------ nothing guessed

COLS = {"rater_col": "worker", "system_col": "Sys", "item_cols": ("DocID",), "score_cols": ("Adequacy",),
        "drop_first": 0, "zscore": False, "iqr_k": None}


def qc(text: str):
    table = read_table(text.encode(), "judgments.csv")
    return run_qc(table.frame(), QCOptions(**COLS), lines=table.lines)


def test_item_ids_that_look_like_numbers_stay_distinct() -> None:
    result = qc("worker,DocID,Sys,Adequacy\nr1,3.1,S,10\nr1,3.10,S,90\nr1,03,S,50\nr1,3,S,70\n")
    scores = result.item_scores.set_index("seg_id")["score"].to_dict()
    assert scores == {"3.1": 10, "3.10": 90, "03": 50, "3": 70}  # four items, none merged or averaged


def test_system_na_and_rater_null_are_names_not_missing_values() -> None:
    result = qc("worker,DocID,Sys,Adequacy\nnull,1,NA,10\nnull,2,NA,20\nNone,1,nan,30\n")
    assert result.report.n_kept == 3 and set(result.item_scores["system"]) == {"NA", "nan"}
    assert set(result.judgments["worker"]) == {"null", "None"}


def test_trailing_comma_on_every_row_is_refused_at_the_first_row() -> None:
    refused(read_table, b"worker,DocID,Sys,Adequacy\nr1,1,S,10,\nr1,2,S,20,\n", "judgments.csv",
            line=2, problem="row has 5 fields, the header has 4")


def test_excluded_row_lines_count_blank_lines_and_multi_line_cells() -> None:
    text = 'worker,DocID,Sys,Adequacy\n\nr1,1,S,10\n\n\nr1,"2\n",S,bad\nr1,3,S,1,000\n'
    with pytest.raises(InputError) as err:  # 1,000 unquoted is five fields: refused at its line
        read_table(text.encode(), "judgments.csv")
    assert err.value.line == 8
    result = qc(text.replace("1,000", '"1,000"'))
    assert list(zip(result.report.invalid_rows["line"], result.report.invalid_rows["reason"], strict=True)) == [
        (6, "non-numeric Adequacy"),
        (8, "ambiguous number in Adequacy (thousands separator or decimal comma? write 1000 or 85.5)"),
    ]


# --------------------------------------------------------------------------------------- messages at the line


@pytest.mark.parametrize("data,line", [
    (b"first\nsecond\nth\x00ird\n", 3),
    (b"\x00", 1),
    (b"a\r\nb\r\nc\x00\r\n", 3),
])
def test_nul_byte_is_reported_at_its_line(data: bytes, line: int) -> None:
    err = refused(read_text_lines, data, "sys.txt", line=line, problem="binary data, not a text file: a NUL byte")
    assert f"offset {data.index(0)}" in err.problem


def test_unpaired_surrogate_is_reported_at_its_line() -> None:
    good = "첫째\n둘째\n".encode("utf-16-le")
    lone = b"\x00\xd8"  # a high surrogate without its low half, then more text
    data = b"\xff\xfe" + good + lone + "셋째\n".encode("utf-16-le")
    refused(read_text_lines, data, "ref.txt", line=3, problem="illegal UTF-16 surrogate")
    refused(read_table, b'{"system": "A", "hyp": "ok"}\n\n{"system": "A", "hyp": "\\ud83d"}\n', "t.jsonl",
            line=3, problem="unpaired UTF-16 surrogate")
    refused(read_text_lines, "가\n나\n".encode() + b"\xed\xa0\x80\n", "sys.txt", line=3, problem="not UTF-8")


def test_stray_carriage_returns_are_spaces_named_at_their_lines() -> None:
    doc = read_text_lines("하나\r\n둘\r셋\r\n넷\r\n다섯\r여섯\r\n".encode(), "sys.txt")
    assert doc.lines == ["하나", "둘 셋", "넷", "다섯 여섯"]
    assert any("carriage returns (CR) inside 2 line(s) read as spaces (line 2, 4)" in n for n in doc.notes)
    table = read_table(b"system\tseg_id\tscore\nA\t1\t5\nA\t2\r\t6\n", "human.tsv")
    assert [r["seg_id"] for r in table.rows] == ["1", "2 "] and table.lines == [2, 3]
    assert any("(line 3)" in n for n in table.notes)


def test_cr_only_file_still_splits_lines() -> None:
    assert read_text_lines("가\r나\r다\r".encode(), "mac.txt").lines == ["가", "나", "다"]


def test_system_names_differing_only_in_normalisation_match() -> None:
    nfd = unicodedata.normalize("NFD", "한국어시스템")
    ev = texts_evalset()
    human = "".join(f"{nfd}\t{i}\t{50 + i}\n" for i in range(3))
    attach_human(ev, ("system\tseg_id\tscore\n" + human).encode(), "human.tsv")
    assert list(ev.human["system"].unique()) == ["한국어시스템"] and not ev.report.excluded
    # a zero-width space in a name is invisible: refused (a name is kept exactly or refused, never changed)
    ev = texts_evalset()
    with pytest.raises(InputError, match=r"^h\.tsv, line 2: system name '한국어\\u200b시스템' holds U\+200B"):
        attach_human(ev, "system\tseg_id\tscore\n한국어\u200b시스템\t0\t1\n한국어시스템\t1\t2\n".encode(), "h.tsv")


def test_two_file_names_that_normalise_alike_are_one_name_refused_as_duplicate() -> None:
    with pytest.raises(InputError, match="duplicate system name '한국어시스템'"):
        texts_evalset(names=["한국어시스템", unicodedata.normalize("NFD", "한국어시스템")])


def test_no_usable_human_rows_says_which_rows_and_names() -> None:
    ev = texts_evalset()
    err = refused(attach_human, ev, b"system\tseg_id\tscore\nsys_x\t0\t1\nsys_x\t1\t2\nb\t9\t3\n", "human.tsv",
                  line=None, problem="no usable human score rows")
    assert "3 row(s) excluded: unknown system (2; lines 2, 3); unknown seg_id (1; line 4)" in err.problem
    assert len(ev.report.excluded) == 3  # and the report keeps every excluded row


def test_cli_names_the_line_of_a_stray_quote(tmp_path, capsys) -> None:
    table = tmp_path / "long.csv"
    table.write_bytes(long_csv([["A", "0", "x", "r"], ["A", "1", '"열린', "r2"], ["B", "0", "y", "r"]]))
    code = main(["run", "--table", str(table), "--levels", "char", "--metrics", "bleu", "--no-cache", "--quiet",
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert "long.csv, line 3: a quoted cell that starts on this line is never closed" in err


# ------------------------------------------------------------------------------- property: exact round trips

CELL = st.one_of(
    st.sampled_from(["NA", "null", "None", "nan", "3.10", "007", "1,000", "85,5", '"', '""', "'", ",", ";", " ",
                     "", "-", "1e5", "TRUE", '"경제가 회복된다" 정부 발표', "한국어, 쉼표", "|"]),
    st.text(st.sampled_from('가나다라 ,;|"\'.0123abcNAul'), max_size=12),
)
NAMES = st.lists(st.text(st.sampled_from("abcdefgh가나다"), min_size=1, max_size=6), min_size=1, max_size=5,
                 unique=True)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _rows(data, width: int, cell=CELL) -> list[list[str]]:
    rows = data.draw(st.lists(st.lists(cell, min_size=width, max_size=width), min_size=1, max_size=8))
    return [r for r in rows if any(c.strip() for c in r)] or [["x"] * width]


@SETTINGS
@given(names=NAMES, data=st.data())
def test_csv_written_by_the_csv_module_reads_back_exactly(names: list[str], data) -> None:
    rows = _rows(data, len(names), st.one_of(CELL, st.sampled_from(["줄\n바꿈", '"\n"', "\n"])))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=data.draw(st.sampled_from(["\n", "\r\n"])))
    writer.writerow(names)
    writer.writerows(rows)
    table = read_table(buffer.getvalue().encode(), "t.csv")
    assert table.columns == names
    assert [[row[c] for c in names] for row in table.rows] == rows


@SETTINGS
@given(names=NAMES, data=st.data())
def test_tsv_written_by_joining_cells_reads_back_exactly(names: list[str], data) -> None:
    rows = _rows(data, len(names))
    text = "\t".join(names) + "\n" + "".join("\t".join(r) + "\n" for r in rows)
    table = read_table(text.encode(), "t.tsv")
    assert table.columns == names
    assert [[row[c] for c in names] for row in table.rows] == rows
