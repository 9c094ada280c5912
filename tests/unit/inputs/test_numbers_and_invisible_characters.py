"""Values are never silently reinterpreted: a number with a comma is read only by the decimal-comma rule (a
locale-ambiguous one such as ``1,000`` is no number: its row is excluded and counted, in human and given scores and
through the command line), and invisible format characters are removed from text files and tables and counted."""

import pandas as pd
import pytest
from scipy import stats

from korean_eval.cli.main import main
from korean_eval.inputs.table_reader import parse_number, read_number
from korean_eval.inputs.tables import attach_given_scores, attach_human, evalset_from_table
from korean_eval.inputs.text_files import clean_segment, read_text_lines
from korean_eval.model.evalset import EvalSet, evalset_from_texts


@pytest.mark.parametrize(
    ("cell", "number"),
    [("85,5", 85.5), ("-0,25", -0.25), ("80,50", 80.5), (" 7,5 ", 7.5), ("+1,5e3", 1500.0)],
)
def test_decimal_comma_is_read_only_by_its_rule(cell: str, number: float) -> None:
    got = read_number(cell)
    assert got.value == number and got.decimal_comma and got.problem == ""
    assert parse_number(cell) == number


@pytest.mark.parametrize("cell", ["1,000", "1,000,000", "1.000,5", "1,000.5", "0,125", "-12,345", "1,2,3"])
def test_locale_ambiguous_values_are_no_numbers(cell: str) -> None:
    got = read_number(cell)
    assert got.value is None and parse_number(cell) is None
    assert got.problem.startswith(f"ambiguous number {cell!r}: thousands separator or decimal comma?")


def test_plain_numbers_unchanged() -> None:
    for cell, number in [("3", 3.0), ("3.10", 3.1), (".5", 0.5), ("1e-3", 0.001), ("1000", 1000.0)]:
        got = read_number(cell)
        assert (got.value, got.decimal_comma, got.problem) == (number, False, "")
    assert read_number("good").problem == "not a finite number ('good')"
    assert read_number("  ") == read_number("")


def _evalset() -> EvalSet:
    return evalset_from_texts(
        [("ref.txt", "가 나\n다 라\n마 바\n".encode())],
        [("A.txt", "가 나\n다\n마 바\n".encode()), ("B.txt", "가\n다 라\n마\n".encode())],
    )


def test_human_scores_ambiguous_excluded_by_line_decimal_comma_counted() -> None:
    ev = _evalset()
    human = "system\tseg_id\tscore\nA\t0\t85,5\nA\t1\t1,000\nA\t2\t70\nB\t0\t1.000,5\nB\t1\t60,25\nB\t2\t1,000,000\n"
    attach_human(ev, human.encode(), "human.tsv")
    excluded = ev.report.excluded_frame()
    assert list(excluded["file"]) == ["human.tsv"] * 3
    assert list(excluded["line"]) == [3, 5, 7]
    assert all(r.startswith("score: ambiguous number") for r in excluded["reason"])
    assert "'1,000'" in excluded["reason"].iloc[0] and "'1.000,5'" in excluded["reason"].iloc[1]
    got = {(r.system, r.seg_id): r.score for r in ev.human.itertuples()}
    assert got == {("A", "0"): 85.5, ("A", "2"): 70.0, ("B", "1"): 60.25}
    assert any(n.startswith("human.tsv: 2 score(s) read with a decimal comma: a comma is read") for n in ev.report.notes)


def test_given_scores_ambiguous_excluded_per_metric() -> None:
    ev = _evalset()
    scores = "system;seg_id;m1;m2\nA;0;0,5;1,000\nA;1;0,25;2\nA;2;1.000,5;3\n"
    attach_given_scores(ev, scores.encode(), "scores.csv")
    excluded = ev.report.excluded_frame()
    assert [(line, reason.split(":")[0]) for line, reason in zip(excluded["line"], excluded["reason"], strict=True)] == [
        (4, "m1"), (2, "m2"),
    ]
    given = {(r.seg_id, r.metric): r.score for r in ev.given.itertuples()}
    assert given == {("0", "m1"): 0.5, ("1", "m1"): 0.25, ("1", "m2"): 2.0, ("2", "m2"): 3.0}


def test_cli_given_scores_with_ambiguous_value_exit_0_and_exact_correlation(tmp_path, capsys) -> None:
    rows = [("A", 0, "1", "0,1"), ("A", 1, "2", "0,3"), ("B", 0, "3", "0,2"), ("B", 1, "5", "0,9"), ("C", 0, "2", "0,4"),
            ("C", 1, "1", "0,2"), ("C", 2, "4", "1,000")]
    (tmp_path / "h.tsv").write_text("system\tseg_id\tscore\n" + "".join(f"{s}\t{i}\t{h}\n" for s, i, h, _ in rows))
    (tmp_path / "s.tsv").write_text("system\tseg_id\tcomet\n" + "".join(f"{s}\t{i}\t{m}\n" for s, i, _, m in rows))
    code = main(["run", "--scores", str(tmp_path / "s.tsv"), "--human", str(tmp_path / "h.tsv"), "--bootstrap", "0",
                 "--out", str(tmp_path / "o"), "--quiet", "--no-cache"])
    stderr = capsys.readouterr().err
    assert code == 0, stderr
    assert "s.tsv: 6 score(s) read with a decimal comma" in stderr
    assert "1 input row(s) excluded" in stderr and "ambiguous number '1,000'" in stderr
    corr = pd.read_csv(tmp_path / "o" / "correlations.csv")
    seg = corr[(corr.level == "given") & (corr.granularity == "segment") & (corr.grouping == "none")
               & (corr.statistic == "pearson")]
    expected = stats.pearsonr([0.1, 0.3, 0.2, 0.9, 0.4, 0.2], [1, 2, 3, 5, 2, 1]).statistic
    assert seg["value"].iloc[0] == pytest.approx(expected, abs=1e-12)


FORMAT_CHARACTERS = ["\u200e", "\u200f", "\u2063", "\u180e", "\ufeff", "\u00ad", "\u2061", "\U000e0041"]


def test_clean_segment_removes_every_format_character() -> None:
    for ch in FORMAT_CHARACTERS:
        assert clean_segment(f"한{ch}국어") == ("한국어", False, 1)
    assert clean_segment("".join(FORMAT_CHARACTERS) + "가\t나") == ("가 나", False, len(FORMAT_CHARACTERS))


def test_text_file_format_characters_removed_and_counted() -> None:
    doc = read_text_lines("\u200e가나\u200f\n다\u00ad라\u2063\n\ufeff마\u180e\n".encode(), "sys.txt")
    assert doc.lines == ["가나", "다라", "마"]
    assert doc.removed_invisible == 6
    assert any(n.startswith("6 invisible/control character(s) removed") for n in doc.notes)


def test_table_format_characters_removed_counted_and_same_data_as_clean() -> None:
    dirty = "system,seg_id,hyp,ref\nA,1,\u200e가 나\u00ad,가 나\nA,2,다\u2063,다 라\u200f\nB,1,가,가 나\nB,2,다 라,다 라\n"
    clean = "system,seg_id,hyp,ref\nA,1,가 나,가 나\nA,2,다,다 라\nB,1,가,가 나\nB,2,다 라,다 라\n"
    ev_dirty = evalset_from_table(dirty.encode(), "long.csv")
    ev_clean = evalset_from_table(clean.encode(), "long.csv")
    assert ev_dirty.systems == ev_clean.systems and ev_dirty.refs == ev_clean.refs
    assert ev_dirty.content_hash() == ev_clean.content_hash()
    assert any(n.startswith("long.csv: 4 invisible/control character(s) removed") for n in ev_dirty.report.notes)
