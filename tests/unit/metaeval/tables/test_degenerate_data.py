"""Degenerate data said in words: constant human scores, a constant metric, fewer than 3 systems, every item tied —
the flag column of the correlations table beside the value each definition gives, and the notes of a run."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from korean_eval.metaeval.stats.soft_pairwise import human_pairwise
from korean_eval.metaeval.tables import degenerate
from korean_eval.metaeval.tables.tidy import CORRELATION_COLUMNS, correlation_rows, pairwise_rows


def _rows(metric: np.ndarray, human: np.ndarray) -> pd.DataFrame:
    sys_metric, sys_human = np.nanmean(metric, axis=1), np.nanmean(human, axis=1)
    rows = correlation_rows("char", "chrf", metric, human, sys_metric, ("pearson",), ("none", "item"))
    rows += pairwise_rows("char", "chrf", metric, human, sys_metric, True, human_pairwise(human, 50, 1), sys_human)
    return pd.DataFrame(rows, columns=CORRELATION_COLUMNS)


def _flag(table: pd.DataFrame, statistic: str, grouping: str) -> str:
    return table[(table["statistic"] == statistic) & (table["grouping"] == grouping)]["flag"].iloc[0]


def test_the_flag_sits_next_to_the_value():
    assert CORRELATION_COLUMNS[CORRELATION_COLUMNS.index("value") + 1] == "flag"


def test_constant_human_scores_give_acc_eq_one_by_definition_and_are_flagged():
    rng = np.random.default_rng(1)
    metric, human = rng.normal(size=(4, 10)), np.full((4, 10), 50.0)
    table = _rows(metric, human)
    acc = table[table["statistic"] == "acc_eq"]
    assert np.allclose(acc["value"], 1.0, rtol=0, atol=1e-12)  # a large ε ties every pair, as the humans do
    assert (acc["flag"] == degenerate.CONSTANT_HUMAN).all()
    assert table["flag"].str.contains(degenerate.CONSTANT_HUMAN).all()
    notes = degenerate.degenerate_notes(table)
    assert len(notes) == 1 and "every human score is the same" in notes[0] and "acc_eq is 1 by definition" in notes[0]


def test_a_constant_metric_is_flagged():
    rng = np.random.default_rng(2)
    table = _rows(np.full((4, 10), 0.3), rng.integers(0, 5, size=(4, 10)).astype(float))
    assert table["flag"].str.contains(degenerate.CONSTANT_METRIC).all()
    assert any("chrf@char give(s) every scored point the same score" in n for n in degenerate.degenerate_notes(table))


def test_two_systems_flag_every_system_level_statistic_and_keep_its_value():
    rng = np.random.default_rng(3)
    human = rng.normal(size=(2, 10))
    table = _rows(human + rng.normal(size=(2, 10)), human)
    system = table[table["granularity"] == "system"]
    assert (system["flag"] == degenerate.FEW_SYSTEMS).all()
    assert system.set_index("statistic").loc["pairwise_accuracy", "value"] in (0.0, 1.0)  # one comparison
    assert (table.loc[table["granularity"] == "segment", "flag"] == "").all()
    assert any("rest on 2 system(s)" in n for n in degenerate.degenerate_notes(table))


def test_humans_tying_every_item_flag_the_per_item_statistics_only():
    rng = np.random.default_rng(4)
    human = np.tile(rng.integers(0, 5, size=10).astype(float), (4, 1))  # varies across items, not within one
    table = _rows(rng.normal(size=(4, 10)), human)
    assert _flag(table, "acc_eq", "item") == degenerate.ALL_ITEMS_TIED
    assert _flag(table, "pearson", "item") == degenerate.ALL_ITEMS_TIED
    assert _flag(table, "acc_eq", "none") == "" and _flag(table, "pearson", "none") == ""
    assert any("compare ties only" in n for n in degenerate.degenerate_notes(table))


def test_ordinary_data_carry_no_flag_and_no_note():
    rng = np.random.default_rng(5)
    human = rng.normal(size=(4, 10))
    table = _rows(human + rng.normal(size=(4, 10)), human)
    assert (table["flag"] == "").all() and degenerate.degenerate_notes(table) == []


def test_a_run_says_it_in_run_json_and_on_stderr(tmp_path, capsys):
    from korean_eval.cli.main import main

    lines = ["오늘은 날씨가 좋다", "나는 학교에 간다", "책을 읽었다", "밥을 먹자", "내일 만나요"]
    (tmp_path / "ref.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["run", "--ref", str(tmp_path / "ref.txt")]
    for name, cut in (("a", 1), ("b", 2), ("c", 3)):
        (tmp_path / f"{name}.txt").write_text("\n".join(line[:-cut] for line in lines) + "\n", encoding="utf-8")
        args += ["--sys", f"{name}={tmp_path / f'{name}.txt'}"]
    (tmp_path / "human.tsv").write_text("system\tseg_id\tscore\n" + "".join(
        f"{s}\t{i}\t70\n" for s in "abc" for i in range(5)), encoding="utf-8")
    out = tmp_path / "out"
    code = main([*args, "--human", str(tmp_path / "human.tsv"), "--levels", "char", "--metrics", "chrf",
                 "--bootstrap", "20", "--spa-permutations", "20", "--no-cache", "--quiet", "--jobs", "1",
                 "--out", str(out)])
    assert code == 0
    err = capsys.readouterr().err
    assert "note: degenerate data: every human score is the same" in err
    notes = json.loads((out / "run.json").read_text(encoding="utf-8"))["notes"]
    assert any(n.startswith("degenerate data: every human score is the same") for n in notes)
    corr = pd.read_csv(out / "correlations.csv", keep_default_na=False)
    acc = corr[corr["statistic"] == "acc_eq"]
    assert (acc["flag"] == degenerate.CONSTANT_HUMAN).all()
    assert np.allclose(acc["value"].astype(float), 1.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("values", [[1.0, 1.0, np.nan], [np.nan, np.nan]])
def test_constant_needs_a_finite_value(values):
    assert degenerate.system_flags(np.array(values), np.array(values)) in (
        "constant human scores; constant metric scores; fewer than 3 systems", "")
