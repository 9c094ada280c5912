"""The ranking checks without human scores: the paired tests equal sacrebleu's ``PairedTest`` on real data, the
clusters follow the tests, the order splits and their segments, and the CLI/API give the tables with no humans."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.significance import PairedTest

import korean_eval
from korean_eval.cli.main import main
from korean_eval.exports.csv_zip import to_csv_bytes
from korean_eval.levels.registry import get_level
from korean_eval.metaeval.stats.randomization import paired_ar, swap_masks
from korean_eval.metaeval.tables.ranking_text import ranking_lines
from korean_eval.metaeval.tables.system_ranking import (
    metric_pairs_table,
    order_splits_table,
    split_segments,
    system_ranking_table,
)
from korean_eval.model.config import RankingSettings
from tests.support.helpers import ROOT, SHARED, require

WMT24 = SHARED / "heldout" / "wmt24_chat_enko"
SAMPLE = ROOT / "sample_data"


def _wmt24(segments: int) -> tuple[list[str], dict[str, list[str]]]:
    folder = require(WMT24)
    ref = (folder / "ref.txt").read_text(encoding="utf-8").splitlines()[:segments]
    systems = {p.stem: p.read_text(encoding="utf-8").splitlines()[:segments]
               for p in sorted((folder / "systems").glob("*.txt"))}
    return ref, systems


def _sacrebleu_p(test_type: str, n: int, joined_ref: list[str], joined: dict[str, list[str]], baseline: str,
                 metric: str) -> dict[str, float]:
    """sacrebleu's PairedTest of every system against ``baseline`` on the space-joined tokens; name → p."""
    metrics = {"bleu": BLEU(tokenize="none", force=True), "chrf": CHRF(), "ter": TER()}
    named = [(baseline, joined[baseline])] + [(s, h) for s, h in joined.items() if s != baseline]
    old = os.environ.get("SACREBLEU_SEED")
    os.environ["SACREBLEU_SEED"] = "12345"
    try:
        _, scores = PairedTest(named, {metric: metrics[metric]}, references=[joined_ref], test_type=test_type,
                               n_samples=n)()
    finally:
        if old is None:
            os.environ.pop("SACREBLEU_SEED")
        else:
            os.environ["SACREBLEU_SEED"] = old
    column = next(k for k in scores if k != "System")  # sacrebleu names it by the score ("BLEU", "chrF2", "TER")
    return {name: r.p_value for name, r in zip(scores["System"], scores[column], strict=True) if r.p_value is not None}


@pytest.mark.parametrize("level", ["word", "char"])
def test_paired_tests_equal_sacrebleu_on_wmt24_chat(level: str) -> None:
    """Every system against the first under BLEU, chrF and TER: bootstrap (1,000 resamples) and approximate
    randomization (10,000 trials) p-values equal sacrebleu's PairedTest on the same tokens with its seed; the
    sacrebleu-style ± interval equals its estimate too."""
    ref, systems = _wmt24(200)
    results = korean_eval.evaluate(ref, systems, levels=[level], metrics=["bleu", "chrf", "ter"], resamples=0)
    settings = RankingSettings(resamples=1000, ar_trials=10_000, seed=12345)
    pairs = metric_pairs_table(results, settings)
    tokens = get_level(level)
    joined_ref = tokens.tokenize_joined(ref).joined
    joined = {s: tokens.tokenize_joined(h).joined for s, h in systems.items()}
    baseline = results.systems[0]
    for metric in ("bleu", "chrf", "ter"):
        mine = pairs[(pairs["metric"] == metric) & (pairs["system_a"] == baseline)].set_index("system_b")
        assert len(mine) == len(systems) - 1
        for test_type, column, n in (("bs", "bs_p", 1000), ("ar", "ar_p", 10_000)):
            expected = _sacrebleu_p(test_type, n, joined_ref, joined, baseline, metric)
            for name, p in expected.items():
                assert mine.loc[name, column] == pytest.approx(p, abs=1e-12), (level, metric, test_type, name)


def test_bootstrap_interval_equals_sacrebleu_estimate() -> None:
    """``bs_mean`` ± ``bs_ci`` of each system equals sacrebleu's paired-bootstrap estimate (``μ ± CI``)."""
    ref, systems = _wmt24(150)
    results = korean_eval.evaluate(ref, systems, levels=["word"], metrics=["bleu"], resamples=0)
    settings = RankingSettings(resamples=1000, ar_trials=0)
    ranking = system_ranking_table(results, metric_pairs_table(results, settings), settings).set_index("system")
    joined_ref = get_level("word").tokenize_joined(ref).joined
    joined = {s: get_level("word").tokenize_joined(h).joined for s, h in systems.items()}
    baseline = results.systems[0]
    named = [(baseline, joined[baseline])] + [(s, h) for s, h in joined.items() if s != baseline]
    os.environ.setdefault("SACREBLEU_SEED", "12345")
    _, scores = PairedTest(named, {"BLEU": BLEU(tokenize="none", force=True)}, references=[joined_ref],
                           test_type="bs", n_samples=1000)()
    for name, r in zip(scores["System"], scores["BLEU"], strict=True):
        if r.p_value is None:  # the baseline: sacrebleu gives no estimate for it
            continue
        assert ranking.loc[name, "bs_mean"] == pytest.approx(r.mean, abs=1e-4)
        assert ranking.loc[name, "bs_ci"] == pytest.approx(r.ci, abs=1e-4)


def test_approximate_randomization_against_a_loop() -> None:
    """The vectorised test equals a literal loop over the trials (swap, sum, score), with missing segments left out."""
    rng = np.random.default_rng(3)
    stats = rng.integers(0, 9, size=(2, 40, 3)).astype(float)
    stats[0, 5] = np.nan  # system a lacks segment 5

    def score(sums: np.ndarray) -> np.ndarray:
        return np.asarray(sums)[..., 0] / (1.0 + np.asarray(sums)[..., 1]) + 0.1 * np.asarray(sums)[..., 2]

    masks = swap_masks(40, 500, seed=7)
    diff, p = paired_ar(stats[0], stats[1], score, masks)
    shared = np.ones(40, bool)
    shared[5] = False
    a, b = stats[0][shared], stats[1][shared]
    observed = score(a.sum(0)) - score(b.sum(0))
    count = 0
    for m in masks[:, shared]:
        pa = np.where(m[:, None], b, a).sum(0)
        pb = np.where(m[:, None], a, b).sum(0)
        count += abs(score(pa) - score(pb)) > abs(observed)
    assert diff == pytest.approx(observed)
    assert p == pytest.approx((count + 1) / (len(masks) + 1))


def test_clusters_follow_the_test_and_the_direction() -> None:
    """On the sample (no humans): positions follow the scores (lowest first for TER), a new cluster starts exactly
    where a member of the current one is significantly better, and every unseparated neighbour shares a cluster."""
    results = korean_eval.evaluate(SAMPLE / "ref.txt", SAMPLE / "systems", levels=["word", "char"],
                                   metrics=["bleu", "ter"], resamples=0)
    settings = RankingSettings(resamples=500, ar_trials=1000)
    pairs = metric_pairs_table(results, settings)
    ranking = system_ranking_table(results, pairs, settings)
    for (level, metric), group in ranking.groupby(["level", "metric"]):
        group = group.sort_values("position")
        scores = group["score"].to_numpy()
        assert list(np.sort(scores) if metric == "ter" else -np.sort(-scores)) == list(scores)
        mine = pairs[(pairs["level"] == level) & (pairs["metric"] == metric)]
        sig = {frozenset((r.system_a, r.system_b)): r.significant for r in mine.itertuples()}
        systems, clusters = list(group["system"]), list(group["cluster"])
        start = 0
        for k in range(1, len(systems)):
            split = any(sig[frozenset((systems[m], systems[k]))] for m in range(start, k))
            assert clusters[k] == clusters[k - 1] + (1 if split else 0)
            if split:
                start = k
    assert all(":" in line for line in ranking_lines(ranking))


def test_order_splits_and_their_segments() -> None:
    """The sample's sys_order (words shuffled) wins on chrF and char, loses on word BLEU: its pairs are split, and
    the segments behind a split have opposite signs under the two configurations, strongest first."""
    results = korean_eval.evaluate(SAMPLE / "ref.txt", SAMPLE / "systems", levels=["word", "char"],
                                   metrics=["bleu", "chrf"], resamples=0)
    pairs = metric_pairs_table(results, RankingSettings(resamples=200, ar_trials=0))
    splits = order_splits_table(pairs)
    split = splits[(splits["prefer_a"] > 0) & (splits["prefer_b"] > 0)]
    assert len(split) and set(split.index) == set(range(len(split)))  # split pairs come first
    row = split[(split["system_a"] == "sys_josa") & (split["system_b"] == "sys_order")].iloc[0]
    assert "word/bleu" in row["configs_a"].split() and "char/chrf" in row["configs_b"].split()
    assert row["prefer_a"] + row["prefer_b"] + row["tie"] == row["n_configs"] == 4
    segs = split_segments(results, "sys_josa", "sys_order", "word/bleu", "char/chrf", limit=None)
    assert len(segs) > 0
    assert (segs["diff_1"] * segs["diff_2"] < 0).all()
    assert list(segs["strength"]) == sorted(segs["strength"], reverse=True)


def test_without_humans_the_cli_writes_the_ranking_checks_and_no_empty_human_tables(tmp_path: Path, capsys) -> None:
    """``korean-eval run`` without ``--human``: the ranking tables, no correlations.csv / rankings.csv of empty
    human columns, a note in run.json that says why, and the clusters in the printed summary; the API's Results
    holds the same tables."""
    out = tmp_path / "out"
    code = main(["run", "--ref", str(SAMPLE / "ref.txt"), "--sys-dir", str(SAMPLE / "systems"), "--levels",
                 "word,char", "--metrics", "bleu,ter", "--bootstrap", "200", "--ar-trials", "500", "--no-cache",
                 "--out", str(out), "--latex", str(tmp_path / "latex"), "--report", str(tmp_path / "report.html")])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    written = {p.name for p in out.iterdir()}
    assert {"system_ranking.csv", "metric_pairs.csv", "order_splits.csv"} <= written
    assert not written & {"correlations.csv", "rankings.csv", "flipped_pairs.csv", "human_systems.csv"}
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert any("no human scores" in note for note in meta["notes"])
    assert "word/bleu: " in printed.out and "approximate randomization: 500 trials" in printed.out
    # the paper exports: no correlation tables and no Human column, the ranking check instead
    assert sorted(p.name for p in (tmp_path / "latex").iterdir()) == ["system_ranking.tex", "system_scores.tex",
                                                                       "token_stats.tex"]
    assert "Human" not in (tmp_path / "latex" / "system_scores.tex").read_text(encoding="utf-8")
    ranking_tex = (tmp_path / "latex" / "system_ranking.tex").read_text(encoding="utf-8")
    assert "BLEU & word & " in ranking_tex and "500 trials" in ranking_tex
    report = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "id='ranking'" in report and "No human scores" in report and ">Human<" not in report
    results = korean_eval.evaluate(SAMPLE / "ref.txt", SAMPLE / "systems", levels=["word", "char"],
                                   metrics=["bleu", "ter"], resamples=200, ar_trials=500)
    for name in ("system_ranking.csv", "metric_pairs.csv", "order_splits.csv"):
        assert to_csv_bytes(results.statistics[name]) == (out / name).read_bytes(), name


def test_approximate_bleu_and_its_exact_recheck() -> None:
    """BLEU with numpy's logarithms stays far inside its stated bound of the exact (libm) score, and approximate
    randomization through it gives exactly the p-values of the exact scorer, also when a trial ties the observed
    difference (identical outputs on most segments)."""
    from korean_eval.metaeval.stats.randomization import all_pairs_ar
    from korean_eval.metrics import make_metric
    from korean_eval.metrics.sacre_formulas import APPROXIMATE_RELATIVE_ERROR, bleu_scores

    rng = np.random.default_rng(11)
    total = rng.integers(1, 60, size=(5000, 4)).astype(float)
    correct = np.floor(total * rng.random((5000, 4)))
    lengths = rng.integers(1, 80, size=(5000, 2)).astype(float)
    rows = np.hstack([lengths, correct, total])
    exact, fast = bleu_scores(rows), bleu_scores(rows, exact=False)
    assert np.all(np.abs(fast - exact) <= 1e-13 * np.abs(exact) + 1e-300)
    assert 1e-13 < APPROXIMATE_RELATIVE_ERROR

    bleu = make_metric("bleu")
    segment_rows = rng.integers(0, 9, size=(3, 60, 10)).astype(float)
    segment_rows[..., 6:] += segment_rows[..., 2:6]  # totals ≥ matches
    segment_rows[1, 5:] = segment_rows[0, 5:]  # systems 0 and 1 differ on 5 segments only: ties among the trials
    masks = swap_masks(60, 2000, seed=5)
    plain = all_pairs_ar(segment_rows, bleu.scores_from_sums, masks)
    checked = all_pairs_ar(segment_rows, bleu.scores_from_sums, masks, bleu.approximate_scores_from_sums,
                           bleu.approximation_error)
    assert plain == checked
