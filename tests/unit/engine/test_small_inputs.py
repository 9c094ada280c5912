"""``korean-eval run`` on 1, 2 and 3 systems × 1, 2 and 3 segments with human scores: no crash, no traceback, no
warning, and every statistic has a value — with a note where it rests on three or fewer units — or is n/a with the
reason (the ``note`` column of correlations.csv, significance.csv, clusters.csv and system_pairs.csv; the run's notes
on stderr and in run.json)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from korean_eval.cli.main import main
from tests.support.helpers import write_head_of_sample

SYSTEMS = ("sys_strong", "sys_weak", "sys_josa")
ARGS = ["--levels", "char", "--metrics", "bleu,ter", "--bootstrap", "50", "--spa-permutations", "50", "--quiet",
        "--no-cache", "--jobs", "1"]


def _run(tmp_path: Path, capsys, n_systems: int, n_segments: int) -> tuple[Path, str]:
    args = write_head_of_sample(tmp_path / "data", n_segments, SYSTEMS[:n_systems])
    out = tmp_path / "out"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(["run", *args, *ARGS, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], [str(w.message) for w in caught]
    return out, err


def _read(out: Path, name: str) -> pd.DataFrame:
    table = pd.read_csv(out / name)
    table["note"] = table["note"].astype("string").fillna("") if "note" in table else ""  # none: an empty table
    return table


@pytest.mark.parametrize("n_systems", [1, 2, 3])
@pytest.mark.parametrize("n_segments", [1, 2, 3])
def test_every_statistic_has_a_value_or_a_reason(tmp_path, capsys, n_systems, n_segments):
    out, err = _run(tmp_path, capsys, n_systems, n_segments)
    corr = _read(out, "correlations.csv")
    undefined = corr[corr["value"].isna()]
    assert undefined["note"].str.startswith("n/a: ").all(), undefined[["granularity", "grouping", "statistic", "note"]]
    few = corr[corr["value"].notna() & (corr["n"] <= 3) & (corr["statistic"] != "spa")]
    assert (few["note"] != "").all(), few[["granularity", "grouping", "statistic", "n", "note"]]
    for name, column in (("significance.csv", "p_value"), ("clusters.csv", "value")):
        table = _read(out, name)
        assert table.loc[table[column].isna(), "note"].str.startswith("n/a: ").all()
    pairs = _read(out, "system_pairs.csv")
    if n_systems > 1:
        assert len(pairs) and (pairs["note"] != "").all()  # every pair rests on 1-3 segments
        if n_segments == 1:
            assert pairs[["metric_p", "human_p", "metric_ci_low", "human_ci_high"]].isna().all().all()
            assert pairs["note"].str.startswith("n/a (p-values, intervals): 1 segment scored for both").all()
        else:
            assert pairs["metric_p"].notna().all()
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    notes = meta["statistics_notes"]
    assert notes and all(f"note: {n}" in err for n in notes)
    if n_systems < 3:
        assert any(n.startswith(f"{n_systems} system") and "system-level correlations are n/a" in n for n in notes)
    if n_segments == 1:
        assert any(n.startswith("1 segment with human scores") for n in notes)


def test_the_reasons_say_why(tmp_path, capsys):
    out, err = _run(tmp_path, capsys, 2, 1)
    corr = _read(out, "correlations.csv").set_index(["granularity", "grouping", "statistic", "metric"])
    assert corr.loc[("system", "none", "pearson", "bleu"), "note"] == (
        "n/a: 2 systems with scores; a system-level correlation needs at least 3 (two points always correlate ±1)")
    assert corr.loc[("segment", "system", "kendall", "ter"), "note"] == (
        "n/a: 1 segment with human scores; grouped by system, each group holds one segment, and a correlation "
        "needs at least 2")
    assert corr.loc[("system", "none", "pairwise_accuracy", "bleu"), "note"] == "on 2 systems only: one pair, so 0 or 1"
    assert np.isfinite(corr.loc[("system", "none", "pairwise_accuracy", "bleu"), "value"])


def test_the_summary_prints_n_a(tmp_path, capsys):
    args = write_head_of_sample(tmp_path / "data", 1, SYSTEMS[:1])
    assert main(["run", *args, *ARGS]) == 0
    summary = capsys.readouterr().out
    pearson = summary.split("Pearson correlation with humans")[1].split("\n\n")[0]
    assert "n/a" in pearson and "NaN" not in summary and "Empty DataFrame" not in summary
