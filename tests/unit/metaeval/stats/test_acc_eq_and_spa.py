"""WMT's current statistics: tie-calibrated pairwise accuracy acc_eq (Deutsch et al. 2023) and soft pairwise
accuracy SPA (Thompson et al. 2024), against hand-worked examples, a readable loop, and mt-metrics-eval's numbers."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from korean_eval.metaeval.stats.soft_pairwise import (
    pairwise_permutation_p_values,
    sign_patterns,
    soft_pairwise_accuracy,
)
from korean_eval.metaeval.stats.tie_calibrated import acc_eq


def _mean(sums: np.ndarray) -> np.ndarray:
    return sums[..., 0]


def _accuracy_loop(metric: np.ndarray, human: np.ndarray, epsilon: float) -> float:
    """The definition, item by item and pair by pair."""
    per_item = []
    for i in range(metric.shape[1]):
        agree = total = 0
        for a, b in itertools.combinations(range(metric.shape[0]), 2):
            m, h = metric[a, i] - metric[b, i], human[a, i] - human[b, i]
            if np.isnan(m) or np.isnan(h):
                continue
            metric_tie, human_tie = abs(m) <= epsilon, h == 0
            total += 1
            agree += (metric_tie and human_tie) or (not metric_tie and not human_tie and np.sign(m) == np.sign(h))
        if total:
            per_item.append(agree / total)
    return float(np.mean(per_item))


def test_acc_eq_hand_worked_finds_a_tie_with_positive_epsilon():
    # item 0: humans tie systems 0 and 1; the metric separates them by 0.125, orders the rest as the humans do.
    # item 1: the metric orders every pair against the humans.
    human = np.array([[1.0, 2.0], [1.0, 1.0], [3.0, 0.0]])
    metric = np.array([[0.5, 0.1], [0.625, 0.2], [1.5, 0.3]])
    result = acc_eq(metric, human, "item")
    assert result.accuracy_at_zero == pytest.approx((2 / 3 + 0) / 2)
    assert result.epsilon == 0.125  # ties (0, 1) in item 0; item 1 gains nothing from ties
    assert result.accuracy == pytest.approx((1 + 0) / 2)
    assert (result.n_groups, result.n_pairs) == (2, 6)


def test_acc_eq_equals_the_definition_at_the_chosen_epsilon():
    rng = np.random.default_rng(3)
    human = rng.integers(0, 4, size=(5, 30)).astype(float)
    metric = np.round(human + rng.normal(size=(5, 30)), 1)
    metric[1, 3] = human[2, 7] = np.nan
    result = acc_eq(metric, human, "item")
    assert result.accuracy == pytest.approx(_accuracy_loop(metric, human, result.epsilon), abs=1e-12)
    assert result.accuracy_at_zero == pytest.approx(_accuracy_loop(metric, human, 0.0), abs=1e-12)
    gaps = np.unique(np.abs(metric[:, None, :] - metric[None, :, :]))
    best = max(_accuracy_loop(metric, human, e) for e in np.concatenate(([0.0], gaps[np.isfinite(gaps)])))
    assert result.accuracy == pytest.approx(best, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(1, 8), st.integers(0, 10_000), st.sampled_from(["item", "none", "system"]))
def test_acc_eq_is_at_least_the_accuracy_without_calibration(n_sys, n_items, seed, grouping):
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 3, size=(n_sys, n_items)).astype(float)
    metric = rng.integers(0, 5, size=(n_sys, n_items)) / 4.0
    result = acc_eq(metric, human, grouping)
    if result.n_pairs:
        assert result.accuracy >= result.accuracy_at_zero - 1e-12
        assert 0.0 <= result.accuracy <= 1.0


# Pinned from mt-metrics-eval (google-research/mt-metrics-eval, stats.py, commit 68a481a):
# KendallWithTiesOpt(human.ravel(), metric.ravel(), variant='acc23', num_sys=4, average_by=…, sample_rate=1.0)
# on the matrices of _mtme_example().
def _mtme_example() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2023)
    human = rng.integers(0, 3, size=(4, 12)).astype(float)
    metric = np.round(human * 0.5 + rng.normal(size=(4, 12)) * 0.5, 2)
    return metric, human


# grouping → (accuracy, epsilon) as mt-metrics-eval returns them (average_by 'item', 'none', 'sys')
MTME_ACC23 = {"item": (0.6388888888888888, 0.53), "none": (0.549645390070922, 0.07), "system": (0.5265151515151515, 0.16)}


@pytest.mark.parametrize("grouping", sorted(MTME_ACC23))
def test_acc_eq_equals_mt_metrics_eval(grouping):
    metric, human = _mtme_example()
    result = acc_eq(metric, human, grouping)
    accuracy, epsilon = MTME_ACC23[grouping]
    assert result.accuracy == pytest.approx(accuracy, abs=1e-9)
    assert result.epsilon == pytest.approx(epsilon, abs=1e-12)


def test_soft_pairwise_accuracy_hand_worked_exact_enumeration():
    # a beats b by item differences (2, 0, 1); of the 8 sign patterns, 2 give a sum ≥ 3: p = 2/8.
    scores = np.array([[3.0, 1.0, 2.0], [1.0, 1.0, 1.0]])[..., None]
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=3)))
    p = pairwise_permutation_p_values(scores, _mean, signs)
    assert p[0, 1] == 0.25 and np.isnan(p[1, 0])
    assert pairwise_permutation_p_values(scores, _mean, signs, higher_is_better=False)[0, 1] == 1.0  # 8 of 8 ≥ −3


def test_soft_pairwise_accuracy_is_one_when_p_values_agree():
    rng = np.random.default_rng(5)
    human = rng.normal(size=(5, 40))
    signs = sign_patterns(500, 40, seed=1)
    p_h = pairwise_permutation_p_values(human[..., None], _mean, signs)
    p_m = pairwise_permutation_p_values((3.0 * human + 7.0)[..., None], _mean, signs)  # same order, other scale
    assert soft_pairwise_accuracy(p_h, p_m) == 1.0
    reversed_metric = pairwise_permutation_p_values(-human[..., None], _mean, signs)
    assert soft_pairwise_accuracy(p_h, reversed_metric) < 0.5


# ---- the statistics in an evaluation's correlations table ----------------------------------------------------------


@pytest.fixture(scope="module")
def sample_results():
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.inputs.sample import load_sample
    from korean_eval.model.config import EvalConfig

    return evaluate(load_sample(), EvalConfig(levels=("char",), metrics=("bleu", "ter"), jobs=1, spa_permutations=300))


def test_correlations_table_holds_acc_eq_pairwise_accuracy_and_spa(sample_results):
    res = sample_results
    corr = res.correlations
    human = res.human_matrix
    for metric in ("bleu", "ter"):
        rows = corr[(corr["level"] == "char") & (corr["metric"] == metric)]
        segment = res.segment_matrices[("char", metric)]
        signed = segment if metric == "bleu" else -segment  # TER is an error rate: negated before comparing pairs
        for grouping in ("item", "none"):
            row = rows[(rows["statistic"] == "acc_eq") & (rows["grouping"] == grouping)].iloc[0]
            expected = acc_eq(signed, human, grouping)
            assert row["granularity"] == "segment"
            assert row["value"] == expected.accuracy and row["epsilon"] == expected.epsilon
        system = rows[rows["granularity"] == "system"].set_index("statistic")
        assert {"pairwise_accuracy", "spa"} <= set(system.index)
        assert 0.0 <= system.loc["spa", "value"] <= 1.0
        assert system.loc["spa", "n"] == np.isfinite(human).all(axis=0).sum()
    others = corr[~corr["statistic"].isin(["acc_eq", "pairwise_accuracy", "spa"])]
    assert others["epsilon"].isna().all()


def test_spa_is_seeded_and_can_be_switched_off():
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.inputs.sample import load_sample
    from korean_eval.model.config import EvalConfig

    def spa(config: EvalConfig) -> pd.Series:
        corr = evaluate(load_sample(), config).correlations
        return corr.loc[corr["statistic"] == "spa", "value"].reset_index(drop=True)

    base = dict(levels=("char",), metrics=("chrf",), jobs=1)
    assert spa(EvalConfig(**base, spa_permutations=200, seed=3)).equals(spa(EvalConfig(**base, spa_permutations=200, seed=3)))
    assert spa(EvalConfig(**base, spa_permutations=0)).empty


def test_cli_writes_the_wmt_statistics_and_clusters(tmp_path):
    from korean_eval.cli.main import main

    out = tmp_path / "out"
    code = main(["run", "--levels", "char,word", "--metrics", "bleu,ter", "--bootstrap", "50", "--spa-permutations",
                 "100", "--quiet", "--no-cache", "--jobs", "1", "--out", str(out)])
    assert code == 0
    corr = pd.read_csv(out / "correlations.csv")
    assert {"acc_eq", "pairwise_accuracy", "spa", "pearson"} <= set(corr["statistic"])
    acc = corr[corr["statistic"] == "acc_eq"]
    assert set(acc["grouping"]) == {"item", "none"} and acc["epsilon"].notna().all()
    assert set(corr.loc[corr["statistic"].isin(["pairwise_accuracy", "spa"]), "granularity"]) == {"system"}
    clusters = pd.read_csv(out / "clusters.csv")
    assert list(clusters.columns[:4]) == ["granularity", "statistic", "level", "metric"]
    assert set(clusters["granularity"]) == {"segment", "system"} and (clusters["cluster"] >= 1).all()
    # per statistic: pearson at 2 granularities, acc_eq (segment) and SPA (system), each over 2 levels × 2 metrics
    assert clusters.groupby("statistic").size().to_dict() == {"pearson": 2 * 4, "acc_eq": 4, "spa": 4}


def test_numbers_table_never_shows_a_blank_interval():
    from ui.views import ci_text

    assert ci_text(0.1, 0.3, "pearson") == "[0.100, 0.300]"
    assert ci_text(float("nan"), float("nan"), "pearson").startswith("n/a")
    assert ci_text(float("nan"), float("nan"), "acc_eq") == "n/a (intervals off, or undefined)"  # bootstrapped too
