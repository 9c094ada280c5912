"""The token levels a run evaluates: the dashboard's five by default, ``--levels all`` for the study's grid.

An unavailable level is made real here by hiding its package from a ``python -m korean_eval`` process (a package
on ``PYTHONPATH`` that raises ImportError, as a missing install does): a default or ``all`` goes on without it and
says which level and why (stderr and ``run.json``); a level named explicitly stops the run with its reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from korean_eval.cli.main import main
from korean_eval.levels.registry import STUDY_LEVELS, choose_levels, level_availability
from korean_eval.model.defaults import LEVELS
from tests.support.helpers import ROOT, write_head_of_sample

QUICK = ["--metrics", "bleu", "--bootstrap", "0", "--spa-permutations", "0", "--quiet"]


def _hidden(tmp_path: Path, *packages: str) -> dict[str, str]:
    """The environment of a process in which ``packages`` cannot be imported (each raises ImportError)."""
    folder = tmp_path / "hidden"
    for name in packages:
        (folder / name).mkdir(parents=True)
        (folder / name / "__init__.py").write_text(f"raise ImportError('{name} hidden by the test')\n")
    return {**os.environ, "PYTHONPATH": str(folder)}


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "korean_eval", "run", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


def _levels_written(out: Path) -> list[str]:
    return list(dict.fromkeys(pd.read_csv(out / "system_scores.csv")["level"]))


def test_the_default_levels_are_the_dashboards_five(tmp_path):
    args = write_head_of_sample(tmp_path / "data", 2, ("sys_strong", "sys_weak"))
    assert main(["run", *args, *QUICK, "--out", str(tmp_path / "out")]) == 0
    assert _levels_written(tmp_path / "out") == list(LEVELS) == ["word", "mecab", "kiwi", "char", "jamo"]
    settings = json.loads((tmp_path / "out" / "run.json").read_text(encoding="utf-8"))["settings"]
    assert settings["levels"] == list(LEVELS)


def test_an_unavailable_default_level_is_left_out_with_a_note(tmp_path):
    args = write_head_of_sample(tmp_path / "data", 2, ("sys_strong", "sys_weak"))
    done = _run([*args, *QUICK, "--out", str(tmp_path / "out")], _hidden(tmp_path, "mecab"))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    note = next(line for line in done.stderr.splitlines() if "mecab" in line)
    assert note.startswith("note: level mecab of the default levels is unavailable here")
    assert "mecab hidden by the test" in note and "evaluated without it" in note
    assert _levels_written(tmp_path / "out") == ["word", "kiwi", "char", "jamo"]
    meta = json.loads((tmp_path / "out" / "run.json").read_text(encoding="utf-8"))
    assert any("level mecab" in n and "mecab hidden by the test" in n for n in meta["validation_notes"])


def test_levels_all_is_the_study_grid_less_what_cannot_run(tmp_path):
    """The JVM levels are hidden too (KoNLPy missing), so the grid is run without starting a JVM."""
    args = write_head_of_sample(tmp_path / "data", 2, ("sys_strong", "sys_weak"))
    done = _run([*args, *QUICK, "--levels", "all", "--out", str(tmp_path / "out")],
                _hidden(tmp_path, "mecab", "konlpy"))
    assert done.returncode == 0, done.stderr
    missing = ["mecab", "okt", "komoran", "kkma", "hannanum"]
    notes = [line for line in done.stderr.splitlines() if line.startswith("note: level ")]
    assert [n.split()[2] for n in notes] == missing
    assert all("of --levels all is unavailable here" in n for n in notes)
    assert _levels_written(tmp_path / "out") == [lv for lv in STUDY_LEVELS if lv not in missing]
    assert "khaiii" not in STUDY_LEVELS


def test_an_unavailable_level_named_explicitly_stops_the_run(tmp_path):
    args = write_head_of_sample(tmp_path / "data", 2, ("sys_strong", "sys_weak"))
    done = _run([*args, *QUICK, "--levels", "word,mecab"], _hidden(tmp_path, "mecab"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("error: token level 'mecab' is unavailable: python-mecab-ko")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", ["run", "profile"])
@pytest.mark.parametrize("value", ["all,word", "word,all"])
def test_all_among_other_levels_is_refused(command, value, capsys):
    assert main([command, "--levels", value]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: --levels: 'all' stands for every level of the study's grid; give it alone or name the levels one by one")


def test_choose_levels():
    """Defaults and ``all`` keep the levels available here, in registry order; named levels are kept as named."""
    available = {name for name in STUDY_LEVELS if level_availability(name)[0]}
    assert choose_levels([]).levels == tuple(lv for lv in LEVELS if lv in available)
    assert choose_levels(["all"]).levels == tuple(lv for lv in STUDY_LEVELS if lv in available)
    assert choose_levels(["jamo", "word"]).levels == ("jamo", "word")
    assert choose_levels(["khaiii"]).notes == ()


def _level_checkboxes() -> None:
    import streamlit as st

    from ui.sidebar import _levels

    st.session_state["chosen_levels"] = list(_levels()[0])


def test_the_dashboards_all_and_defaults_buttons():
    """The buttons tick the levels; Apply makes them the levels evaluated."""
    at = AppTest.from_function(_level_checkboxes, default_timeout=120).run()
    assert not at.exception
    defaults = [lv for lv in LEVELS if level_availability(lv)[0]]
    assert at.session_state["chosen_levels"] == defaults
    at.button(key="levels_all").click().run()
    grid = [r for r in STUDY_LEVELS if level_availability(r)[0]]
    assert sorted(lv for lv in grid if at.checkbox(key=f"level|{lv}").value) == sorted(grid)
    assert at.session_state["chosen_levels"] == defaults  # ticked, not applied
    at.button(key="levels_apply").click().run()
    assert sorted(at.session_state["chosen_levels"]) == sorted(grid)
    at.button(key="levels_defaults").click().run()
    at.button(key="levels_apply").click().run()
    assert at.session_state["chosen_levels"] == defaults
