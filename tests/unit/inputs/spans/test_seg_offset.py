"""The seg_id offset of a ratings file (korean_eval.inputs.spans.seg_offset; docs/design.md §4, "Error spans"): a Google
MQM TSV numbered from 1 against text files numbered from 0 — the hint naming the option, the offset applied, recorded
in the human note and run.json. The fixture TSV is written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from korean_eval.cli.main import main
from korean_eval.inputs.spans.attach import attach_ratings
from korean_eval.inputs.spans.reading import read_ratings
from korean_eval.inputs.text_files import InputError
from korean_eval.model.evalset import evalset_from_texts
from tests.support.rating_texts import ERRORS, FAST, REF, google_tsv, texts
from tests.support.rating_texts import RATED_HYPS as HYPS

#: Each item's penalty with the published weights (Major 5, Minor 1, Non-translation 25).
PENALTY = {("sysA", "0"): 0.0, ("sysA", "1"): 5.0, ("sysA", "2"): 1.0, ("sysA", "3"): 1.0,
           ("sysB", "0"): 1.0, ("sysB", "1"): 1.0, ("sysB", "2"): 25.0, ("sysB", "3"): 0.0}


def evalset():
    return evalset_from_texts([("ref.txt", "\n".join(REF).encode())],
                              [(f"{k}.txt", "\n".join(v).encode()) for k, v in HYPS.items()])


def test_a_tsv_numbered_from_1_gets_a_hint_naming_the_option():
    es = evalset()
    attach_ratings(es, [read_ratings(google_tsv(), "mqm.tsv", es.n_segments)])
    hint = [n for n in es.report.notes if "seg_id offset of -1" in n]
    assert len(hint) == 1 and "6 of 8 judgment(s)" in hint[0] and "8 would" in hint[0]
    assert "--ratings-seg-offset" in hint[0] and "-1" in hint[0]
    excluded = es.report.excluded_frame()
    assert (excluded["reason"] == "unknown seg_id").sum() == 2  # the two items of seg_id 4


def test_ids_that_match_nothing_raise_with_the_hint():
    es = evalset()
    last_only = google_tsv([r for r in ERRORS if r[1] == 3])  # seg_id 4: unknown without the offset
    with pytest.raises(InputError, match=r"no usable rating.*0 of 2 judgment\(s\).*--ratings-seg-offset"):
        attach_ratings(es, [read_ratings(last_only, "mqm.tsv", es.n_segments)])


def test_the_offset_makes_every_row_match_and_is_recorded():
    es = evalset()
    read = read_ratings(google_tsv(), "mqm.tsv", es.n_segments, seg_offset=-1)
    assert read.seg_offset == -1 and {j.seg_id for j in read.judgments} == {"0", "1", "2", "3"}
    assert {e.seg_id for e in read.spans()} <= {"0", "1", "2", "3"}
    attach_ratings(es, [read])
    assert es.report.excluded_frame().empty
    assert not [n for n in es.report.notes if "would with" in n]
    penalties = {(r.system, r.seg_id): r.score_raw for r in es.human.itertuples()}
    assert penalties == pytest.approx(PENALTY)
    assert es.spans["fits"].dropna().all()  # the texts the rater saw are the hypotheses
    assert "seg_id offset added to the ratings' ids (mqm.tsv: -1)" in es.human_note


def test_the_same_file_numbered_from_0_needs_no_offset():
    es = evalset()
    attach_ratings(es, [read_ratings(google_tsv(first=0), "mqm.tsv", es.n_segments)])
    assert {(r.system, r.seg_id): r.score_raw for r in es.human.itertuples()} == pytest.approx(PENALTY)
    assert not [n for n in es.report.notes if "would with" in n] and "offset" not in es.human_note


def test_a_non_integer_seg_id_with_an_offset_is_excluded_by_line():
    data = google_tsv().replace(b"\t1\trater1\t", b"\tx1\trater1\t", 1)  # the first row's seg_id
    read = read_ratings(data, "mqm.tsv", 4, seg_offset=-1)
    assert read.excluded == [(2, "seg_id 'x1' is not an integer: the seg_id offset -1 cannot be added")]
    assert len(read.judgments) == 7


def test_a_rating_file_is_positional_the_offset_is_noted_not_applied():
    lines = "".join(f"{s}\t{json.dumps({'errors': []})}\n" for s in HYPS for _ in REF)
    read = read_ratings(lines.encode(), "en-ko.mqm.seg.rating", 4, seg_offset=-1)
    assert read.seg_offset == 0 and {j.seg_id for j in read.judgments} == {"0", "1", "2", "3"}
    assert any("not applied" in n for n in read.notes)


def test_cli_offset_recorded_in_run_json(tmp_path: Path, capsys):
    tsv = tmp_path / "mqm.tsv"
    tsv.write_bytes(google_tsv())
    out = tmp_path / "out"
    code = main(["run", *texts(tmp_path), "--ratings", str(tsv), "--ratings-seg-offset", "-1", "--out", str(out),
                 *FAST])
    assert code == 0, capsys.readouterr().err
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert "seg_id offset added to the ratings' ids (mqm.tsv: -1)" in meta["human_scores_note"]


def test_cli_without_the_offset_prints_the_hint(tmp_path: Path, capsys):
    tsv = tmp_path / "mqm.tsv"
    tsv.write_bytes(google_tsv())
    code = main(["run", *texts(tmp_path), "--ratings", str(tsv), "--out", str(tmp_path / "out"), *FAST])
    assert code == 0
    assert "give --ratings-seg-offset -1 (on the Data page: “seg_id offset of the ratings” -1)" in capsys.readouterr().err


def test_cli_offset_needs_ratings(tmp_path: Path, capsys):
    assert main(["run", *texts(tmp_path), "--ratings-seg-offset", "-1", *FAST]) == 2
    assert "--ratings-seg-offset" in capsys.readouterr().err
