"""Strict inputs (issue 21), the data side: values never silently reinterpreted (class 4), a cache that never
returns another run's tables or stops a run on a bad row (class 6), compiled kernels never written into the
installed package (class 10)."""

import subprocess
import sys

import pandas as pd
import pytest
from scipy import stats

from korean_eval.cli.main import main
from korean_eval.inputs.table_reader import parse_number, read_number
from korean_eval.inputs.tables import attach_given_scores, attach_human, evalset_from_table
from korean_eval.inputs.text_files import clean_segment, read_text_lines
from korean_eval.model.evalset import EvalSet, evalset_from_texts
from tests.support.helpers import ROOT

# ---------------------------------------------------------------------------------------------------------------
# Class 4: values silently reinterpreted


@pytest.mark.parametrize(
    ("cell", "number"),
    [("85,5", 85.5), ("-0,25", -0.25), ("80,50", 80.5), (" 7,5 ", 7.5), ("+1,5e3", 1500.0)],
)
def test_decimal_comma_is_read_only_by_its_rule(cell: str, number: float) -> None:
    got = read_number(cell)
    assert got.value == number and got.decimal_comma and got.problem == ""
    assert parse_number(cell) == number


@pytest.mark.parametrize("cell", ["1,000", "1,000,000", "1.000,5", "1,000.5", "0,125", "-12,345", "1,2,3"])
def test_locale_ambiguous_values_are_no_numbers(cell: str) -> None:
    got = read_number(cell)
    assert got.value is None and parse_number(cell) is None
    assert got.problem.startswith(f"ambiguous number {cell!r}: thousands separator or decimal comma?")


def test_plain_numbers_unchanged() -> None:
    for cell, number in [("3", 3.0), ("3.10", 3.1), (".5", 0.5), ("1e-3", 0.001), ("1000", 1000.0)]:
        got = read_number(cell)
        assert (got.value, got.decimal_comma, got.problem) == (number, False, "")
    assert read_number("good").problem == "not a finite number ('good')"
    assert read_number("  ") == read_number("")


def _evalset() -> EvalSet:
    return evalset_from_texts(
        [("ref.txt", "가 나\n다 라\n마 바\n".encode())],
        [("A.txt", "가 나\n다\n마 바\n".encode()), ("B.txt", "가\n다 라\n마\n".encode())],
    )


def test_human_scores_ambiguous_excluded_by_line_decimal_comma_counted() -> None:
    ev = _evalset()
    human = "system\tseg_id\tscore\nA\t0\t85,5\nA\t1\t1,000\nA\t2\t70\nB\t0\t1.000,5\nB\t1\t60,25\nB\t2\t1,000,000\n"
    attach_human(ev, human.encode(), "human.tsv")
    excluded = ev.report.excluded_frame()
    assert list(excluded["file"]) == ["human.tsv"] * 3
    assert list(excluded["line"]) == [3, 5, 7]
    assert all(r.startswith("score: ambiguous number") for r in excluded["reason"])
    assert "'1,000'" in excluded["reason"].iloc[0] and "'1.000,5'" in excluded["reason"].iloc[1]
    got = {(r.system, r.seg_id): r.score for r in ev.human.itertuples()}
    assert got == {("A", "0"): 85.5, ("A", "2"): 70.0, ("B", "1"): 60.25}
    assert any(n.startswith("human.tsv: 2 score(s) read with a decimal comma: a comma is read") for n in ev.report.notes)


def test_given_scores_ambiguous_excluded_per_metric() -> None:
    ev = _evalset()
    scores = "system;seg_id;m1;m2\nA;0;0,5;1,000\nA;1;0,25;2\nA;2;1.000,5;3\n"
    attach_given_scores(ev, scores.encode(), "scores.csv")
    excluded = ev.report.excluded_frame()
    assert [(line, reason.split(":")[0]) for line, reason in zip(excluded["line"], excluded["reason"], strict=True)] == [
        (4, "m1"), (2, "m2"),
    ]
    given = {(r.seg_id, r.metric): r.score for r in ev.given.itertuples()}
    assert given == {("0", "m1"): 0.5, ("1", "m1"): 0.25, ("1", "m2"): 2.0, ("2", "m2"): 3.0}


def test_cli_given_scores_with_ambiguous_value_exit_0_and_exact_correlation(tmp_path, capsys) -> None:
    rows = [("A", 0, "1", "0,1"), ("A", 1, "2", "0,3"), ("B", 0, "3", "0,2"), ("B", 1, "5", "0,9"), ("C", 0, "2", "0,4"),
            ("C", 1, "1", "0,2"), ("C", 2, "4", "1,000")]
    (tmp_path / "h.tsv").write_text("system\tseg_id\tscore\n" + "".join(f"{s}\t{i}\t{h}\n" for s, i, h, _ in rows))
    (tmp_path / "s.tsv").write_text("system\tseg_id\tcomet\n" + "".join(f"{s}\t{i}\t{m}\n" for s, i, _, m in rows))
    code = main(["run", "--scores", str(tmp_path / "s.tsv"), "--human", str(tmp_path / "h.tsv"), "--bootstrap", "0",
                 "--out", str(tmp_path / "o"), "--quiet", "--no-cache"])
    stderr = capsys.readouterr().err
    assert code == 0, stderr
    assert "s.tsv: 6 score(s) read with a decimal comma" in stderr
    assert "1 input row(s) excluded" in stderr and "ambiguous number '1,000'" in stderr
    corr = pd.read_csv(tmp_path / "o" / "correlations.csv")
    seg = corr[(corr.level == "given") & (corr.granularity == "segment") & (corr.grouping == "none")
               & (corr.statistic == "pearson")]
    expected = stats.pearsonr([0.1, 0.3, 0.2, 0.9, 0.4, 0.2], [1, 2, 3, 5, 2, 1]).statistic
    assert seg["value"].iloc[0] == pytest.approx(expected, abs=1e-12)


FORMAT_CHARACTERS = ["\u200e", "\u200f", "\u2063", "\u180e", "\ufeff", "\u00ad", "\u2061", "\U000e0041"]


def test_clean_segment_removes_every_format_character() -> None:
    for ch in FORMAT_CHARACTERS:
        assert clean_segment(f"한{ch}국어") == ("한국어", False, 1)
    assert clean_segment("".join(FORMAT_CHARACTERS) + "가\t나") == ("가 나", False, len(FORMAT_CHARACTERS))


def test_text_file_format_characters_removed_and_counted() -> None:
    doc = read_text_lines("\u200e가나\u200f\n다\u00ad라\u2063\n\ufeff마\u180e\n".encode(), "sys.txt")
    assert doc.lines == ["가나", "다라", "마"]
    assert doc.removed_invisible == 6
    assert any(n.startswith("6 invisible/control character(s) removed") for n in doc.notes)


def test_table_format_characters_removed_counted_and_same_data_as_clean() -> None:
    dirty = "system,seg_id,hyp,ref\nA,1,\u200e가 나\u00ad,가 나\nA,2,다\u2063,다 라\u200f\nB,1,가,가 나\nB,2,다 라,다 라\n"
    clean = "system,seg_id,hyp,ref\nA,1,가 나,가 나\nA,2,다,다 라\nB,1,가,가 나\nB,2,다 라,다 라\n"
    ev_dirty = evalset_from_table(dirty.encode(), "long.csv")
    ev_clean = evalset_from_table(clean.encode(), "long.csv")
    assert ev_dirty.systems == ev_clean.systems and ev_dirty.refs == ev_clean.refs
    assert ev_dirty.content_hash() == ev_clean.content_hash()
    assert any(n.startswith("long.csv: 4 invisible/control character(s) removed") for n in ev_dirty.report.notes)


# ---------------------------------------------------------------------------------------------------------------
# Class 6: the cache


def _three_systems(order: tuple[str, ...] = ("A", "B", "C")) -> EvalSet:
    texts = {
        "A": "나는 학교에 간다\n오늘 날씨가 좋다\n책을 읽었다\n밥을 먹자\n",
        "B": "나는 학교 간다\n오늘은 날씨 좋다\n책 읽었다\n밥 먹자\n",
        "C": "학교에 간다\n날씨가 아주 좋다\n책을 읽는다\n밥을 먹었다\n",
    }
    ev = evalset_from_texts(
        [("ref.txt", "나는 학교에 간다\n오늘 날씨가 좋다\n책을 읽었다\n밥을 먹자\n".encode())],
        [(f"{s}.txt", texts[s].encode()) for s in order],
    )
    human = "system,seg_id,score\n" + "".join(
        f"{s},{i},{v}\n" for s, vals in {"A": (90, 80, 70, 60), "B": (50, 55, 52, 40), "C": (70, 20, 65, 30)}.items()
        for i, v in enumerate(vals)
    )
    return attach_human(ev, human.encode(), "human.csv")


def _config():
    from korean_eval.model.config import EvalConfig

    return EvalConfig(levels=("word", "char"), metrics=("bleu", "chrf", "ter"), jobs=1)


def _tables(results) -> dict[str, pd.DataFrame]:
    return {
        name: getattr(results, name).reset_index(drop=True)
        for name in ("segment_scores", "system_scores", "correlations", "rankings", "human_systems")
    }


def _assert_same_tables(a, b) -> None:
    for name, frame in _tables(a).items():
        pd.testing.assert_frame_equal(frame, _tables(b)[name], check_exact=True, obj=name)


def test_result_key_includes_the_order_of_systems() -> None:
    from korean_eval.engine.result_store import result_key

    abc, cba = _three_systems(("A", "B", "C")), _three_systems(("C", "B", "A"))
    assert abc.content_hash() == cba.content_hash()  # the same data …
    assert result_key(abc, _config()) != result_key(cba, _config())  # … but not the same tables
    assert result_key(abc, _config()) == result_key(_three_systems(("A", "B", "C")), _config())


def test_stored_result_of_another_system_order_is_not_reused(tmp_path) -> None:
    from korean_eval.engine.cache import DiskCache, NullCache
    from korean_eval.engine.pipeline import evaluate

    evaluate(_three_systems(("A", "B", "C")), _config(), cache=DiskCache(tmp_path))
    warm = evaluate(_three_systems(("C", "A", "B")), _config(), cache=DiskCache(tmp_path))
    assert "cached result" not in set(warm.timings["stage"])
    assert warm.systems == ["C", "A", "B"]
    assert list(dict.fromkeys(warm.system_scores["system"])) == ["C", "A", "B"]
    _assert_same_tables(warm, evaluate(_three_systems(("C", "A", "B")), _config(), cache=NullCache()))
    again = evaluate(_three_systems(("C", "A", "B")), _config(), cache=DiskCache(tmp_path))
    assert again.timings["stage"].iloc[-1] == "cached result" and again.systems == ["C", "A", "B"]


def test_well_formed_stats_leaves_out_malformed_rows() -> None:
    import numpy as np

    from korean_eval.engine.cache import well_formed_stats

    good = np.array([1.0, 2.0, 3.0]).tobytes()
    rows = [
        (b"k1", good, 0.5), (b"k2", good[:-3], 0.5), (b"k3", good + good[:8], 0.5), (b"k4", good, "abc"),
        (b"k5", "text", 0.5), (b"k6", good, 1), (b"k7", b"", 0.0), (b"k8", None, 0.0),
    ]
    assert well_formed_stats(rows) == [(b"k1", good, 0.5), (b"k6", good, 1.0)]
    assert well_formed_stats([(b"k3", good + good[:8], 0.5), (b"k1", good, 0.5), (b"k6", good, 1)])[0][0] == b"k1"


@pytest.mark.parametrize(
    "corruption",
    [
        "UPDATE stats SET v = substr(v, 1, length(v) - 3) WHERE (mk, k) IN (SELECT mk, k FROM stats LIMIT 1)",
        "UPDATE stats SET v = v || zeroblob(8) WHERE (mk, k) IN (SELECT mk, k FROM stats LIMIT 1)",
        "UPDATE stats SET v = v || zeroblob(8) WHERE (mk, k) IN (SELECT mk, k FROM stats LIMIT 2)",
        "UPDATE stats SET s = 'not a number' WHERE (mk, k) IN (SELECT mk, k FROM stats LIMIT 1 OFFSET 5)",
        "UPDATE stats SET v = 'abcdefgh' WHERE (mk, k) IN (SELECT mk, k FROM stats LIMIT 1 OFFSET 2)",
        "UPDATE tokens SET v = CAST(x'00ff' AS TEXT) WHERE (lk, k) IN (SELECT lk, k FROM tokens LIMIT 1)",
        "UPDATE tokens SET v = NULL WHERE (lk, k) IN (SELECT lk, k FROM tokens LIMIT 1 OFFSET 3)",
    ],
)
def test_a_corrupt_cache_row_is_recomputed(tmp_path, corruption: str) -> None:
    import sqlite3

    from korean_eval.engine.cache import DiskCache, NullCache
    from korean_eval.engine.pipeline import evaluate

    cold = evaluate(_three_systems(), _config(), cache=NullCache())
    first = DiskCache(tmp_path)
    first.store_results = False
    _assert_same_tables(evaluate(_three_systems(), _config(), cache=first), cold)
    con = sqlite3.connect(first.path)
    assert con.execute(corruption).rowcount >= 1
    con.commit()
    con.close()
    warm = DiskCache(tmp_path)
    warm.store_results = False
    _assert_same_tables(evaluate(_three_systems(), _config(), cache=warm), cold)
    assert warm.enabled and warm.problem == ""


# ---------------------------------------------------------------------------------------------------------------
# Class 10: compiled numba kernels go to the korean-eval cache directory, never into the package

KERNEL_RUN = """
import json, sys
import numpy as np
{before}
import korean_eval
import numba
from korean_eval.metrics.kernels import levenshtein
peq = levenshtein.match_masks(np.array([0, 1, 1], dtype=np.int64), 2)
print(json.dumps({{"config": numba.config.CACHE_DIR, "kernel": levenshtein.match_masks._cache._cache_path}}))
"""


def _run_kernel(tmp_path, env_extra: dict[str, str], before: str = "") -> dict:
    import json
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "KOREAN_EVAL_CACHE_DIR")}
    env.update(env_extra)
    result = subprocess.run(
        [sys.executable, "-c", KERNEL_RUN.format(before=before)], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def _package_kernel_files() -> set:
    return {(p, p.stat().st_mtime_ns) for p in (ROOT / "korean_eval").rglob("*.nb[ic]")}


def test_kernels_are_cached_under_korean_eval_cache_dir(tmp_path) -> None:
    in_package = _package_kernel_files()
    got = _run_kernel(tmp_path, {"KOREAN_EVAL_CACHE_DIR": str(tmp_path / "kc")})
    assert got["config"] == str(tmp_path / "kc" / "numba")
    assert got["kernel"].startswith(str(tmp_path / "kc" / "numba"))
    assert any((tmp_path / "kc" / "numba").rglob("levenshtein.match_masks-*.nbi"))
    assert any((tmp_path / "kc" / "numba").rglob("*.nbc"))
    assert _package_kernel_files() == in_package  # nothing new or rewritten inside the package


def test_users_numba_cache_dir_is_respected(tmp_path) -> None:
    got = _run_kernel(tmp_path, {"KOREAN_EVAL_CACHE_DIR": str(tmp_path / "kc"), "NUMBA_CACHE_DIR": str(tmp_path / "nb")})
    assert got["config"] == str(tmp_path / "nb") and got["kernel"].startswith(str(tmp_path / "nb"))
    assert any((tmp_path / "nb").rglob("*.nbi")) and not (tmp_path / "kc" / "numba").exists()


def test_numba_imported_before_korean_eval_still_uses_the_cache_dir(tmp_path) -> None:
    got = _run_kernel(tmp_path, {"KOREAN_EVAL_CACHE_DIR": str(tmp_path / "kc")}, before="import numba")
    assert got["config"] == str(tmp_path / "kc" / "numba")
    assert got["kernel"].startswith(str(tmp_path / "kc" / "numba"))
    assert any((tmp_path / "kc" / "numba").rglob("*.nbi"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="platformdirs follows XDG_CACHE_HOME on Linux")
def test_default_is_the_user_cache_dir(tmp_path) -> None:
    got = _run_kernel(tmp_path, {"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert got["config"] == str(tmp_path / "xdg" / "korean-eval" / "numba")
    assert any((tmp_path / "xdg" / "korean-eval" / "numba").rglob("*.nbi"))


CLI_RUN = """
import sys
from korean_eval.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_run_cache_dir_moves_the_kernels_too(tmp_path) -> None:
    import os

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "ref.txt").write_text("가나다 라마\n바사 아자차\n", encoding="utf-8")
    (folder / "a.txt").write_text("가나 라마\n바사 아자\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "KOREAN_EVAL_CACHE_DIR")}
    env["KOREAN_EVAL_CACHE_DIR"] = str(tmp_path / "env-cache")
    argv = ["run", "--ref", str(folder / "ref.txt"), "--sys", str(folder / "a.txt"), "--levels", "char",
            "--metrics", "eed", "--bootstrap", "0", "--spa-permutations", "0", "--quiet", "--jobs", "1",
            "--cache-dir", str(tmp_path / "cli-cache"), "--out", str(tmp_path / "out")]
    result = subprocess.run([sys.executable, "-c", CLI_RUN, *argv], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    kernels = tmp_path / "cli-cache" / "numba"
    assert any(kernels.rglob("eed.*.nbi")) and any(kernels.rglob("*.nbc"))
    assert (tmp_path / "cli-cache").glob("*.sqlite*")
    # no kernel and no cache file at the old place (numba creates its directories when the kernels are decorated)
    assert not [p for p in (tmp_path / "env-cache").rglob("*") if p.is_file()]
