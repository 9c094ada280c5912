"""``python -m korean_eval profile``: run's inputs and checks, the lens's tidy CSVs, clear errors (docs/design.md §8)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from korean_eval.cli.main import main
from korean_eval.exports.csv_zip import to_csv_bytes
from korean_eval.inputs.sample import load_sample, sample_files
from korean_eval.lens.run import run_lens
from korean_eval.model.config import EvalConfig

FILES = ["profile.csv", "profile_segments.csv", "speech_levels.csv", "speech_level_confusion.csv",
         "speech_level_segments.csv", "spacing.csv", "spacing_segments.csv", "human_links.csv", "probe.csv",
         "probe_segments.csv", "probe_perturbations.csv"]


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KOREAN_EVAL_CACHE_DIR", str(tmp_path / "cache"))


def test_profile_writes_every_table_equal_to_the_library(tmp_path, capsys):
    out = tmp_path / "out"
    args = ["profile", "--levels", "word,char", "--metrics", "bleu,chrf", "--bootstrap", "100", "--seed", "5",
            "--out", str(out), "--quiet"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "Error profile" in printed and "Probe: mean penalty relative to dropping a content eojeol" in printed
    assert sorted(p.name for p in out.iterdir()) == sorted([*FILES, "lens.json"])
    expected = run_lens(load_sample(), EvalConfig(levels=("word", "char"), metrics=("bleu", "chrf")), seed=5,
                        n_resamples=100)
    for name, frame in expected.tables().items():
        assert (out / name).read_bytes() == to_csv_bytes(frame), name
    meta = json.loads((out / "lens.json").read_text(encoding="utf-8"))
    assert meta["settings"]["seed"] == 5 and meta["analyzer"].startswith("kiwi-")
    probe = pd.read_csv(out / "probe.csv")
    assert len(probe) == 10 * 2 * 2 and set(probe["kind"]) >= {"spacing", "drop_content"}


def test_profile_reads_runs_inputs_and_defuses_formula_names(tmp_path):
    files = sample_files()
    out = tmp_path / "out"
    args = ["profile", "--ref", str(files["ref"]), "--sys", f"@evil={files['systems'][0]}", "--sys",
            f"B={files['systems'][1]}", "--no-probe", "--bootstrap", "0", "--out", str(out), "--quiet"]
    assert main(args) == 0
    profile = pd.read_csv(out / "profile.csv")
    assert set(profile["system"]) == {"'@evil", "B"}
    assert not (out / "probe.csv").exists()
    links = pd.read_csv(out / "human_links.csv")
    assert links.empty  # no human scores given


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--kinds", "spacing,typo"], "--kinds: unknown perturbation kind 'typo'"),
        (["--kinds", "spacing,spacing"], "--kinds: perturbation kind 'spacing' is named twice"),
        (["--no-probe", "--levels", "word"], "--levels: cannot be combined with --no-probe"),
        (["--levels", "words"], "--levels: unknown token level 'words'"),
        (["--bootstrap", "-1"], "--bootstrap: must be 0 or more"),
        (["--seed", "-3"], "--seed: must be between 0"),
        (["--ref", "/nonexistent/ref.txt", "--sys", "A=/nonexistent/a.txt"], "/nonexistent/ref.txt"),
        (["--sys", "A=a.txt"], "--sys: needs --ref"),
        (["--table", "t.csv", "--ref", "r.txt"], "--table: cannot be combined with --ref"),
    ],
)
def test_bad_options_are_one_error_line(args, message, capsys):
    assert main(["profile", *args, "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and message in err[-1], err


def test_an_excluded_human_row_is_reported_not_dropped(tmp_path, capsys):
    files = sample_files()
    human = tmp_path / "human.tsv"
    human.write_text("system\tseg_id\tscore\nsys_strong\t0\t91\nsys_strong\t1\t1,000\n", encoding="utf-8")
    code = main(["profile", "--ref", str(files["ref"]), "--sys-dir", str(files["ref"].parent / "systems"), "--human",
                 str(human), "--no-probe", "--bootstrap", "10", "--quiet"])
    captured = capsys.readouterr()
    assert code == 0 and "ambiguous" in captured.err  # the excluded row is reported, not dropped silently
    assert "human.tsv" in captured.err and "Error profile" in captured.out


@pytest.mark.parametrize("lines", [[14], [14, 20], [11, 14, 20, 28, 30, 31]], ids=["1", "2", "6"])
def test_profile_works_on_a_few_sentences_without_every_category(tmp_path, capsys, lines):
    """Sentences without numbers or foreign script: their categories are absent, and the summary still prints
    every category's column (NaN F1) instead of failing."""
    files = sample_files()
    ref = files["ref"].read_text(encoding="utf-8").splitlines()
    (tmp_path / "ref.txt").write_text("\n".join(ref[i] for i in lines) + "\n", encoding="utf-8")
    sys_args = []
    for path in files["systems"][:2]:
        name = path.stem
        hyp = path.read_text(encoding="utf-8").splitlines()
        (tmp_path / f"{name}.txt").write_text("\n".join(hyp[i] for i in lines) + "\n", encoding="utf-8")
        sys_args += ["--sys", f"{name}={tmp_path / f'{name}.txt'}"]
    out = tmp_path / "out"
    args = ["profile", "--ref", str(tmp_path / "ref.txt"), *sys_args, "--levels", "word,char", "--metrics", "bleu",
            "--bootstrap", "50", "--out", str(out), "--quiet"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "foreign_number" in printed and "other" in printed
    profile = pd.read_csv(out / "profile.csv")
    whole = profile[(profile["subcategory"] == "all") & (profile["category"] == "foreign_number")]
    assert len(whole) == 2 and whole["f1"].isna().all()
