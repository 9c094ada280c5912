"""`python -m korean_eval run` end to end: numbers equal to sacrebleu and scipy called directly (docs/design.md §3).

The two runs on real data start the CLI as a process (``python -m korean_eval``); the checks of single messages and
of given scores call :func:`korean_eval.cli.main.main` in this process (the same code path after the argument list), and
one bad input is also checked through a process: exit code 2, one ``error:`` line, no traceback.
"""

import functools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from mecab import MeCab
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from scipy import stats

from korean_eval.cli.main import main
from tests.support.helpers import ROOT, STUDY, require


@functools.cache
def _mecab() -> MeCab:
    """One python-mecab-ko tagger for every text (with a new ``MeCab()`` per text the sample took 1.9 s of CPU here,
    with one 1.2 s)."""
    return MeCab()


LEVELS = {
    "word": lambda t: Tokenizer13a()(t).split(),
    "mecab": lambda t: _mecab().morphs(t) if t.strip() else [],
    "char": lambda t: [c for c in t if not c.isspace()],
}


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "korean_eval", "run", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def direct_scores(pairs: pd.DataFrame, level: str) -> tuple[dict, dict]:
    """Segment and system scores computed here with sacrebleu's public API, independently of korean_eval."""
    tok = LEVELS[level]
    seg, system = {}, {}
    for name, group in pairs.groupby("system"):
        hyps = [" ".join(tok(h)) for h in group["hyp"]]
        refs = [" ".join(tok(r)) for r in group["ref"]]
        edits = ref_length = 0.0
        for sid, h, r in zip(group["seg_id"], hyps, refs, strict=True):
            seg[(name, sid, "bleu")] = sacrebleu.sentence_bleu(h, [r], tokenize="none").score
            seg[(name, sid, "chrf")] = sacrebleu.sentence_chrf(h, [r]).score
            seg[(name, sid, "chrf++")] = sacrebleu.sentence_chrf(h, [r], word_order=2).score
            ter = sacrebleu.sentence_ter(h, [r])
            seg[(name, sid, "ter")] = ter.score
            edits, ref_length = edits + ter.num_edits, ref_length + ter.ref_length
        system[(name, "bleu")] = sacrebleu.corpus_bleu(hyps, [refs], tokenize="none", force=True).score
        system[(name, "chrf")] = sacrebleu.corpus_chrf(hyps, [refs]).score
        system[(name, "chrf++")] = sacrebleu.corpus_chrf(hyps, [refs], word_order=2).score
        # sacrebleu's corpus TER is 100 · Σ edits / Σ reference lengths of its sentence scores (sacrebleu's TER
        # search at the character level takes ~0.1 s a segment, so it is not run twice): checked at the word level
        system[(name, "ter")] = 100 * edits / ref_length
        if level == "word":
            assert abs(system[(name, "ter")] - sacrebleu.corpus_ter(hyps, [refs]).score) <= 1e-9
    return seg, system


def check_against_direct(out: Path, pairs: pd.DataFrame, human: pd.DataFrame, levels=tuple(LEVELS)) -> None:
    seg_df = pd.read_csv(out / "segment_scores.csv", dtype={"seg_id": str})
    sys_df = pd.read_csv(out / "system_scores.csv")
    corr = pd.read_csv(out / "correlations.csv")
    assert set(seg_df.level) == set(levels)
    for level in levels:
        seg, system = direct_scores(pairs, level)
        ours = seg_df[seg_df.level == level]
        ours_map = {(r.system, r.seg_id, r.metric): r.score for r in ours.itertuples()}
        assert set(ours_map) == set(seg)
        assert max(abs(ours_map[k] - v) for k, v in seg.items()) <= 1e-9
        ours_sys = {(r.system, r.metric): r.score for r in sys_df[sys_df.level == level].itertuples()}
        assert max(abs(ours_sys[k] - v) for k, v in system.items()) <= 1e-9
        for metric in ("bleu", "chrf", "chrf++", "ter"):
            merged = human.merge(ours[ours.metric == metric], on=["system", "seg_id"])
            sel = corr[(corr.level == level) & (corr.metric == metric) & (corr.grouping == "none")]
            seg_sel = sel[sel.granularity == "segment"].set_index("statistic")["value"]
            assert abs(seg_sel["pearson"] - stats.pearsonr(merged.score_y, merged.score_x).statistic) <= 1e-9
            assert abs(seg_sel["spearman"] - stats.spearmanr(merged.score_y, merged.score_x).statistic) <= 1e-9
            assert abs(seg_sel["kendall"] - stats.kendalltau(merged.score_y, merged.score_x).statistic) <= 1e-9
            hm = human.groupby("system")["score"].mean()
            ms = pd.Series({s: system[(s, metric)] for s in hm.index})
            sys_sel = sel[sel.granularity == "system"].set_index("statistic")["value"]
            assert abs(sys_sel["pearson"] - stats.pearsonr(ms, hm).statistic) <= 1e-9
    sig = sys_df["signature"].iloc[0]
    assert sig.startswith("nrefs:1|case:mixed|eff:no|tok:none|smooth:exp|version:") and "|level:" in sig


def test_run_on_study_document1(tmp_path):
    """The study's table (composite segment ids, human scores in a column of the table) at the word and MeCab
    levels. The character level's numbers are checked on the sample files below; at this table's character lengths
    (up to 120 characters a segment) sacrebleu's TER alone took 7.7 of this test's 11 s of CPU, and its search on long
    character sequences (shift distance and candidate limits reached) is compared with sacrebleu in
    tests/unit/metrics/test_fast_ter.py."""
    path = require(STUDY / "doc1_with_text.csv")
    result = run_cli(
        "--table", str(path), "--table-cols", "system=Sys,seg_id=DocID+SentID,hyp=Hyp,ref=Ref",
        "--human-from-table", "Z_adequacy", "--levels", "word,mecab", "--metrics", "bleu,chrf,chrf++,ter",
        "--bootstrap", "0", "--no-cache", "--out", str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    raw = pd.read_csv(path)
    raw["seg_id"] = raw.DocID.astype(str) + "-" + raw.SentID.astype(str)
    pairs = raw.rename(columns={"Sys": "system", "Hyp": "hyp", "Ref": "ref"})
    pairs["hyp"], pairs["ref"] = pairs.hyp.str.strip(), pairs.ref.str.strip()
    human = pairs[["system", "seg_id", "Z_adequacy"]].rename(columns={"Z_adequacy": "score"})
    check_against_direct(tmp_path, pairs, human, ("word", "mecab"))
    assert "Pearson correlation with humans" in result.stdout
    rankings = pd.read_csv(tmp_path / "rankings.csv")
    assert set(rankings.system) == {"Sys_A", "Sys_B", "Sys_P", "Sys_Q"}


def test_run_on_sample_text_files(tmp_path):
    sample = ROOT / "sample_data"
    systems = sorted((sample / "systems").glob("*.txt"))
    args = ["--ref", str(sample / "ref.txt"), "--human", str(sample / "human.tsv")]
    for p in systems:
        args += ["--sys", f"{p.stem}={p}"]
    result = run_cli(*args, "--levels", "word,mecab,char", "--metrics", "bleu,chrf,chrf++,ter", "--bootstrap", "0",
                     "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    refs = (sample / "ref.txt").read_text(encoding="utf-8").splitlines()
    rows = []
    for p in systems:
        for i, (h, r) in enumerate(zip(p.read_text(encoding="utf-8").splitlines(), refs, strict=True)):
            rows.append({"system": p.stem, "seg_id": str(i), "hyp": h, "ref": r})
    human = pd.read_csv(sample / "human.tsv", sep="\t", dtype={"seg_id": str})
    check_against_direct(tmp_path / "out", pd.DataFrame(rows), human[["system", "seg_id", "score"]])
    # the persistent cache was filled: a second run gives identical files
    again = run_cli(*args, "--levels", "word,mecab,char", "--metrics", "bleu,chrf,chrf++,ter", "--bootstrap", "0",
                    "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out2"))
    assert again.returncode == 0
    for name in ("segment_scores.csv", "system_scores.csv", "correlations.csv"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "out2" / name).read_bytes()


def run_main(capsys, *args: str) -> tuple[int, str]:
    """``korean-eval run`` in this process: its exit code (argparse's too) and what it wrote to stderr."""
    try:
        code = main(["run", *args])
    except SystemExit as stop:
        code = stop.code
    return code, capsys.readouterr().err


def one_error_line(stderr: str, message: str) -> None:
    err_lines = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(err_lines) == 1 and message in err_lines[0], stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ref", "nope.txt", "--sys", "a=nope.txt"], "nope.txt: reference file not found"),
        (["--levels", "klingon"], "unknown token level 'klingon'"),
        (["--metrics", "bleu,meteor"], "unknown metric 'meteor'"),
        (["--override", "char:bleu:max_ngram_order=0"], "max_ngram_order must be between 1 and 9"),
        (["--scores", "x.csv"], "--scores"),
        (["--levels", "spm", "--spm-model", "README.md"], "README.md: not a SentencePiece model"),
    ],
)
def test_bad_input_exits_with_one_line(args, message, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # relative paths as the process below resolves them
    code, stderr = run_main(capsys, *args, "--bootstrap", "0", "--no-cache", "--quiet")
    assert code == 2
    one_error_line(stderr, message)


def test_bad_input_ends_the_process_with_code_2_and_one_line():
    """The process itself (``python -m korean_eval``): exit code 2, one ``error:`` line, no traceback."""
    result = run_cli("--levels", "klingon", "--bootstrap", "0", "--no-cache", "--quiet")
    assert result.returncode == 2
    one_error_line(result.stderr, "unknown token level 'klingon'")


def test_line_count_mismatch_message(tmp_path, capsys):
    (tmp_path / "ref.txt").write_text("가\n나\n다\n", encoding="utf-8")
    (tmp_path / "a.txt").write_text("가\n나\n", encoding="utf-8")
    code, stderr = run_main(capsys, "--ref", str(tmp_path / "ref.txt"), "--sys", f"a={tmp_path / 'a.txt'}",
                            "--bootstrap", "0", "--no-cache", "--quiet")
    assert code == 2 and "a.txt, line 3: has 2 lines but the reference has 3" in stderr


def test_given_scores_alone(tmp_path, capsys):
    human = "system,seg_id,score\n" + "".join(f"{s},{i},{v}\n" for s, i, v in [("A", 0, 1), ("A", 1, 2), ("B", 0, 3), ("B", 1, 5), ("C", 0, 2), ("C", 1, 1)])
    scores = "system,seg_id,comet\n" + "".join(f"{s},{i},{v}\n" for s, i, v in [("A", 0, 0.1), ("A", 1, 0.3), ("B", 0, 0.2), ("B", 1, 0.9), ("C", 0, 0.4), ("C", 1, 0.2)])
    (tmp_path / "h.csv").write_text(human)
    (tmp_path / "s.csv").write_text(scores)
    code, stderr = run_main(capsys, "--scores", str(tmp_path / "s.csv"), "--human", str(tmp_path / "h.csv"),
                            "--bootstrap", "0", "--no-cache", "--out", str(tmp_path / "o"), "--quiet")
    assert code == 0, stderr
    corr = pd.read_csv(tmp_path / "o" / "correlations.csv")
    seg = corr[(corr.level == "given") & (corr.granularity == "segment") & (corr.grouping == "none") & (corr.statistic == "pearson")]
    expected = stats.pearsonr([0.1, 0.3, 0.2, 0.9, 0.4, 0.2], [1, 2, 3, 5, 2, 1]).statistic
    assert seg["value"].iloc[0] == pytest.approx(expected, abs=1e-12)
    sysc = corr[(corr.level == "given") & (corr.granularity == "system") & (corr.statistic == "pearson")]
    assert sysc["value"].iloc[0] == pytest.approx(stats.pearsonr([0.2, 0.55, 0.3], [1.5, 4, 1.5]).statistic, abs=1e-12)
    assert np.isfinite(sysc["value"].iloc[0])
