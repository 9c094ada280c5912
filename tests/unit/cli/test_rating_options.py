"""The command line with error-span ratings: ``run --ratings FILE`` (several), ``--mqm-weights``, ``--mtme`` with
rating files and rater groups; bad input named by file and line, exit 2 (docs/design.md §4)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from korean_eval.cli.main import main
from tests.support.make_mtme_fixture import LP
from tests.support.make_spans_fixture import write_rating_fixture
from tests.support.rating_texts import FAST, HYPS, REF, texts


def rating_file(path: Path, rater: str, severity: dict[str, str]) -> Path:
    lines = []
    for system, hyps in HYPS.items():
        for hyp in hyps:
            errors = [{"start": 0, "end": min(2, len(hyp)), "severity": severity[system], "category": "Fluency/Grammar"}]
            lines.append(f"{system}\t{json.dumps({'errors': errors if hyp not in REF else []})}\t{rater}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_run_with_two_rating_files_writes_the_ceiling(tmp_path: Path, capsys):
    r1 = rating_file(tmp_path / f"{LP}.mqm-a.seg.rating", "a", {"sysA": "Minor", "sysB": "Major", "sysC": "Major"})
    r2 = rating_file(tmp_path / f"{LP}.mqm-b.seg.rating", "b", {"sysA": "Minor", "sysB": "Minor", "sysC": "Major"})
    out = tmp_path / "out"
    code = main(["run", *texts(tmp_path), "--ratings", str(r1), "--ratings", str(r2), "--out", str(out), *FAST])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    ceiling = pd.read_csv(out / "human_ceiling.csv")
    assert set(ceiling["comparison"]) == {"group mqm-a vs mqm-b"} and ceiling["ci_low"].notna().any()
    ratings = pd.read_csv(out / "human_ratings.csv")
    assert len(ratings) == 24 and set(ratings["group"]) == {"mqm-a", "mqm-b"}
    assert "Human ceiling" in captured.out and re.search(r"tracks .*penalties", captured.out)
    spans = pd.read_csv(out / "error_spans.csv")
    assert "korean_category" in spans and (out / "error_categories.csv").exists()
    assert set(pd.read_csv(out / "category_correlations.csv")["mqm_category"]) == {"Fluency/Grammar"}
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert "mqm-weights:major=5,minor=1" in meta["human_scores_note"]


def test_mqm_weights_change_the_scores_and_the_signature(tmp_path: Path):
    r1 = rating_file(tmp_path / "a.rating", "a", {"sysA": "Minor", "sysB": "Major", "sysC": "Major"})
    out = tmp_path / "out"
    assert main(["run", *texts(tmp_path), "--ratings", str(r1), "--mqm-weights", "Major:10 Minor:2 cap:none",
                 "--out", str(out), *FAST]) == 0
    ratings = pd.read_csv(out / "human_ratings.csv")
    assert set(ratings["score_raw"]) == {0.0, 2.0, 10.0}
    assert "mqm-weights:major=10,minor=2|cap:none" in json.loads((out / "run.json").read_text())["human_scores_note"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--ratings", "{bad}", "--mqm-weights", "Major:x"], "--mqm-weights: MQM weight 'Major:x': 'x' is not a number"),
        (["--mqm-weights", "Major:5"], "--mqm-weights: needs --ratings or --mtme"),
        (["--ratings", "{bad}", "--human", "{bad}"], "--ratings: cannot be combined with --human"),
    ],
)
def test_option_errors(tmp_path: Path, capsys, extra, message):
    bad = tmp_path / "bad.rating"
    bad.write_text("x\n")
    extra = [e.replace("{bad}", str(bad)) for e in extra]
    assert main(["run", *texts(tmp_path), *extra, *FAST]) == 2
    assert message in capsys.readouterr().err


def test_a_bad_rating_file_is_named_with_its_line(tmp_path: Path, capsys):
    bad = tmp_path / "bad.rating"
    bad.write_text("sysA\tNone\nsysA\tNone\tr\textra\n", encoding="utf-8")
    assert main(["run", *texts(tmp_path), "--ratings", str(bad), *FAST]) == 2
    assert "error: bad.rating, line 2: 4 tab-separated field(s)" in capsys.readouterr().err
    table = tmp_path / "ratings.tsv"
    table.write_text("system\tseg_id\nsysA\t0\n", encoding="utf-8")
    assert main(["run", *texts(tmp_path), "--ratings", str(table), *FAST]) == 2
    assert "not a ratings file; give an mt-metrics-eval" in capsys.readouterr().err


def test_mtme_rater_groups(tmp_path: Path, capsys):
    folder = write_rating_fixture(tmp_path)
    out = tmp_path / "out"
    code = main(["run", "--mtme", str(folder), "--mtme-human", "mqm.rater1,mqm.rater2", "--out", str(out), *FAST])
    assert code == 0, capsys.readouterr().err
    assert set(pd.read_csv(out / "human_ceiling.csv")["comparison"]) == {"group mqm.rater1 vs mqm.rater2"}
