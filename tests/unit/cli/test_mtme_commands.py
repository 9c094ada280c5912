"""The command line on an mt-metrics-eval folder (``run --mtme``, ``mtme-list``) and the declared direction of
human scores (``--human-direction``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from korean_eval.cli.main import main
from tests.support.command_line import FAST, error_line, write_texts
from tests.support.make_mtme_fixture import LP, MT_SYSTEMS, write_fixture, zip_folder


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_fixture(tmp_path / "data")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["run", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_run_on_a_folder_writes_every_table_with_domains(folder: Path, tmp_path: Path, capsys):
    out = tmp_path / "out"
    code, stdout, stderr = run(capsys, "--mtme", str(folder.parent), "--lp", LP, "--mtme-human", "mqm",
                               "--mtme-ref", "refA,refB", "--mtme-metrics", *FAST[:-2], "--out", str(out))
    assert code == 0, stderr
    systems = pd.read_csv(out / "system_scores.csv")
    assert sorted(systems["system"].unique()) == sorted(MT_SYSTEMS)
    computed = systems[systems["level"] != "given"]
    assert computed["signature"].str.startswith("nrefs:2|").all()
    assert sorted(systems.loc[systems["level"] == "given", "metric"].unique()) == ["BLEU-refB", "COMET-22-refA", "MetricX-24-refA"]
    domains = pd.read_csv(out / "domain_scores.csv")
    assert sorted(domains["domain"].unique()) == ["news", "speech"] and len(domains) == 2 * len(systems)
    dcorr = pd.read_csv(out / "domain_correlations.csv")
    assert {"domain", "granularity", "statistic", "value", "higher_is_better"} <= set(dcorr.columns)
    meta = json.loads((out / "run.json").read_text())
    assert meta["data"]["human scores"].startswith("lower is better") and meta["data"]["domains"] == "2"
    assert meta["settings"]["given_lower_is_better"] == ["MetricX-24-refA"]
    assert "lower is better (read from the scores): MetricX-24-refA" in stderr
    assert "within each domain" in stdout and "human scores 'mqm': lower is better" in stderr
    human = pd.read_csv(out / "human_systems.csv")
    assert (human["human_mean"] < 0).all()  # MQM penalties negated: higher is better


def test_a_zip_gives_the_same_numbers_and_lower_is_better_can_be_replaced(folder: Path, tmp_path: Path, capsys):
    archive = tmp_path / "fx.zip"
    archive.write_bytes(zip_folder(folder.parent))
    a, b = tmp_path / "a", tmp_path / "b"
    assert run(capsys, "--mtme", str(folder), "--lp", LP, "--mtme-metrics", "COMET-22-refA", *FAST[:-2], "--out", str(a))[0] == 0
    code, _, stderr = run(capsys, "--mtme", str(archive), "--lp", LP, "--mtme-metrics", "COMET-22-refA",
                          "--lower-is-better", "COMET-22-refA", *FAST[:-2], "--out", str(b))
    assert code == 0, stderr
    sa, sb = pd.read_csv(a / "system_scores.csv"), pd.read_csv(b / "system_scores.csv")
    np.testing.assert_array_equal(sa["score"], sb["score"])
    assert json.loads((b / "run.json").read_text())["settings"]["given_lower_is_better"] == ["COMET-22-refA"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--ref", "r.txt"], "error: --mtme: cannot be combined with --ref"),
        (["--human", "h.tsv"], "error: --mtme: cannot be combined with --human"),
        (["--scores", "s.csv"], "error: --mtme: cannot be combined with --scores"),
    ],
)
def test_conflicting_inputs_are_refused(folder: Path, capsys, extra, message):
    code = main(["run", "--mtme", str(folder), *extra, *FAST])
    assert code == 2 and error_line(capsys).startswith(message)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--lp", "en-ko"], "error: --lp: needs --mtme"),
        (["--mtme-metrics"], "error: --mtme-metrics: needs --mtme"),
        (["--mtme-refs-as-systems"], "error: --mtme-refs-as-systems: needs --mtme"),
        (["--human-direction", "lower"], "error: --human-direction: needs --human or --human-from-table or --judgments or --mtme"),
        (["--lower-is-better", "X"], "error: --lower-is-better: needs --scores or --mtme"),
    ],
)
def test_options_without_their_input_are_refused(capsys, args, message):
    assert main(["run", *args, *FAST]) == 2 and error_line(capsys).startswith(message)


def test_bad_folders_name_file_and_line(folder: Path, tmp_path: Path, capsys):
    score = folder / "human-scores" / f"{LP}.esa.seg.score"
    score.write_text(score.read_text() + "ghost\t1\n")
    n = len(score.read_text().splitlines())
    assert main(["run", "--mtme", str(folder), "--lp", LP, *FAST]) == 2
    assert error_line(capsys) == f"error: human-scores/{LP}.esa.seg.score, line {n}: unknown system 'ghost': no system-outputs file of that name"
    assert main(["run", "--mtme", str(folder), "--lp", "de-en", *FAST]) == 2
    assert "no language pair 'de-en'" in error_line(capsys)
    (tmp_path / "x.txt").write_text("x\n")
    assert main(["run", "--mtme", str(tmp_path / "x.txt"), *FAST]) == 2
    assert "a directory in mt-metrics-eval's layout or a .zip" in error_line(capsys)


def test_mtme_list_prints_the_folder(folder: Path, capsys):
    assert main(["mtme-list", str(folder.parent)]) == 0
    out = capsys.readouterr().out
    assert "wmt24 en-ko:" in out and "references: refA, refB" in out and f"systems: {len(MT_SYSTEMS)}" in out
    assert "metric scores: BLEU-refB (seg), COMET-22-refA (sys/seg), MetricX-24-refA (seg)" in out


def test_declared_lower_is_better_negates_a_human_file(tmp_path: Path, capsys):
    ref, systems = write_texts(tmp_path / "t")
    human = tmp_path / "penalties.tsv"
    penalties = {("a", 0): 0, ("a", 1): 1, ("a", 2): 3, ("b", 0): 2, ("b", 1): 4, ("b", 2): 5}
    human.write_text("system\tseg_id\tscore\n" + "".join(f"{s}\t{i}\t{v}\n" for (s, i), v in penalties.items()))
    base = ["--ref", str(ref), "--sys", f"a={systems['a']}", "--sys", f"b={systems['b']}", "--human", str(human), *FAST[:-2]]
    outs = {}
    for direction in ("higher", "lower"):
        outs[direction] = tmp_path / direction
        assert run(capsys, *base, "--human-direction", direction, "--out", str(outs[direction]))[0] == 0
    corr = {d: pd.read_csv(o / "correlations.csv") for d, o in outs.items()}
    pick = {d: c[(c["granularity"] == "segment") & (c["statistic"] == "pearson") & (c["grouping"] == "none")]["value"].iloc[0]
            for d, c in corr.items()}
    assert pick["lower"] == pytest.approx(-pick["higher"], abs=1e-12) and pick["lower"] != 0
    human_lower = pd.read_csv(outs["lower"] / "human_systems.csv").set_index("system")["human_mean"]
    assert human_lower["a"] == pytest.approx(-4 / 3) and human_lower["a"] > human_lower["b"]
    assert json.loads((outs["lower"] / "run.json").read_text())["data"]["human scores"].startswith("lower is better")
