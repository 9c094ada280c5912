"""The estimates said before slow work starts, from measured per-unit costs: the significance matrix
(:mod:`korean_eval.metaeval.tables.costs`), tokenising (:mod:`korean_eval.levels.costs`), scoring
(:mod:`korean_eval.metrics.costs`) and the Korean lens (:mod:`korean_eval.lens.costs`): each follows its stated
formula, and what costs more is estimated to cost more."""

from __future__ import annotations

import pytest

from korean_eval.inputs.sample import load_sample
from korean_eval.lens import costs as lens_costs
from korean_eval.levels.costs import JVM_START_SECONDS, TOKENIZE_COSTS, tokenize_seconds
from korean_eval.levels.registry import LEVEL_NAMES
from korean_eval.metaeval.tables.costs import (
    CHEAP_PAIR_SECONDS,
    INTERVAL_SECONDS,
    PAIR_SECONDS,
    intervals_seconds,
    significance_seconds,
)
from korean_eval.metrics import METRIC_NAMES
from korean_eval.metrics.costs import SCORE_US_PER_CHAR, score_seconds
from korean_eval.model.config import EvalConfig
from ui.formats import duration


def test_significance_estimate_follows_its_formula():
    per = PAIR_SECONDS[("spearman", "none", "perm-inputs")]
    got = significance_seconds(25, 2000, "spearman", "segment", "none", "perm-inputs", 1000)
    assert got == pytest.approx(300 * (CHEAP_PAIR_SECONDS + per * 2.0))
    assert significance_seconds(25, 2000, "spearman", "segment", "none", "perm-inputs", 2000) > got
    assert significance_seconds(50, 2000, "spearman", "segment", "none", "perm-inputs", 1000) > 4 * got
    assert significance_seconds(25, 20, "kendall", "system", "none", "perm-inputs") == 300 * CHEAP_PAIR_SECONDS
    assert significance_seconds(25, 2000, "pearson", "segment", "none", "williams") == 300 * CHEAP_PAIR_SECONDS
    # ungrouped PDP is Pearson r, and is estimated as it
    assert significance_seconds(9, 500, "pdp", "segment", "none", "perm-wmt") == significance_seconds(
        9, 500, "pearson", "segment", "none", "perm-wmt")
    # the WMT variant swaps every score alone: dearer than swapping whole segments
    assert significance_seconds(9, 500, "kendall", "segment", "none", "perm-wmt") > significance_seconds(
        9, 500, "kendall", "segment", "none", "perm-inputs")


def test_intervals_estimate_follows_its_formula():
    shared, per = INTERVAL_SECONDS["pearson"]
    assert intervals_seconds(["pearson"], 25, 2200) == pytest.approx(2.2 * (shared + 25 * per))
    assert intervals_seconds(["pearson"], 25, 2200, n_resamples=2000) == pytest.approx(
        2 * intervals_seconds(["pearson"], 25, 2200))
    spa_shared, spa_per = INTERVAL_SECONDS["spa"]
    both = intervals_seconds(["acc_eq", "spa"], 25, 2200, spa_permutations=500)
    acc = intervals_seconds(["acc_eq"], 25, 2200)
    assert both == pytest.approx(acc + 2.2 * 0.5 * (spa_shared + 25 * spa_per))
    assert intervals_seconds(["spa"], 25, 2200, spa_permutations=0) == 0  # no permutations: no SPA intervals
    assert intervals_seconds(["pearson", "pearson"], 3, 1000) == intervals_seconds(["pearson"], 3, 1000)
    # every statistic the dashboard charts is measured, and more configurations or points cost more
    assert {"pearson", "spearman", "kendall", "pdp", "acc_eq", "spa"} <= set(INTERVAL_SECONDS)
    assert intervals_seconds(["kendall"], 26, 2200) > intervals_seconds(["kendall"], 25, 2200)
    assert intervals_seconds(["kendall"], 25, 2300) > intervals_seconds(["kendall"], 25, 2200)
    assert intervals_seconds(["pairwise_accuracy"], 5, 1000) > 0  # not measured: the dearest correlation's


def test_every_level_and_metric_has_a_measured_cost():
    assert set(LEVEL_NAMES) - {"khaiii"} <= set(TOKENIZE_COSTS)  # khaiii cannot be installed: never runs
    assert set(METRIC_NAMES) == set(SCORE_US_PER_CHAR)


def test_tokenising_estimate_counts_the_jvm_once_and_no_start_twice():
    one = tokenize_seconds(["okt"], 10_000)["okt"]
    start, per_char = TOKENIZE_COSTS["okt"]
    assert one == pytest.approx(start + per_char * 0.01 + JVM_START_SECONDS)
    both = tokenize_seconds(["okt", "komoran"], 10_000)
    assert both["komoran"] == pytest.approx(TOKENIZE_COSTS["komoran"][0] + TOKENIZE_COSTS["komoran"][1] * 0.01)
    started = tokenize_seconds(["kiwi"], 10_000, started={"kiwi"})["kiwi"]
    assert started == pytest.approx(TOKENIZE_COSTS["kiwi"][1] * 0.01)
    assert tokenize_seconds(["kkma"], 10_000)["kkma"] > 100 * tokenize_seconds(["char"], 10_000)["char"]
    assert score_seconds(["ter", "bleu"], 2, 1_000_000) == pytest.approx(2 * (SCORE_US_PER_CHAR["ter"]
                                                                               + SCORE_US_PER_CHAR["bleu"]))


def test_lens_estimate_grows_with_the_levels_of_its_probe(monkeypatch):
    monkeypatch.setattr(lens_costs, "started_levels", lambda: {"kiwi"})
    sample = load_sample()
    few = lens_costs.lens_estimate(sample, EvalConfig(levels=("word", "char"), metrics=("chrf",)))
    grid = lens_costs.lens_estimate(sample, EvalConfig(levels=("word", "mecab", "okt", "komoran", "kkma", "hannanum",
                                                               "char", "jamo"), metrics=("chrf", "ter")))
    assert few.analysis == grid.analysis > 0
    chars = sum(len(t) for t in {*sample.refs[0], *(h for hyps in sample.systems.values() for h in hyps if h)})
    assert few.analysis == pytest.approx(lens_costs.ANALYSIS_US_PER_CHAR * chars / 1e6)
    assert few.total < 20 < 60 < grid.probe  # the sample's defaults run at once; the full grid waits for a click
    assert lens_costs.lens_estimate(sample, EvalConfig(levels=(), metrics=("chrf",))).probe == 0
    # the sample with the dashboard's defaults runs when the lens page opens, even with Kiwi's model still to load
    from ui.lens_state import AUTO_SECONDS

    monkeypatch.setattr(lens_costs, "started_levels", set)
    assert lens_costs.lens_estimate(sample, EvalConfig()).total <= AUTO_SECONDS


@pytest.mark.parametrize(("seconds", "text"), [(0.2, "under a second"), (3.4, "about 3 s"), (37, "about 35 s"),
                                               (600, "about 10 min")])
def test_durations_in_words(seconds, text):
    assert duration(seconds) == text
