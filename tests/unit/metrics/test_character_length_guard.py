"""CharacTER's length guard (option ``max_tokens``; ``docs/design.md §3``): a pair with a side longer than
``max_tokens`` tokens is not searched, its segment is missing (NaN statistics), and the run's notes count it.
Checked against an independent computation over the remaining segments (the metric's own sentence function with the
guard off, scipy for the correlations)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats as sps

from korean_eval.cli.main import main
from korean_eval.engine.cache import DiskCache, well_formed_stats
from korean_eval.engine.pipeline import evaluate
from korean_eval.engine.statistics import StatisticsSettings, compute_statistics
from korean_eval.inputs.sample import load_sample
from korean_eval.metaeval.tables.intervals import bootstrap_correlations, resampled_system_scores
from korean_eval.metrics import make_metric
from korean_eval.metrics.character import CharacTER, character_sentence
from korean_eval.model.config import EvalConfig
from tests.support.helpers import ROOT

LIMIT = 30  # word tokens; every sample sentence is shorter
LONG_HYP = ("sys_weak", 3)  # (system, segment index) whose hypothesis is made too long
LONG_REF = 5  # segment whose reference is made too long: every system's pair


def _guarded_sample():
    """The first 16 segments of the sample set, one hypothesis and one reference repeated to exceed LIMIT tokens."""
    ev = load_sample()
    keep = 16
    ev.seg_ids = ev.seg_ids[:keep]
    ev.refs = [r[:keep] for r in ev.refs]
    ev.systems = {k: list(v[:keep]) for k, v in ev.systems.items()}
    ev.human = ev.human[ev.human.seg_id.astype(int) < keep]
    system, seg = LONG_HYP
    ev.systems[system][seg] = " ".join([ev.systems[system][seg]] * 4)
    ev.refs[0][LONG_REF] = " ".join([ev.refs[0][LONG_REF]] * 4)
    return ev


def _config(max_tokens: int = LIMIT, **kwargs) -> EvalConfig:
    return EvalConfig(levels=("word",), metrics=("character", "chrf"), jobs=1, statistics=("pearson", "kendall"),
                      spa_permutations=0, overrides={"word": {"character": {"max_tokens": max_tokens}}}, **kwargs)


def _independent(res, ev) -> tuple[np.ndarray, np.ndarray]:
    """(segment matrix with NaN for the pairs over LIMIT, system scores = mean of the remaining segment scores),
    from the tokens and the sentence CharacTER without the guard."""
    tok = res.tokens["word"]
    names = list(ev.systems)
    seg = np.full((len(names), len(ev.seg_ids)), np.nan)
    for s, name in enumerate(names):
        for i, hyp in enumerate(ev.systems[name]):
            h, r = tok[hyp], tok[ev.refs[0][i]]
            if len(h.split(" ")) <= LIMIT and len(r.split(" ")) <= LIMIT:
                seg[s, i] = 100.0 * character_sentence(h, [r])
    return seg, np.nanmean(seg, axis=1)


@pytest.fixture(scope="module")
def guarded():
    ev = _guarded_sample()
    return ev, evaluate(ev, _config())


def test_pairs_over_the_limit_are_missing_segments(guarded):
    ev, res = guarded
    names = res.systems
    seg, sys_scores = _independent(res, ev)
    unscored = {(names[s], res.seg_ids[i]) for s, i in zip(*np.nonzero(np.isnan(seg)), strict=True)}
    assert unscored == {(LONG_HYP[0], res.seg_ids[LONG_HYP[1]])} | {(n, res.seg_ids[LONG_REF]) for n in names}
    mat = res.segment_matrices[("word", "character")]
    assert np.array_equal(np.isnan(mat), np.isnan(seg))
    assert np.nanmax(np.abs(mat - seg)) <= 1e-9
    assert np.isnan(res.stats[("word", "character")][np.isnan(seg)]).all()
    rows = res.segment_scores.query("metric == 'character'")
    assert len(rows) == np.isfinite(seg).sum()
    assert not {(r.system, r.seg_id) for r in rows.itertuples()} & unscored
    table = res.system_scores.query("metric == 'character'").set_index("system")
    assert np.allclose(table.loc[names, "score"].to_numpy(), sys_scores, rtol=0, atol=1e-9)
    assert table.loc[names, "n_segments"].tolist() == np.isfinite(seg).sum(axis=1).tolist()
    assert (table["signature"].str.contains(f"|maxtok:{LIMIT}|", regex=False)).all()
    # chrF scores every pair
    assert len(res.segment_scores.query("metric == 'chrf'")) == seg.size


def test_the_notes_count_and_name_the_unscored_pairs(guarded):
    ev, res = guarded
    notes = [n for n in res.notes if n.startswith("CharacTER@word:")]
    n_pairs = len(ev.systems) * len(ev.seg_ids)
    names = res.systems
    first = sorted([(names.index(LONG_HYP[0]), LONG_HYP[1])] + [(s, LONG_REF) for s in range(len(names))])[:3]
    shown = ", ".join(f"{names[s]} seg {res.seg_ids[i]}" for s, i in first)
    assert notes == [
        f"CharacTER@word: 6 of {n_pairs} pairs not scored (a side longer than {LIMIT} tokens; option max_tokens); "
        f"first: {shown}, …"
    ]
    assert not [n for n in res.notes if "chrF" in n]


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    """scipy's Pearson r; NaN when undefined (fewer than 2 points or a constant side)."""
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(sps.pearsonr(x, y).statistic)


@pytest.mark.parametrize("replace_nans", [False, True])
def test_correlations_equal_scipy_on_the_remaining_pairs(replace_nans):
    ev = _guarded_sample()
    res = evaluate(ev, _config(replace_nans_with_zeros=replace_nans))
    seg, sys_scores = _independent(res, ev)
    human = res.human_matrix
    corr = res.correlations.query("level == 'word' and metric == 'character'").set_index(
        ["granularity", "statistic", "grouping"])["value"]
    ok = np.isfinite(seg) & np.isfinite(human)
    assert corr[("segment", "pearson", "none")] == pytest.approx(sps.pearsonr(seg[ok], human[ok]).statistic, abs=1e-12)
    assert corr[("segment", "kendall", "none")] == pytest.approx(
        sps.kendalltau(seg[ok], human[ok], variant="b").statistic, abs=1e-12)
    per_system = [sps.pearsonr(seg[s][ok[s]], human[s][ok[s]]).statistic for s in range(len(seg))]
    assert corr[("segment", "pearson", "system")] == pytest.approx(np.mean(per_system), abs=1e-12)
    per_item = [_pearson(seg[:, i][ok[:, i]], human[:, i][ok[:, i]]) for i in range(seg.shape[1]) if ok[:, i].any()]
    assert len(per_item) == seg.shape[1] - 1  # the segment whose reference is too long holds no pair
    defined = [r for r in per_item if np.isfinite(r)]
    expected = sum(defined) / len(per_item) if replace_nans else np.mean(defined)
    assert corr[("segment", "pearson", "item")] == pytest.approx(expected, abs=1e-12)
    human_sys = np.nanmean(human, axis=1)
    assert corr[("system", "pearson", "none")] == pytest.approx(sps.pearsonr(sys_scores, human_sys).statistic, abs=1e-12)


def test_bootstrap_and_significance_treat_them_as_missing(guarded):
    ev, res = guarded
    seg, _ = _independent(res, ev)
    n_items = len(res.seg_ids)
    counts = np.random.default_rng(7).integers(0, 3, size=(5, n_items)).astype(np.float64)
    got = resampled_system_scores(res, ("word", "character"), counts)
    weights = np.where(np.isfinite(seg)[None], counts[:, None, :], 0.0)
    expected = (weights * np.nan_to_num(seg)[None]).sum(axis=2) / weights.sum(axis=2)
    assert np.allclose(got, expected, rtol=0, atol=1e-9)
    point = bootstrap_correlations(res, np.ones((1, n_items)))[:, 0]
    values = res.correlations["value"].to_numpy()
    defined = np.isfinite(point)
    assert defined[(res.correlations["metric"] == "character").to_numpy()].any()
    assert np.allclose(point[defined], values[defined], rtol=0, atol=1e-9)
    tables = compute_statistics(res, StatisticsSettings(resamples=20, seed=3))
    ci = tables.correlations.query("metric == 'character' and statistic == 'pearson' and grouping == 'none'")
    assert np.isfinite(ci[["ci_low", "ci_high"]].to_numpy()).all()
    sig = tables.tables["significance.csv"]
    assert np.isfinite(sig["p_value"]).all() and len(sig)


def test_multiple_references_skip_only_the_long_ones():
    metric = make_metric("character", {"max_tokens": 4})
    hyps = ["a b c", "a b c", "a b c d e"]
    refs = [["a b c d e f", "x y z w v u", "a b c"], ["a c b", None, "a b"]]
    stats = metric.segment_statistics(hyps, refs)
    assert stats[0].tolist() == pytest.approx([100.0 * character_sentence("a b c", ["a c b"]), 1.0], abs=1e-12)
    assert character_sentence("a b c", ["a c b"]) < character_sentence("a b c", ["a b c d e f"])  # the long one won
    assert np.isnan(stats[1]).all()  # its only reference is too long
    assert np.isnan(stats[2]).all()  # hypothesis too long
    assert np.isnan(metric.segment_scores(stats)[1:]).all()
    off = make_metric("character", {"max_tokens": 0}).segment_statistics(hyps, refs)
    for i, hyp in enumerate(hyps):
        assert off[i, 0] == pytest.approx(
            100.0 * character_sentence(hyp, [r[i] for r in refs if r[i] is not None]), abs=1e-12)
    assert np.isfinite(off).all()


def test_the_option_is_in_the_signature_and_the_cache_key(tmp_path):
    assert CharacTER(max_tokens=7).signature(2).endswith("|maxtok:7|version:1")
    assert CharacTER(max_tokens=0).signature(1).endswith("|maxtok:none|version:1")
    assert CharacTER().max_tokens == 1500 and "max_tokens=1500" in CharacTER().options_key()
    assert CharacTER(max_tokens=7).options_key() != CharacTER(max_tokens=8).options_key()
    cache = DiskCache(tmp_path / "cache")
    cache.store_results = False  # the statistics cache, not the whole-result store
    ev = _guarded_sample()
    guarded = evaluate(ev, _config(), cache=cache)
    whole = evaluate(ev, _config(max_tokens=0), cache=cache)  # another key: recomputed, not the cached NaN rows
    assert np.isnan(guarded.segment_matrices[("word", "character")]).sum() == 6
    assert np.isfinite(whole.segment_matrices[("word", "character")]).all()
    assert not [n for n in whole.notes if n.startswith("CharacTER")]
    seg, _ = _independent(guarded, ev)
    both = np.isfinite(seg)
    assert np.array_equal(whole.segment_matrices[("word", "character")][both],
                          guarded.segment_matrices[("word", "character")][both])


@pytest.mark.parametrize("store_results", [False, True])
def test_a_warm_run_reads_the_unscored_rows_back(tmp_path, store_results):
    cache = DiskCache(tmp_path / "cache")
    cache.store_results = store_results
    ev = _guarded_sample()
    cold = evaluate(ev, _config(), cache=cache)
    with sqlite3.connect(cache.path) as con:
        null_rows = con.execute("SELECT mk, k FROM stats WHERE s IS NULL").fetchall()
    stored = len(null_rows)
    tok = cold.tokens["word"]
    unscored = {(tok[ev.systems[n][i]], tok[ev.refs[0][i]]) for n in ev.systems for i in range(len(ev.seg_ids))
                if (n, i) == LONG_HYP or i == LONG_REF}
    assert stored == len(unscored)  # one row per distinct unscored token pair (SQLite keeps a NaN score as NULL)
    warm_cache = DiskCache(tmp_path / "cache")
    warm_cache.store_results = store_results
    (metric_key,) = {mk for mk, _ in null_rows}
    read = warm_cache.get_stats(metric_key, [k for _, k in null_rows])  # read back, not left out as malformed
    assert len(read) == stored and all(np.isnan(row).all() and np.isnan(score) for row, score in read.values())
    warm = evaluate(ev, _config(), cache=warm_cache)
    for key in cold.segment_matrices:
        assert np.array_equal(cold.segment_matrices[key], warm.segment_matrices[key], equal_nan=True)
        assert np.array_equal(cold.stats[key], warm.stats[key], equal_nan=True)
    assert warm.notes == cold.notes
    assert [n for n in warm.notes if n.startswith("CharacTER@word: 6 of")]


def test_cache_reads_an_all_nan_row_with_a_null_score_and_nothing_else():
    nan_row, half_row = np.array([np.nan, np.nan]).tobytes(), np.array([np.nan, 1.0]).tobytes()
    ok = np.array([3.0, 1.0]).tobytes()
    rows = [(b"a", nan_row, None), (b"b", half_row, None), (b"c", ok, 3.0), (b"d", ok, None)]
    got = well_formed_stats(rows)
    assert [k for k, _, _ in got] == [b"a", b"c"]
    assert np.isnan(got[0][2]) and got[1][2] == 3.0


def test_zero_disables_the_guard():
    hyp, ref = "a b c d", "a b d c x"
    assert np.isnan(make_metric("character", {"max_tokens": 4}).segment_statistics([hyp], [[ref]])).all()
    stats = make_metric("character", {"max_tokens": 0}).segment_statistics([hyp], [[ref]])
    assert stats[0].tolist() == [100.0 * character_sentence(hyp, [ref]), 1.0]
    assert 0 < stats[0, 0] < 100
    long_hyp = " ".join(["가"] * 1501)  # over the default 1,500: not searched, so this is instant
    assert np.isnan(make_metric("character").segment_statistics([long_hyp], [["가"]])).all()
    assert np.isfinite(make_metric("character").segment_statistics([long_hyp[:2999]], [["가"]])).all()


def _run_cli(*args: str) -> subprocess.CompletedProcess:
    """``korean-eval run`` as a process: a guard that failed would start a search that never ends, which the
    process's timeout stops."""
    return subprocess.run([sys.executable, "-m", "korean_eval", "run", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)


def test_cli_skips_a_200_kb_segment_at_jamo_and_says_so(tmp_path):
    ev = load_sample()
    refs = list(ev.refs[0][:6])
    hyps = list(ev.systems["sys_strong"][:6])
    long = ""
    while len(long.encode("utf-8")) < 200_000:
        long += " ".join(ev.refs[0]) + " "
    refs[2], hyps[2] = long.strip(), long.strip()
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    result = _run_cli("--ref", str(tmp_path / "ref.txt"), "--sys", f"sys_a={tmp_path / 'hyp.txt'}", "--levels", "jamo",
                      "--metrics", "character", "--bootstrap", "0", "--jobs", "1", "--no-cache", "--quiet",
                      "--out", str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    note = "CharacTER@jamo: 1 of 6 pairs not scored (a side longer than 1,500 tokens; option max_tokens); first: sys_a seg 2"
    assert note in result.stdout
    assert note in json.loads((out / "run.json").read_text(encoding="utf-8"))["notes"]


def test_a_negative_max_tokens_is_refused_naming_the_option(tmp_path, capsys):
    """Refused by the metric, the configuration and the CLI (its ``main`` in this process: the exit code and the
    error line are those of the process, tests/unit/cli/test_run_command.py checks that for a process)."""
    with pytest.raises(ValueError, match="max_tokens"):
        make_metric("character", {"max_tokens": -1})
    with pytest.raises(ValueError, match="max_tokens"):
        _config(max_tokens=-1)
    (tmp_path / "t.txt").write_text("가 나\n", encoding="utf-8")
    code = main(["run", "--ref", str(tmp_path / "t.txt"), "--sys", f"a={tmp_path / 't.txt'}", "--levels", "word",
                 "--metrics", "character", "--override", "word:character:max_tokens=-1", "--no-cache", "--quiet",
                 "--out", str(tmp_path / "out")])
    stderr = capsys.readouterr().err
    assert code != 0
    assert "max_tokens" in stderr and "Traceback" not in stderr
