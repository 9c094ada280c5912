"""The public Python API (:mod:`korean_eval.api`): plain Python inputs, the same tables as ``korean-eval run``."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import korean_eval
from korean_eval.cli.main import main
from korean_eval.inputs.sample import sample_files

LEVELS = ["word", "char"]
METRICS = ["bleu", "chrf", "ter"]


@pytest.fixture(scope="module")
def sample() -> dict:
    files = sample_files()
    return {
        "refs": files["ref"].read_text(encoding="utf-8").splitlines(),
        "systems": {p.stem: p.read_text(encoding="utf-8").splitlines() for p in files["systems"]},
        "human": pd.read_csv(files["human"], sep="\t", dtype={"system": str, "seg_id": str}),
        "files": files,
    }


def test_evaluate_from_lists_writes_the_cli_tables_byte_for_byte(sample, tmp_path, capsys):
    results = korean_eval.evaluate(sample["refs"], sample["systems"], sample["human"], levels=LEVELS,
                                   metrics=METRICS, resamples=50, seed=7)
    assert isinstance(results, korean_eval.Results)
    assert set(results.system_scores["system"]) == set(sample["systems"])
    assert results.correlations["ci_low"].notna().any()
    assert results.significance is not None and results.clusters is not None and results.system_pairs is not None
    api_files = {p.name for p in results.to_csv(tmp_path / "api")}
    files = sample["files"]
    args = ["run", "--ref", str(files["ref"]), "--human", str(files["human"]), "--levels", ",".join(LEVELS),
            "--metrics", ",".join(METRICS), "--bootstrap", "50", "--seed", "7", "--no-cache", "--quiet",
            "--out", str(tmp_path / "cli")]
    for path in files["systems"]:
        args += ["--sys", f"{path.stem}={path}"]
    assert main(args) == 0
    capsys.readouterr()
    cli_files = {p.name for p in (tmp_path / "cli").iterdir()}
    assert api_files == cli_files
    for name in sorted(cli_files - {"run.json", "timings.csv", "token_stats.csv"}):
        assert (tmp_path / "api" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    seconds = ["tokenizer_seconds"]  # measured time, the one column that differs between two runs
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "api" / "token_stats.csv").drop(columns=seconds),
                                  pd.read_csv(tmp_path / "cli" / "token_stats.csv").drop(columns=seconds))
    api_meta = json.loads((tmp_path / "api" / "run.json").read_text(encoding="utf-8"))
    cli_meta = json.loads((tmp_path / "cli" / "run.json").read_text(encoding="utf-8"))
    assert api_meta["signatures"] == cli_meta["signatures"]


def test_evaluate_reads_paths_and_a_folder(sample, tmp_path):
    files = sample["files"]
    folder = files["systems"][0].parent
    results = korean_eval.evaluate(files["ref"], folder, files["human"], levels="char", metrics=["chrf"],
                                   resamples=0)
    assert list(results.systems) == [p.stem for p in files["systems"]]
    assert results.significance is None
    by_lists = korean_eval.evaluate(sample["refs"], sample["systems"], sample["human"], levels=["char"],
                                    metrics=["chrf"], resamples=0)
    pd.testing.assert_frame_equal(results.system_scores, by_lists.system_scores)


def test_evaluate_refuses_bad_input_naming_it(sample):
    bad = dict(sample["systems"])
    first = next(iter(bad))
    bad[first] = [*bad[first][:3], "two\nlines", *bad[first][4:]]
    with pytest.raises(korean_eval.InputError, match=rf"{first}.*line 4.*line break"):
        korean_eval.evaluate(sample["refs"], bad, levels=["char"], metrics=["chrf"])
    short = {name: lines[:-1] for name, lines in sample["systems"].items()}
    with pytest.raises(korean_eval.InputError, match="lines"):
        korean_eval.evaluate(sample["refs"], short, levels=["char"], metrics=["chrf"])
    with pytest.raises(ValueError, match="unknown token level 'morph'"):
        korean_eval.evaluate(sample["refs"], sample["systems"], levels=["morph"])


def test_the_public_names():
    for name in ("evaluate", "load_texts", "load_mtme", "EvalSet", "EvalConfig", "Results", "InputError"):
        assert name in korean_eval.__all__ and getattr(korean_eval, name) is not None
    with pytest.raises(AttributeError):
        korean_eval.no_such_name  # noqa: B018
