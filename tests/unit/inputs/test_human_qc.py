"""Tests of korean_eval.inputs.human_qc (judgment QC → item scores) and korean_eval.cli.qc (the ``qc`` subcommand).

The small tables are hand-made; the expected numbers are worked out by hand in the comments.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from korean_eval.cli.qc import add_qc_options, qc_options_from_args, register_qc_command
from korean_eval.inputs.human_qc.options import QCOptions, detect_columns
from korean_eval.inputs.human_qc.report import QCResult
from korean_eval.inputs.human_qc.run import run_qc
from korean_eval.inputs.table_reader import read_table
from tests.support.helpers import SHARED, require

STUDY_FILE = SHARED / "data" / "kor_sacrebleu" / "judgments_raw.csv"

COLS = {"rater_col": "worker", "system_col": "Sys", "item_cols": ("DocID", "SentID")}
# Every step off: what is left of run_qc is validation, seg_id and averaging; tests switch on one step at a time.
OFF = {"drop_first": 0, "zscore": False, "iqr_k": None}


def table(rows: list[tuple]) -> pd.DataFrame:
    """(worker, DocID, SentID, Sys, Adequacy, Fluency) rows → a judgments frame."""
    return pd.DataFrame(rows, columns=["worker", "DocID", "SentID", "Sys", "Adequacy", "Fluency"])


def qc_file(text: str, name: str, options: QCOptions) -> QCResult:
    """QC of a judgments file as the CLI and the dashboard run it: the one table reader, then run_qc with lines."""
    judgments = read_table(text.encode(), name)
    return run_qc(judgments.frame(), options, lines=judgments.lines)


@pytest.fixture(scope="module")
def study_df() -> pd.DataFrame:
    """The study's judgments, every cell a string; skipped only when ../shared is absent, and a failure (not a skip)
    under CI=true."""
    return read_table(require(STUDY_FILE).read_bytes(), STUDY_FILE.name).frame()


# ----------------------------------------------------------------------------------------------- the study


def test_study_procedure_reproduces_table_4(study_df: pd.DataFrame) -> None:
    assert len(study_df) == 8058
    result = run_qc(study_df, QCOptions(**COLS, score_cols=("Adequacy", "Fluency"), drop_first=10, iqr_k=1.5))
    rep = result.report
    assert rep.removed("invalid") == 0
    assert rep.steps.set_index("key").loc["warmup", "remaining"] == 7828  # 8,058 → 7,828: 23 raters × 10
    assert rep.removed("warmup") == 230
    assert rep.removed("zero_variance") == 0
    assert rep.n_kept == 7727 == len(result.judgments)
    means = rep.system_means.set_index("system")
    table4 = {"Sys_A": (68.783, 0.203), "Sys_B": (67.160, 0.112), "Sys_P": (64.688, 0.027), "Sys_Q": (57.734, -0.220)}
    for sys_name, (raw, z) in table4.items():
        assert round(float(means.loc[sys_name, "Adequacy"]), 3) == raw, sys_name
        assert round(float(means.loc[sys_name, "Adequacy_z"]), 3) == z, sys_name
    assert list(rep.system_means["system"]) == ["Sys_A", "Sys_B", "Sys_P", "Sys_Q"]  # human ranking, A first
    # defaults + auto-detection are the study's procedure
    auto = run_qc(study_df, QCOptions())
    assert auto.report.n_kept == 7727
    assert auto.options.score_cols == ("Adequacy", "Fluency")
    assert auto.options.item_cols == ("DocID", "SentID")
    # kept judgments: input columns, then the z columns, in input order
    assert list(result.judgments.columns) == [*study_df.columns, "Adequacy_z", "Fluency_z"]
    assert result.judgments.index.is_monotonic_increasing
    # one judgment per (system, item) in this data: no averaging happens
    assert rep.repeated_pairs == 0 and len(result.item_scores) == 7727
    item = result.item_scores
    assert set(item.columns) >= {"system", "seg_id", "score", "score_raw", "n_judgments", "Adequacy_z", "Fluency_z"}
    assert np.allclose(item.groupby("system")["score"].mean().loc["Sys_A"], means.loc["Sys_A", "Adequacy_z"])
    json.dumps(rep.to_dict())  # JSON-ready
    assert any("7,727" in line for line in rep.summary_lines())


# ------------------------------------------------------------------------------------------ step 1: warm-up


def test_warmup_drops_first_n_per_rater_in_file_order() -> None:
    df = table([
        ("a", 1, 1, "S", 10, 10),  # a#0  warm-up
        ("b", 1, 1, "T", 20, 20),  # b#0  warm-up
        ("a", 1, 2, "S", 30, 30),  # a#1  warm-up
        ("a", 1, 3, "S", 40, 40),  # a#2  kept
        ("b", 1, 2, "T", 50, 50),  # b#1  warm-up
        ("b", 1, 3, "T", 60, 60),  # b#2  kept
        ("a", 1, 4, "S", 70, 70),  # a#3  kept
    ])
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy",), **{**OFF, "drop_first": 2}))
    assert list(r.judgments.index) == [3, 5, 6]
    assert r.report.removed("warmup") == 4
    per = r.report.per_rater.set_index("rater")
    assert per.loc["a", "warmup"] == 2 and per.loc["a", "kept"] == 2
    assert per.loc["b", "warmup"] == 2 and per.loc["b", "kept"] == 1
    # a rater with fewer judgments than N loses all of them
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy",), **{**OFF, "drop_first": 4}))
    assert list(r.judgments.index) == []  # a has 4 rows, b has 3
    assert r.report.n_kept == 0 and len(r.item_scores) == 0
    assert any("no judgments are left" in n for n in r.report.notes)
    r.report.summary_lines()  # no crash on an empty result


# --------------------------------------------------------------------------------------- step 2: z-scores


def test_per_rater_z_population_sd_and_zero_variance_rater() -> None:
    df = table([
        ("a", 1, 1, "S", 10, 0),
        ("a", 1, 2, "S", 20, 0),
        ("a", 1, 3, "S", 30, 30),
        ("b", 1, 1, "T", 50, 5),
        ("b", 1, 2, "T", 70, 15),
        ("c", 1, 1, "U", 40, 1),  # c: Adequacy always 40 → zero variance → excluded
        ("c", 1, 2, "U", 40, 2),
    ])
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy", "Fluency"), drop_first=0, iqr_k=None))
    z = r.judgments
    # a, Adequacy: mean 20, population SD sqrt((100 + 0 + 100) / 3) = sqrt(66.67) = 8.16497 → z = ∓1.224745, 0
    assert np.allclose(z.loc[[0, 1, 2], "Adequacy_z"], [-1.224745, 0.0, 1.224745])
    # a, Fluency: 0, 0, 30: mean 10, SD sqrt((100 + 100 + 400) / 3) = sqrt(200) = 14.1421 → -0.707107, -0.707107, 1.414214
    assert np.allclose(z.loc[[0, 1, 2], "Fluency_z"], [-0.707107, -0.707107, 1.414214])
    # b, Adequacy: mean 60, SD sqrt((100 + 100) / 2) = 10 → -1, 1 (ddof 1 would give ∓0.7071)
    assert np.allclose(z.loc[[3, 4], "Adequacy_z"], [-1.0, 1.0])
    assert np.allclose(z.loc[[3, 4], "Fluency_z"], [-1.0, 1.0])
    assert list(z.index) == [0, 1, 2, 3, 4]
    rep = r.report
    assert rep.removed("zero_variance") == 2
    assert rep.zero_variance_raters.to_dict("records") == [{"rater": "c", "n_judgments": 2, "columns": "Adequacy"}]
    assert rep.per_rater.set_index("rater").loc["c", "zero_variance"] == 2
    assert rep.per_system.set_index("system").loc["U", "kept"] == 0
    assert "U" not in set(r.item_scores["system"])
    assert any("zero variance" in line and "c (Adequacy)" in line for line in rep.summary_lines())
    # item score = mean z of the first score column; score_raw = its raw mean
    items = r.item_scores.set_index(["system", "seg_id"])
    assert math.isclose(items.loc[("S", "1-1"), "score"], -1.224745, rel_tol=1e-6)
    assert items.loc[("S", "1-1"), "score_raw"] == 10


def test_single_judgment_rater_is_zero_variance() -> None:
    # after a warm-up of 1, rater x has one judgment left: SD = 0, z undefined → excluded, reported
    df = table([("x", 1, 1, "S", 10, 10), ("x", 1, 2, "S", 20, 30), ("y", 1, 1, "S", 1, 2),
                ("y", 1, 2, "S", 5, 6), ("y", 1, 3, "S", 9, 9)])
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy", "Fluency"), drop_first=1, iqr_k=None))
    assert list(r.report.zero_variance_raters["rater"]) == ["x"]
    assert r.report.zero_variance_raters["columns"].iloc[0] == "Adequacy, Fluency"
    # y after warm-up: 5, 9 → mean 7, SD 2 → z -1, 1
    assert np.allclose(r.judgments["Adequacy_z"], [-1.0, 1.0])


# ----------------------------------------------------------------------------------- step 3: Tukey fences


def test_tukey_fences_numpy_percentile_inclusive() -> None:
    # raw scores (z off) 2, 2, 2, 4, 4, 4, 10 (sorted positions 0..6):
    # Q1 = percentile 25 → position 1.5 → 2;  Q3 = percentile 75 → position 4.5 → 4;  IQR = 2
    # k = 1.5: fences [2 − 3, 4 + 3] = [−1, 7] → the 10 is out
    # k = 3:   fences [2 − 6, 4 + 6] = [−4, 10] → the 10 sits on the fence and is kept (inclusive)
    rows = [("r", 1, i, "S", v, 50) for i, v in enumerate([2, 2, 2, 4, 4, 4, 10], start=1)]
    df = table(rows)
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy",), **{**OFF, "iqr_k": 1.5}))
    f = r.report.fences.iloc[0]
    assert (f["column"], f["q1"], f["q3"], f["iqr"], f["lower"], f["upper"]) == ("Adequacy", 2, 4, 2, -1, 7)
    assert list(r.judgments["Adequacy"]) == [2, 2, 2, 4, 4, 4]
    assert r.report.removed("outside_fences") == 1
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy",), **{**OFF, "iqr_k": 3.0}))
    assert r.report.fences.iloc[0]["upper"] == 10
    assert r.report.n_kept == 7


def test_fences_must_hold_for_every_score_column() -> None:
    # Adequacy 1..9, 100 → Q1 = 3.25 (pos 2.25), Q3 = 7.75 (pos 6.75), IQR 4.5, fences [−3.5, 14.5]: 100 is out
    # Fluency  −50, 2, 3, …, 10 (already sorted): Q1 = pos 2.25, between 3 and 4 → 3.25; Q3 = pos 6.75, between
    #          7 and 8 → 7.75; the same fences [−3.5, 14.5]: −50 (row 0) is out
    ade = [1, 2, 3, 4, 5, 6, 7, 8, 9, 100]
    flu = [-50, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    df = table([("r", 1, i, "S", a, f) for i, (a, f) in enumerate(zip(ade, flu, strict=True), start=1)])
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy", "Fluency"), **{**OFF, "iqr_k": 1.5}))
    fences = r.report.fences.set_index("column")
    assert np.allclose(fences.loc["Adequacy", ["q1", "q3", "lower", "upper"]], [3.25, 7.75, -3.5, 14.5])
    assert np.allclose(fences.loc["Fluency", ["q1", "q3", "lower", "upper"]], [3.25, 7.75, -3.5, 14.5])
    assert list(r.judgments.index) == [1, 2, 3, 4, 5, 6, 7, 8]  # rows 0 (Fluency) and 9 (Adequacy) removed
    assert list(fences["removed"]) == [1, 1]
    # only Adequacy selected: just row 9 goes
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy",), **{**OFF, "iqr_k": 1.5}))
    assert r.report.n_kept == 9 and 9 not in r.judgments.index


def test_fences_on_z_scores() -> None:
    # two raters with the same pattern on different scales: z is identical, so the fences (on z) treat them alike.
    # rater p: 10, 20, 30, 40, 200 → mean 60, deviations −50 −40 −30 −20 140, squares sum to 25000,
    #   population SD sqrt(25000 / 5) = sqrt(5000) = 70.7107
    #   z = −0.707107, −0.565685, −0.424264, −0.282843, 1.979899
    # rater q: 1, 2, 3, 4, 20 → mean 6, deviations a tenth of p's → the same z values
    # the 10 z values sorted: −.707107 ×2, −.565685 ×2, −.424264 ×2, −.282843 ×2, 1.979899 ×2
    #   Q1 = pos 2.25 (between two −.565685) = −.565685;  Q3 = pos 6.75 (two −.282843) = −.282843
    #   IQR = .282843; upper = −.282843 + 1.5·.282843 = .141421; lower = −.565685 − .424264 = −.989949
    #   → the two 1.979899 (rows 4 and 9) are out
    ps = [10, 20, 30, 40, 200]
    qs = [1, 2, 3, 4, 20]
    df = table([("p", 1, i, "S", v, 0) for i, v in enumerate(ps)] + [("q", 1, i, "T", v, 0) for i, v in enumerate(qs)])
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy",), drop_first=0, iqr_k=1.5))
    f = r.report.fences.iloc[0]
    assert f["column"] == "Adequacy_z"
    assert np.allclose([f["q1"], f["q3"], f["upper"]], [-0.565685, -0.282843, 0.141421], atol=1e-6)
    assert list(r.judgments.index) == [0, 1, 2, 3, 5, 6, 7, 8]
    # z is computed before fencing and not recomputed after it
    assert np.allclose(r.judgments.loc[[0, 5], "Adequacy_z"], -0.707107, atol=1e-6)


# ---------------------------------------------------------------------------------------- step 4: repeats


def repeats_table() -> pd.DataFrame:
    return table([
        ("r1", 1, 1, "S1", 60, 60),
        ("r1", 1, 1, "S2", 80, 80),
        ("r2", 1, 1, "S1", 50, 50),
        ("r2", 1, 1, "S2", 30, 30),
        ("r2", 1, 2, "S1", 40, 40),
    ])


def test_repeated_judgments_averaged() -> None:
    # r1: 60, 80 → mean 70, SD 10 → z −1, +1
    # r2: 50, 30, 40 → mean 40, SD sqrt((100 + 100 + 0) / 3) = 8.164966 → z +1.224745, −1.224745, 0
    # (S1, 1-1): raw (60 + 50) / 2 = 55, z (−1 + 1.224745) / 2 = 0.112372, n = 2
    # (S2, 1-1): raw (80 + 30) / 2 = 55, z (1 − 1.224745) / 2 = −0.112372, n = 2
    # (S1, 1-2): raw 40, z 0, n = 1
    r = run_qc(repeats_table(), QCOptions(**COLS, score_cols=("Adequacy", "Fluency"), drop_first=0, iqr_k=None))
    items = r.item_scores
    assert list(items.columns) == ["system", "seg_id", "score", "score_raw", "n_judgments",
                                   "Adequacy", "Adequacy_z", "Fluency", "Fluency_z"]
    assert list(zip(items["system"], items["seg_id"], strict=True)) == [("S1", "1-1"), ("S2", "1-1"), ("S1", "1-2")]
    assert np.allclose(items["score"], [0.112372, -0.112372, 0.0], atol=1e-6)
    assert list(items["score_raw"]) == [55, 55, 40]
    assert list(items["n_judgments"]) == [2, 2, 1]
    assert r.report.repeated_pairs == 2 and r.report.repeated_judgments == 4
    assert any("2 (system, item) pairs had more than one (4 judgments), averaged" in s for s in r.report.summary_lines())


def test_repeats_not_averaged_gives_one_row_per_judgment() -> None:
    r = run_qc(repeats_table(), QCOptions(**COLS, score_cols=("Adequacy",), drop_first=0, iqr_k=None,
                                          average_repeats=False))
    items = r.item_scores
    assert len(items) == 5 and list(items["n_judgments"]) == [1] * 5
    assert list(items["score_raw"]) == [60, 80, 50, 30, 40]  # input order
    assert np.allclose(items["score"], [-1, 1, 1.224745, -1.224745, 0], atol=1e-6)
    assert r.report.repeated_pairs == 2  # still reported


# ----------------------------------------------------------------------------------- step 5: outlier systems


def test_outlier_system_flagged_by_robust_z() -> None:
    # raw system means (z off): A 50, B 52, C 54, D 56, E 90 (one judgment each, items 1-1)
    # median 54; |x − 54| = 4, 2, 0, 2, 36 → MAD = median = 2; 1.4826 · 2 = 2.9652
    # robust z: A −4/2.9652 = −1.348982, B −0.674491, C 0, D 0.674491, E 36/2.9652 = 12.140834 > 2.5 → E is out
    df = table([("r", 1, 1, s, v, 0) for s, v in zip("ABCDE", [50, 52, 54, 56, 90], strict=True)])
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy",), **OFF, flag_outlier_systems=True))
    sm = r.report.system_means.set_index("system")
    assert np.allclose(sm.loc[["A", "B", "C", "D", "E"], "robust_z"], [-1.348982, -0.674491, 0, 0.674491, 12.140834],
                       atol=1e-5)
    assert r.report.outlier_systems == ["E"]
    assert list(sm["outlier"]) == [True, False, False, False, False]  # sorted by mean, E first
    assert set(r.item_scores["system"]) == set("ABCDE")
    assert set(r.item_scores_without_outliers["system"]) == set("ABCD")
    # not flagged when the option is off (robust z still shown)
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy",), **OFF))
    assert r.report.outlier_systems == [] and len(r.item_scores_without_outliers) == 5
    # a threshold above E's 12.14 keeps it
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy",), **OFF, flag_outlier_systems=True,
                             outlier_threshold=12.2))
    assert r.report.outlier_systems == []


def test_outlier_mad_zero_flags_nothing() -> None:
    # means 50, 50, 50, 60: median 50, |x − 50| = 0, 0, 0, 10 → MAD 0 → robust z undefined, nothing flagged
    df = table([("r", 1, 1, s, v, 0) for s, v in zip("ABCD", [50, 50, 50, 60], strict=True)])
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy",), **OFF, flag_outlier_systems=True))
    assert r.report.outlier_systems == []
    assert r.report.system_means["robust_z"].isna().all()
    assert any("median absolute deviation" in n for n in r.report.notes)


# --------------------------------------------------------------------------------------- unusable rows


BAD_CSV = (
    "worker,DocID,SentID,Sys,Adequacy,Fluency\n"  # line 1
    "a,1,1,S,10,10\n"                              # line 2  ok
    "a,1,2,S,abc,10\n"                             # line 3  non-numeric Adequacy
    "a,1,3,S,,10\n"                                # line 4  missing Adequacy
    "a,1,4,S,30,inf\n"                             # line 5  non-finite Fluency
    ",1,5,S,30,30\n"                               # line 6  missing rater
    "b,,1,S,40,40\n"                               # line 7  missing DocID
    "b,1,2,,40,40\n"                               # line 8  missing system
    "b,1,3,S, 55 ,50\n"                            # line 9  ok (whitespace around a number)
    "b,1,4,T,60,60\n"                              # line 10 ok
)


def test_bad_rows_counted_with_reason_and_line() -> None:
    r = qc_file(BAD_CSV, "bad.csv", QCOptions(**COLS, score_cols=("Adequacy", "Fluency"), **OFF))
    inv = r.report.invalid_rows
    assert list(zip(inv["line"], inv["reason"], strict=True)) == [
        (3, "non-numeric Adequacy"), (4, "missing Adequacy"), (5, "non-finite Fluency"), (6, "missing rater"),
        (7, "missing DocID"), (8, "missing system"),
    ]
    assert inv.set_index("line").loc[3, "value"] == "abc"
    assert r.report.removed("invalid") == 6 and r.report.n_kept == 3
    assert list(r.judgments.index) == [0, 7, 8]
    assert r.judgments["Adequacy"].tolist() == [10, 55, 60]  # made numeric
    per = r.report.per_rater.set_index("rater")
    assert per.loc["a", "invalid"] == 3 and per.loc["b", "invalid"] == 2  # line 6 has no rater
    summary = " ".join(r.report.summary_lines())
    assert "Excluded 6 unusable rows" in summary and "non-numeric Adequacy (line 3)" in summary


def test_unusable_rows_name_their_file_line_after_multi_line_cells() -> None:
    # a quoted cell spanning two lines and a blank line: the rows start on lines 2, 4 and 6 of the file
    csv_text = 'worker,DocID,SentID,Sys,Src,Adequacy\na,1,1,S,"two\nlines",10\na,1,2,S,x,NA\n\na,1,3,S,y,null\n'
    r = qc_file(csv_text, "m.csv", QCOptions(**COLS, score_cols=("Adequacy",), **OFF))
    inv = r.report.invalid_rows
    # NA and null are text, not missing values: nothing is guessed
    assert list(zip(inv["line"], inv["row"], inv["reason"], strict=True)) == [
        (4, 1, "non-numeric Adequacy"), (6, 2, "non-numeric Adequacy")]
    # without the reader's lines, a row's line is its position + 2
    assert list(run_qc(read_table(csv_text.encode(), "m.csv").frame(), QCOptions(
        **COLS, score_cols=("Adequacy",), **OFF)).report.invalid_rows["line"]) == [3, 4]
    with pytest.raises(ValueError, match="lines has 1 entries for 3 judgments"):
        run_qc(read_table(csv_text.encode(), "m.csv").frame(), lines=[2])


def test_invalid_row_still_counts_toward_warmup_position() -> None:
    # rater a's rows: line 2 (ok), line 3 (bad) — with drop_first = 2 both are a's first two judgments:
    # line 2 → warm-up, line 3 → counted as unusable (not twice); a's next rows (line 4 on) are not warm-up
    csv_text = ("worker,DocID,SentID,Sys,Adequacy\n" "a,1,1,S,10\n" "a,1,2,S,x\n" "a,1,3,S,30\n" "a,1,4,S,40\n")
    r = qc_file(csv_text, "w.csv", QCOptions(**COLS, score_cols=("Adequacy",), **{**OFF, "drop_first": 2}))
    assert r.report.removed("invalid") == 1 and r.report.removed("warmup") == 1
    assert r.judgments["Adequacy"].tolist() == [30, 40]


# ----------------------------------------------------------------------------------------- keys, columns


def test_seg_id_joins_item_values_and_integral_floats() -> None:
    # read from a file, the item values are text: " 1" is stripped, the row with an empty DocID is unusable
    csv_text = "worker,DocID,SentID,Sys,Adequacy\na, 1,3,S,10\na,,4,S,20\na,2,1,S,30\n"
    r = qc_file(csv_text, "k.csv", QCOptions(**COLS, score_cols=("Adequacy",), **OFF))
    assert list(r.item_scores["seg_id"]) == ["1-3", "2-1"]
    out = r.judgments_with_seg_id()
    assert list(out["seg_id"]) == ["1-3", "2-1"]
    # a frame built in Python with a float DocID (1.0, as pandas makes an int column with a gap): still "1-3"
    df = pd.DataFrame({"worker": ["a"] * 3, "DocID": [1.0, np.nan, 2.0], "SentID": [3, 4, 1], "Sys": ["S"] * 3,
                       "Adequacy": [10, 20, 30]})
    assert df["DocID"].dtype.kind == "f"
    r = run_qc(df, QCOptions(**COLS, score_cols=("Adequacy",), **OFF))
    assert list(r.item_scores["seg_id"]) == ["1-3", "2-1"]


def test_detect_columns_case_insensitive() -> None:
    df = pd.DataFrame(columns=["Annotator", "SYSTEM", "doc_id", "Seg_ID", "DA", "Src"])
    assert detect_columns(df) == {"rater_col": "Annotator", "system_col": "SYSTEM",
                                  "item_cols": ("doc_id", "Seg_ID"), "score_cols": ("DA",)}
    df = pd.DataFrame(columns=["Unnamed: 0", "worker", "DocID", "SentID", "Sys", "Src", "Adequacy", "Fluency"])
    assert detect_columns(df) == {"rater_col": "worker", "system_col": "Sys", "item_cols": ("DocID", "SentID"),
                                  "score_cols": ("Adequacy", "Fluency")}
    assert detect_columns(pd.DataFrame(columns=["a", "b"]))["rater_col"] is None


def test_score_column_named_score_does_not_collide() -> None:
    df = pd.DataFrame({"judge": ["j"] * 2, "model": ["m", "n"], "item": [1, 1], "score": [10, 30]})
    r = run_qc(df, QCOptions(drop_first=0, iqr_k=None, zscore=True))
    assert r.options.score_cols == ("score",)
    # j: 10, 30 → mean 20, SD 10 → z −1, +1
    assert list(r.item_scores.columns) == ["system", "seg_id", "score", "score_raw", "n_judgments",
                                           "human_score", "human_score_z"]
    assert list(r.item_scores["score"]) == [-1.0, 1.0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"drop_first": -1}, "drop_first"),
        ({"drop_first": 1.5}, "drop_first"),
        ({"iqr_k": -0.5}, "iqr_k"),
        ({"iqr_k": float("nan")}, "iqr_k"),
        ({"iqr_k": "wide"}, "iqr_k"),
        ({"outlier_threshold": 0}, "outlier_threshold"),
        ({"score_cols": "Adequacy"}, "score_cols"),
        ({"score_cols": ()}, "score_cols"),
        ({"score_cols": ("A", "A")}, "more than once"),
        ({"rater_col": "Sys", "system_col": "Sys"}, "two roles"),
        ({"rater_col": ""}, "rater_col"),
        ({"zscore": "yes"}, "zscore"),
    ],
)
def test_options_validate(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        QCOptions(**kwargs)


def test_unknown_or_undetectable_columns_raise_clear_errors() -> None:
    df = table([("a", 1, 1, "S", 1, 1)])
    with pytest.raises(ValueError, match="'Nope' is not in the judgments"):
        run_qc(df, QCOptions(**COLS, score_cols=("Nope",)))
    with pytest.raises(ValueError, match="could not detect the rater column"):
        run_qc(df.rename(columns={"worker": "who"}), QCOptions())
    with pytest.raises(ValueError, match="Adequacy_z"):
        run_qc(df.assign(Adequacy_z=0.0), QCOptions(**COLS, score_cols=("Adequacy",)))


def test_zscore_off_leaves_z_nan_and_score_raw() -> None:
    r = run_qc(repeats_table(), QCOptions(**COLS, score_cols=("Adequacy",), **OFF))
    assert r.judgments["Adequacy_z"].isna().all()
    assert list(r.item_scores["score"]) == list(r.item_scores["score_raw"]) == [55, 55, 40]


# ----------------------------------------------------------------------------------------------------- CLI


def qc_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="korean_eval")
    register_qc_command(parser.add_subparsers(dest="command"))
    return parser


def test_cli_qc_on_study_file(study_df: pd.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, items, rep = tmp_path / "kept.csv", tmp_path / "items.csv", tmp_path / "report.json"
    args = qc_parser().parse_args(["qc", "--judgments", str(STUDY_FILE), "--out", str(out), "--item-scores-out",
                                   str(items), "--report-json", str(rep), "--flag-outlier-systems"])
    assert args.func(args) == 0
    stdout = capsys.readouterr().out
    assert "Kept 7,727 of 8,058 judgments." in stdout
    assert "Sys_A: 68.783 / 0.203" in stdout and "Sys_Q: 57.734 / -0.220" in stdout
    kept = pd.read_csv(out)
    assert len(kept) == 7727
    # the header is written as in the file: the unnamed index column (read as column_0) has an empty name again
    assert study_df.columns[0] == "column_0"
    assert list(kept.columns) == ["Unnamed: 0", *study_df.columns[1:], "Adequacy_z", "Fluency_z", "seg_id"]
    assert kept["Unnamed: 0"].is_monotonic_increasing  # input order; the unnamed index column round-trips
    assert out.read_text(encoding="utf-8").startswith(",worker,DocID,SentID,Sys,Src,Adequacy,Fluency,Adequacy_z")
    first = study_df.iloc[10]  # worker 8732's 11th judgment is the first one kept
    assert kept.loc[0, "seg_id"] == f"{first['DocID']}-{first['SentID']}"
    assert len(pd.read_csv(items)) == 7727
    assert json.loads(rep.read_text(encoding="utf-8"))["n_kept"] == 7727


def test_cli_qc_bad_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = qc_parser()
    binary = tmp_path / "judgments.csv"
    binary.write_bytes(b"PK\x03\x04 not a csv")
    no_cols = tmp_path / "no_cols.csv"
    no_cols.write_text("a,b\n1,2\n", encoding="utf-8")
    for argv in (["qc", "--judgments", str(binary)], ["qc", "--judgments", str(no_cols)],
                 ["qc", "--judgments", str(tmp_path / "missing.csv")], ["qc"],
                 ["qc", "--judgments", str(no_cols), "--rater-col", "a", "--system-col", "b", "--item-cols", "a"]):
        args = parser.parse_args(argv)
        assert args.func(args) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, (argv, err)
    # unusable rows are not an error: counted and reported
    bad = tmp_path / "bad.csv"
    bad.write_text(BAD_CSV, encoding="utf-8")
    args = parser.parse_args(["qc", "--judgments", str(bad), "--drop-first", "0", "--no-fences", "--out",
                              str(tmp_path / "o.csv")])
    assert args.func(args) == 0
    stdout = capsys.readouterr().out
    assert "Excluded 6 unusable rows" in stdout
    # z is on: rater a has a single usable judgment left (line 2) → zero variance → excluded; b's two remain
    assert "1 rater with zero variance excluded: a (Adequacy, Fluency)" in stdout
    assert list(pd.read_csv(tmp_path / "o.csv")["seg_id"]) == ["1-3", "1-4"]


def test_cli_option_parsing() -> None:
    parser = argparse.ArgumentParser()
    add_qc_options(parser)
    opts = qc_options_from_args(parser.parse_args([]))
    assert opts == QCOptions()  # defaults: the study's procedure, columns auto-detected
    args = parser.parse_args(["--item-cols", "DocID, SentID", "--score-cols", "Fluency", "--drop-first", "0",
                              "--no-fences", "--no-average-repeats", "--flag-outlier-systems",
                              "--outlier-threshold", "3"])
    opts = qc_options_from_args(args)
    assert opts.item_cols == ("DocID", "SentID") and opts.score_cols == ("Fluency",)
    assert (opts.drop_first, opts.iqr_k, opts.average_repeats, opts.flag_outlier_systems, opts.outlier_threshold) == (
        0, None, False, True, 3.0)
    with pytest.raises(SystemExit) as info:
        parser.parse_args(["--drop-first", "-3"])
    assert info.value.code == 2
    with pytest.raises(ValueError, match="column list"):
        qc_options_from_args(parser.parse_args(["--item-cols", "DocID,,SentID"]))


def test_result_type() -> None:
    r = run_qc(repeats_table(), QCOptions(**COLS, score_cols=("Adequacy",), drop_first=0))
    assert isinstance(r, QCResult)
    assert r.options.is_resolved


def test_a_score_column_named_score_keeps_its_own_columns_and_summary():
    """A judgments column called ``score`` collides with the tables' own ``score``: its means are ``human_score``
    and ``human_score_z`` in both the item scores and the system means, and the summary names it."""
    rows = [
        {"worker": r, "Sys": s, "item": str(i), "score": str((i * 7 + ord(s) + len(r)) % 100)}
        for r in ("r1", "r2") for i in range(15) for s in ("A", "B", "C")
    ]
    opts = QCOptions(rater_col="worker", system_col="Sys", item_cols=("item",), score_cols=("score",), drop_first=0)
    res = run_qc(pd.DataFrame(rows), opts)
    means = res.report.system_means
    assert {"human_score", "human_score_z", "score"} <= set(means.columns)
    assert list(means.columns).count("score") == 1
    assert means["score"].tolist() == means["human_score_z"].tolist()
    assert {"human_score", "human_score_z"} <= set(res.item_scores.columns)
    summary = "\n".join(res.report.summary_lines())
    assert "Per-system means over kept judgments (score raw / z)" in summary
