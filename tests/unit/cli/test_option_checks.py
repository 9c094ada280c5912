"""The command line's checks (:mod:`korean_eval.cli.checks`): options that would be ignored are refused, inputs
that are not regular files are refused unopened, option values are checked before any work starts, and the ``qc``
CSVs defuse formula-like cells as ``run``'s do.

Every refusal is asserted to be exactly one ``error: …`` line naming the option (and the file where there is one)
with exit status 2; every accepted run is checked against numbers computed here with sacrebleu directly.
"""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import pandas as pd
import pytest
import sacrebleu

from korean_eval.cli.main import main
from tests.support.command_line import FAST, REF, SYSTEMS, error_line, write_texts


@pytest.fixture(autouse=True)
def no_hang():
    """Fail instead of blocking forever if a named pipe were ever opened."""
    signal.alarm(120)
    yield
    signal.alarm(0)


def char_bleu(hyps: list[str], refs: list[str]) -> float:
    """System BLEU at the character level (docs/design.md §3), computed with sacrebleu directly."""
    def tok(text: str) -> str:
        return " ".join(c for c in text if not c.isspace())
    return sacrebleu.corpus_bleu([tok(h) for h in hyps], [[tok(r) for r in refs]], tokenize="none", force=True).score


# --- inputs that would be silently ignored ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "first", "second"),
    [
        (["--table", "T", "--ref", "R"], "--table", "--ref"),
        (["--table", "T", "--sys-dir", "D"], "--table", "--sys-dir"),
        (["--table", "T", "--sys", "a=A"], "--table", "--sys"),
        (["--human", "H", "--judgments", "J"], "--human", "--judgments"),
        (["--table", "T", "--human-from-table", "Z", "--human", "H"], "--human-from-table", "--human"),
        (["--table", "T", "--human-from-table", "Z", "--judgments", "J"], "--human-from-table", "--judgments"),
        (["--sys", "a=A"], "--sys", "--ref"),
        (["--human-from-table", "Z"], "--human-from-table", "--table"),
        (["--ref", "R", "--sys", "a=A", "--scores-cols", "system=S"], "--scores-cols", "--scores"),
        (["--ref", "R", "--sys", "a=A", "--rater-col", "worker"], "--rater-col", "--judgments"),
        # QC flags with defaults: given without --judgments they would be ignored too (even at their default value)
        (["--ref", "R", "--sys", "a=A", "--drop-first", "10"], "--drop-first", "--judgments"),
        (["--ref", "R", "--sys", "a=A", "--no-zscore"], "--no-zscore", "--judgments"),
        (["--ref", "R", "--sys", "a=A", "--no-average-repeats"], "--no-average-repeats", "--judgments"),
        (["--ref", "R", "--sys", "a=A", "--iqr", "2"], "--iqr", "--judgments"),
        (["--ref", "R", "--sys", "a=A", "--flag-outlier-systems"], "--flag-outlier-systems", "--judgments"),
    ],
)
def test_option_that_would_be_ignored_is_refused(extra, first, second, capsys, tmp_path):
    out = tmp_path / "out"
    assert main(["run", *extra, *FAST, "--out", str(out)]) == 2
    line = error_line(capsys)
    assert line.startswith(f"error: {first}: ") and second in line
    assert not out.exists()


def test_sys_dir_names_the_skipped_files_and_scores_the_rest(tmp_path, capsys):
    ref, _ = write_texts(tmp_path / "systems")
    ref.rename(tmp_path / "ref.txt")
    (tmp_path / "systems" / "a.csv").write_text("x\n", encoding="utf-8")
    (tmp_path / "systems" / "b.md").write_text("# notes\n", encoding="utf-8")
    (tmp_path / "systems" / "old").mkdir()
    out = tmp_path / "out"
    code = main(["run", "--ref", str(tmp_path / "ref.txt"), "--sys-dir", str(tmp_path / "systems"), *FAST,
                 "--out", str(out)])
    assert code == 0
    err = capsys.readouterr().err
    assert f"note: --sys-dir {tmp_path / 'systems'}: skipped: a.csv, b.md, old (not *.txt)" in err.splitlines()
    scores = pd.read_csv(out / "system_scores.csv")
    assert sorted(scores["system"]) == ["a", "b"]
    for name, hyps in SYSTEMS.items():
        ours = scores.loc[(scores.system == name) & (scores.metric == "bleu"), "score"].item()
        assert ours == pytest.approx(char_bleu(hyps, REF), abs=1e-9)


def test_sys_dir_without_other_entries_prints_no_note(tmp_path, capsys):
    ref, _ = write_texts(tmp_path / "systems")
    ref.rename(tmp_path / "ref.txt")
    assert main(["run", "--ref", str(tmp_path / "ref.txt"), "--sys-dir", str(tmp_path / "systems"), *FAST]) == 0
    assert "skipped" not in capsys.readouterr().err


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("where", ["ref", "sys", "sys-dir", "table", "human"])
def test_named_pipe_input_is_refused_unopened(where, tmp_path, capsys):
    ref, systems = write_texts(tmp_path)
    pipe = _fifo(tmp_path / "pipe.txt")
    args = {
        "ref": ["--ref", str(pipe), "--sys", f"a={systems['a']}"],
        "sys": ["--ref", str(ref), "--sys", f"a={pipe}"],
        "sys-dir": ["--ref", str(ref), "--sys-dir", str(tmp_path)],
        "table": ["--table", str(pipe)],
        "human": ["--ref", str(ref), "--sys", f"a={systems['a']}", "--human", str(pipe)],
    }[where]
    assert main(["run", *args, *FAST]) == 2
    assert error_line(capsys) == (f"error: {pipe}: --{where} names a named pipe, not a regular file; "
                                  "refused without reading it")


def test_directory_socket_and_device_inputs_are_refused(tmp_path, capsys):
    ref, systems = write_texts(tmp_path)
    assert main(["run", "--ref", str(tmp_path), "--sys", f"a={systems['a']}", *FAST]) == 2
    assert error_line(capsys) == f"error: {tmp_path}: --ref names a directory, not a regular file; refused without reading it"
    assert main(["run", "--ref", str(ref), "--sys", "a=/dev/null", *FAST]) == 2
    assert error_line(capsys) == "error: /dev/null: --sys names a character device, not a regular file; refused without reading it"
    sock_path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        assert main(["run", "--ref", str(ref), "--sys", f"a={systems['a']}", "--scores", str(sock_path), *FAST]) == 2
    assert error_line(capsys) == f"error: {sock_path}: --scores names a socket, not a regular file; refused without reading it"


def test_qc_refuses_a_named_pipe(tmp_path, capsys):
    pipe = _fifo(tmp_path / "judgments.csv")
    assert main(["qc", "--judgments", str(pipe)]) == 2
    assert error_line(capsys) == f"error: {pipe}: --judgments names a named pipe, not a regular file; refused without reading it"


# --- option values checked before any work ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--bootstrap", "-1"], "error: --bootstrap: must be 0 or more, got -1"),
        (["--spa-permutations", "-5"], "error: --spa-permutations: must be 0 or more, got -5"),
        (["--jobs", "0"], "error: --jobs: must be 1 or more, got 0"),
        (["--spm-vocab", "0"], "error: --spm-vocab: must be 1 or more, got 0"),
        (["--seed", "-1"], "error: --seed: must be between 0 and 4294967295 (numpy's seed range), got -1"),
        (["--seed", str(2**32)], "error: --seed: must be between 0 and 4294967295 (numpy's seed range), got 4294967296"),
        (["--levels", "char,word,char"], "error: --levels: token level 'char' is named twice; name each token level once"),
        (["--metrics", "bleu,ter,bleu"], "error: --metrics: metric 'bleu' is named twice; name each metric once"),
        (["--levels", "char,klingon"], "error: --levels: unknown token level 'klingon'; token levels are "),
        (["--metrics", "meteor"], "error: --metrics: unknown metric 'meteor'; metrics are "),
    ],
)
def test_bad_run_option_is_refused_before_any_input_is_read(extra, message, capsys, tmp_path):
    # No input given: a run would load the bundled sample data and say so; the check comes first.
    out = tmp_path / "out"
    argv = ["run", "--levels", "char", "--metrics", "bleu", "--quiet", "--no-cache", "--out", str(out), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1, err
    assert not out.exists()


def test_seed_at_the_ends_of_numpys_range_is_accepted(tmp_path, capsys):
    ref, systems = write_texts(tmp_path)
    for seed in ("0", str(2**32 - 1)):
        code = main(["run", "--ref", str(ref), "--sys", f"a={systems['a']}", "--sys", f"b={systems['b']}", *FAST,
                     "--seed", seed])
        assert code == 0, capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        (["--drop-first", "-1"], "--drop-first"),
        (["--iqr", "0"], "--iqr"),
        (["--iqr", "-1.5"], "--iqr"),
        (["--outlier-threshold", "0"], "--outlier-threshold"),
        (["--outlier-threshold", "-2"], "--outlier-threshold"),
    ],
)
@pytest.mark.parametrize("command", ["qc", "run"])
def test_bad_qc_number_is_refused_naming_the_option(command, extra, option, capsys):
    with pytest.raises(SystemExit) as info:
        main([command, "--judgments", "does-not-matter.csv", *extra])
    assert info.value.code == 2
    assert f"error: argument {option}: expected a" in capsys.readouterr().err


# --- formula injection in qc outputs ----------------------------------------------------------------------------

FORMULA_SYSTEMS = ["=HYPERLINK(\"http://x\")", "+SUM(A1)", "-2+3", "@cmd", "plain"]


def test_qc_outputs_defuse_formula_cells(tmp_path, capsys):
    rows = ["worker,DocID,SentID,Sys,Adequacy,Fluency"]
    expected = {}
    for s, system in enumerate(FORMULA_SYSTEMS):
        for item in range(3):
            adequacy = -5 + 10 * s + 3 * item
            expected[(system, f"1-{item}")] = adequacy
            quoted = '"' + system.replace('"', '""') + '"'
            rows.append(f"@rater,1,{item},{quoted},{adequacy},{50 + item}")
    judgments = tmp_path / "j.csv"
    judgments.write_text("\n".join(rows) + "\n", encoding="utf-8")
    kept_path, items_path = tmp_path / "kept.csv", tmp_path / "items.csv"
    code = main(["qc", "--judgments", str(judgments), "--drop-first", "0", "--no-zscore", "--no-fences",
                 "--out", str(kept_path), "--item-scores-out", str(items_path)])
    assert code == 0, capsys.readouterr().err
    items = pd.read_csv(items_path, dtype={"system": str, "seg_id": str}, keep_default_na=False)
    defused = {"'" + s if s != "plain" else s: s for s in FORMULA_SYSTEMS}
    assert set(items["system"]) == set(defused)
    got = {(defused[r.system], r.seg_id): r.score for r in items.itertuples()}
    assert got == pytest.approx(expected)  # numbers, negative ones included, are not prefixed
    kept = pd.read_csv(kept_path, dtype=str, keep_default_na=False)
    assert set(kept["Sys"]) == set(defused) and set(kept["worker"]) == {"'@rater"}
    assert [float(v) for v in kept["Adequacy"]] == [float(v) for _, v in sorted(expected.items(),
                                                                               key=lambda kv: FORMULA_SYSTEMS.index(kv[0][0]))]


def test_qc_refuses_a_quote_that_joins_two_rows(tmp_path, capsys):
    """60 judgments with a comment column; row 31's comment opens a quote that row 32's comment closes. Read as
    RFC 4180 that is one row (59 judgments, one silently absorbed): qc refuses it naming the lines instead."""
    rows = ["worker,DocID,SentID,Sys,Adequacy,comment"]
    for i in range(60):
        comment = "fine"
        if i == 30:
            comment = '"too literal'
        elif i == 31:
            comment = 'word order"'
        rows.append(f"r{i % 3},1,{i // 2},sys{i % 2},{50 + i},{comment}")
    judgments = tmp_path / "j.csv"
    judgments.write_text("\n".join(rows) + "\n", encoding="utf-8")
    for argv in (["qc", "--judgments", str(judgments), "--score-cols", "Adequacy"],
                 ["run", "--judgments", str(judgments), "--score-cols", "Adequacy", "--levels", "char"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "j.csv" in err and "line 32" in err and "line 33" in err and "Traceback" not in err, err
    rows[31] = rows[31].replace('"too literal', '"too literal"')
    rows[32] = rows[32].replace('word order"', "word order")
    judgments.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["qc", "--judgments", str(judgments), "--score-cols", "Adequacy", "--drop-first", "0"]) == 0
    assert "Read 60 judgments" in capsys.readouterr().out
