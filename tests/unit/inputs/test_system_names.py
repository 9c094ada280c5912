"""System names are kept exactly or refused: a name holding a control or invisible character (tab, line break,
U+0001, zero-width space) is refused wherever it comes from — a ``--sys NAME=FILE`` argument, a file stem, a
table's system column, human or metric score tables, rating files, raw judgments, an mt-metrics-eval folder — with
exit status 2 and one ``error:`` line naming the source and the name as Python writes it; never renamed silently.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from korean_eval.cli.main import main
from korean_eval.inputs.text_files import InputError, system_identifier, system_name_problem
from tests.support.command_line import FAST, REF, SYSTEMS, error_line, write_texts
from tests.support.helpers import ROOT
from tests.support.make_mtme_fixture import LP, write_fixture

REFUSED = "a system name is kept exactly as given in every table, chart and export, so control and invisible " \
          "characters are refused: rename the system"


def _table(path: Path, rows: list[list[str]], sep: str = ",") -> Path:
    """A CSV (RFC 4180 quoting, so a cell may hold a tab or a line break) or a TSV of ``rows``."""
    if sep == ",":
        pd.DataFrame(rows[1:], columns=rows[0]).to_csv(path, index=False)
    else:
        path.write_text("".join(sep.join(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "what"), [("A\tB", "a tab"), ("A\nB", "a line break"), ("A\rB", "a carriage return"),
                                           ("A\x01B", "a control character (U+0001)"),
                                           ("A\u200bB", "U+200B ZERO WIDTH SPACE"), ("A\u2028B", "U+2028 LINE SEPARATOR")])
def test_a_name_from_the_sys_option_is_refused(tmp_path, capsys, name, what):
    ref, systems = write_texts(tmp_path)
    assert main(["run", "--ref", str(ref), "--sys", f"{name}={systems['a']}", *FAST]) == 2
    assert error_line(capsys) == f"error: --sys: system name {name!r} holds {what}; {REFUSED}"


def test_a_file_stem_is_refused_naming_the_file(tmp_path, capsys):
    ref, systems = write_texts(tmp_path)
    odd = tmp_path / "sys\tA.txt"
    odd.write_bytes(systems["a"].read_bytes())
    assert main(["run", "--ref", str(ref), "--sys", str(odd), *FAST]) == 2
    assert error_line(capsys) == f"error: {odd.name!r}: system name 'sys\\tA' holds a tab; {REFUSED}"


def test_a_sys_dir_file_with_a_line_break_in_its_name_is_refused(tmp_path, capsys):
    ref, _ = write_texts(tmp_path / "refs")
    folder = tmp_path / "systems"
    folder.mkdir()
    (folder / "good.txt").write_text("\n".join(SYSTEMS["a"]) + "\n", encoding="utf-8")
    (folder / "bad\nname.txt").write_text("\n".join(SYSTEMS["b"]) + "\n", encoding="utf-8")
    assert main(["run", "--ref", str(ref), "--sys-dir", str(folder), *FAST]) == 2
    assert "system name 'bad\\nname' holds a line break" in error_line(capsys)


@pytest.mark.parametrize("sep", [",", "\t"])
def test_a_tables_system_column_is_refused_with_file_and_line(tmp_path, capsys, sep):
    bad = "B\nx" if sep == "," else "B\x0bx"  # a CSV cell may hold a line break; a TSV cell a vertical tab
    rows = [["system", "seg_id", "hyp", "ref"]] + [[s, str(i), h, REF[i]] for s, hyps in (("A", SYSTEMS["a"]),
                                                   (bad, SYSTEMS["b"])) for i, h in enumerate(hyps)]
    table = _table(tmp_path / ("t.csv" if sep == "," else "t.tsv"), rows, sep)
    assert main(["run", "--table", str(table), *FAST]) == 2
    line = error_line(capsys)
    assert line.startswith(f"error: {table.name}, line 5: ") and f"system name {bad!r} holds" in line


def test_a_human_score_tables_system_column_is_refused(tmp_path, capsys):
    ref, systems = write_texts(tmp_path)
    human = _table(tmp_path / "h.csv", [["system", "seg_id", "score"], ["a", "0", "50"], ["a\t", "1", "60"]])
    assert main(["run", "--ref", str(ref), "--sys", f"a={systems['a']}", "--human", str(human), *FAST]) == 2
    assert error_line(capsys) == f"error: {human.name}, line 3: system name 'a\\t' holds a tab; {REFUSED}"


def test_given_scores_without_texts_refuse_the_name(tmp_path, capsys):
    human = _table(tmp_path / "h.csv", [["system", "seg_id", "score"], ["a", "0", "50"], ["b", "0", "60"]])
    scores = _table(tmp_path / "s.csv", [["system", "seg_id", "comet"], ["a", "0", "0.5"], ["b\x1f", "0", "0.6"]])
    assert main(["run", "--scores", str(scores), "--human", str(human), *FAST]) == 2
    assert error_line(capsys).startswith(f"error: {scores.name}, line 3: system name 'b\\x1f' holds a control character")


def test_a_ratings_files_system_is_refused(tmp_path, capsys):
    ref, systems = write_texts(tmp_path)
    ratings = tmp_path / f"{LP}.mqm.rater1.seg.rating"
    ratings.write_text("".join(f"a{chr(1) if i == 2 else ''}\t{json.dumps({'errors': []})}\tr1\n" for i in range(3)),
                       encoding="utf-8")
    assert main(["run", "--ref", str(ref), "--sys", f"a={systems['a']}", "--ratings", str(ratings), *FAST]) == 2
    assert error_line(capsys).startswith(f"error: {ratings.name}, line 3: system name 'a\\x01' holds a control")


def test_raw_judgments_refuse_the_name(tmp_path, capsys):
    ref, systems = write_texts(tmp_path)
    rows = [["rater", "system", "seg_id", "score"]] + [[f"r{k}", s, str(i), str(50 + i + k)] for k in range(2)
                                                       for s in ("a", "b\u200e") for i in range(3)]
    judgments = _table(tmp_path / "j.csv", rows)
    code = main(["run", "--ref", str(ref), "--sys", f"a={systems['a']}", "--sys", f"b={systems['b']}",
                 "--judgments", str(judgments), "--drop-first", "0", *FAST])
    assert code == 2
    assert error_line(capsys).startswith(f"error: {judgments.name}: line 5: system name 'b\\u200e' holds U+200E "
                                         "LEFT-TO-RIGHT MARK")


def test_an_mtme_system_output_file_is_refused(tmp_path, capsys):
    folder = write_fixture(tmp_path / "data")
    outputs = folder / "system-outputs" / LP
    (outputs / "sys_josa.txt").rename(outputs / "sys\x7fjosa.txt")
    assert main(["run", "--mtme", str(folder), *FAST]) == 2
    line = error_line(capsys)
    assert "system name 'sys\\x7fjosa' holds a control character (U+007F)" in line and "system-outputs" in line


def test_names_without_such_characters_are_kept_exactly(tmp_path, capsys):
    """Spaces, Korean, punctuation and symbols inside a name reach the tables unchanged."""
    ref, systems = write_texts(tmp_path)
    names = ["시스템 A (v2)", "b-β/✓"]
    out = tmp_path / "out"
    code = main(["run", "--ref", str(ref), "--sys", f"{names[0]}={systems['a']}", "--sys", f"{names[1]}={systems['b']}",
                 *FAST, "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    written = pd.read_csv(out / "system_scores.csv", dtype=str)
    assert list(dict.fromkeys(written["system"])) == names


def test_the_rule():
    assert system_name_problem("시스템 A") == ""
    assert system_identifier("sys A", "x") == "sys A"
    with pytest.raises(InputError, match=r"^f, line 2: system name 'a\\tb' holds a tab"):
        system_identifier("a\tb", "f", 2)


def test_a_process_exits_2_without_a_traceback(tmp_path):
    ref, systems = write_texts(tmp_path)
    done = subprocess.run([sys.executable, "-m", "korean_eval", "run", "--ref", str(ref), "--sys",
                           f"A\tB={systems['a']}", *FAST], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"error: --sys: system name 'A\\tB' holds a tab; {REFUSED}"
