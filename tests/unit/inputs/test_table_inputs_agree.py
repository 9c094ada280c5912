"""Every table input reads a file the same way: a long table, human scores, raw judgments for QC, given scores.

Three files that table readers easily disagree on — UTF-32 with a BOM, a ``;``-separated ``.csv`` and a
malformed line — go through every input kind (the library functions, and the CLI for judgments) and give the same
outcome as the plain UTF-8 comma-separated file, or the same InputError naming the file and the line.
"""

from __future__ import annotations

import argparse
import csv
import io
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from korean_eval.cli.qc import register_qc_command
from korean_eval.inputs.human_qc.options import QCOptions
from korean_eval.inputs.human_qc.run import run_qc
from korean_eval.inputs.table_reader import read_table
from korean_eval.inputs.tables import attach_given_scores, attach_human, evalset_from_table
from korean_eval.inputs.text_files import InputError
from korean_eval.model.evalset import EvalSet

HEADER = ["worker", "system", "seg_id", "hyp", "ref", "adequacy"]
REFS = ["고양이가 매트 위에 앉았다.", "오늘은 날씨가 좋다.", "회의는 3시에 시작합니다."]
HYPS = {"A": ["고양이가 매트에 앉았다.", "오늘 날씨가 좋다.", "회의는 세 시에 시작한다."],
        "B": ["고양이는 매트 위에 앉았다.", "오늘은 날씨 좋다.", "회의가 3시에 시작합니다."]}
SCORES = {"A": ["80", "70,5", "65"], "B": ["60", "75", "50"]}  # "70,5": a decimal comma, read alike everywhere
QC = QCOptions(drop_first=0, iqr_k=None)


def rows() -> list[list[str]]:
    return [[f"r{i % 2}", system, str(i), hyp, REFS[i], SCORES[system][i]]
            for system, hyps in HYPS.items() for i, hyp in enumerate(hyps)]


def write(delimiter: str, body: list[list[str]] | None = None) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(rows() if body is None else body)
    return buf.getvalue()


BASELINE = ("scores.csv", write(",").encode())
SAME = {
    "utf-32-bom": ("scores.csv", write(",").encode("utf-32")),
    "semicolon-csv": ("scores.csv", write(";").encode()),
}


def base_evalset() -> EvalSet:
    return evalset_from_table(BASELINE[1], BASELINE[0])


def as_long_table(name: str, data: bytes) -> object:
    ev = evalset_from_table(data, name)
    return ev.seg_ids, ev.refs, ev.systems


def as_human_scores(name: str, data: bytes) -> object:
    return attach_human(base_evalset(), data, name).human


def as_judgments(name: str, data: bytes) -> object:
    table = read_table(data, name)
    return run_qc(table.frame(), QC, lines=table.lines).item_scores


def as_given_scores(name: str, data: bytes) -> object:
    return attach_given_scores(base_evalset(), data, name).given


KINDS: dict[str, Callable[[str, bytes], object]] = {
    "long table": as_long_table, "human scores": as_human_scores, "judgments": as_judgments,
    "given scores": as_given_scores,
}


def equal(a: object, b: object) -> bool:
    if isinstance(a, pd.DataFrame) and isinstance(b, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
        return True
    return a == b


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", SAME)
def test_same_table_through_every_input(case: str, kind: str) -> None:
    read = KINDS[kind]
    assert equal(read(*SAME[case]), read(*BASELINE))


def test_the_scores_are_the_same_in_every_input() -> None:
    # the decimal comma is converted by the same rule for human scores, judgments and given scores
    human = as_human_scores(*SAME["semicolon-csv"]).set_index(["system", "seg_id"])["score"]
    given = as_given_scores(*SAME["semicolon-csv"]).set_index(["system", "seg_id"])["score"]
    qc = as_judgments(*SAME["semicolon-csv"]).set_index(["system", "seg_id"])["score_raw"]
    assert human[("A", "1")] == given[("A", "1")] == qc[("A", "1")] == 70.5
    assert len(human) == len(given) == len(qc) == 6


MALFORMED = {
    "extra field": (write(",", [*rows()[:2], [*rows()[2], "extra"], *rows()[3:]]), 4, "row has 7 fields, the header has 6"),
    "missing field": (write(",", [*rows()[:4], rows()[4][:5], *rows()[5:]]), 6, "row has 5 fields, the header has 6"),
    # an unterminated quote would take the rest of the file into one cell: refused where it opens
    "unterminated quote": (write(",") + 'r0,A,"9,x,y,1\n', 8, "a quoted cell that starts on this line is never "
                           'closed; in CSV (RFC 4180) a cell that starts with " must end with " before the next '
                           'delimiter, and a quote inside a quoted cell is written twice (""); or save the table as '
                           "TSV, which has no quoting"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_line_gives_the_same_error_through_every_input(case: str) -> None:
    text, line, problem = MALFORMED[case]  # as InputError(file, line, problem)
    errors = []
    for read in KINDS.values():
        with pytest.raises(InputError) as err:
            read("bad.csv", text.encode())
        errors.append((err.value.file, err.value.line, err.value.problem))
    assert len(set(errors)) == 1, errors
    assert errors[0] == ("bad.csv", line, problem)


def test_cli_qc_reads_judgments_like_the_library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    register_qc_command(parser.add_subparsers())
    for case, (name, data) in {**SAME, "baseline": BASELINE}.items():
        path = tmp_path / case / name
        path.parent.mkdir()
        path.write_bytes(data)
        args = parser.parse_args(["qc", "--judgments", str(path), "--drop-first", "0", "--no-fences",
                                  "--item-scores-out", str(path.with_suffix(".items.csv"))])
        assert args.func(args) == 0
        assert "Kept 6 of 6 judgments." in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text(MALFORMED["extra field"][0], encoding="utf-8")
    args = parser.parse_args(["qc", "--judgments", str(bad)])
    assert args.func(args) == 2
    assert capsys.readouterr().err == "error: bad.csv, line 4: row has 7 fields, the header has 6\n"
