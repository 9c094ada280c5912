"""Bootstrap intervals of WMT's pairwise accuracies (acc_eq over items and over all pairs, pairwise accuracy, SPA):
every resample against the statistic recomputed literally on the resampled data, and the intervals in an
evaluation's correlations table."""

from __future__ import annotations

import numpy as np
import pytest

from korean_eval.metaeval.stats.accuracy_resampling import (
    item_acc_eq_resamples,
    item_accuracy_steps,
    pairwise_accuracy_resamples,
    pooled_acc_eq_resamples,
    pooled_agreement,
    resampled_p_values,
    spa_from_p_values,
)
from korean_eval.metaeval.stats.pairwise import pairwise_accuracy
from korean_eval.metaeval.stats.resampling import bootstrap_indices, resample_counts
from korean_eval.metaeval.stats.soft_pairwise import human_pairwise, spa_of_segment_scores
from korean_eval.metaeval.stats.tie_calibrated import acc_eq


def _data(seed: int = 1, n_sys: int = 4, n_items: int = 15) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 4, size=(n_sys, n_items)).astype(float)
    metric = np.round(human * 0.3 + rng.normal(size=(n_sys, n_items)), 1)
    metric[1, 3] = human[2, 5] = np.nan
    return metric, human


def _accuracy_at(metric: np.ndarray, human: np.ndarray, epsilon: float) -> float:
    """acc_eq over all pairs at a given ε, pair by pair: the definition."""
    ok = np.isfinite(metric) & np.isfinite(human)
    m, h = metric[ok], human[ok]
    agree = total = 0
    for i in range(m.size):
        for j in range(i + 1, m.size):
            dm, dh = m[i] - m[j], h[i] - h[j]
            metric_tie, human_tie = abs(dm) <= epsilon, dh == 0
            total += 1
            agree += (metric_tie and human_tie) or (not metric_tie and not human_tie and np.sign(dm) == np.sign(dh))
    return agree / total


def test_item_acc_eq_of_every_resample_is_acc_eq_of_the_resampled_items_with_its_own_epsilon():
    metric, human = _data()
    indices = bootstrap_indices(15, 40, 7)
    values = item_acc_eq_resamples(item_accuracy_steps(metric, human), resample_counts(indices, 15))
    literal = [acc_eq(metric[:, drawn], human[:, drawn], "item") for drawn in indices]
    np.testing.assert_allclose(values, [r.accuracy for r in literal], rtol=0, atol=1e-12)
    full = acc_eq(metric, human, "item").epsilon
    assert any(r.epsilon != full for r in literal)  # ε is chosen again: some resamples choose another


def test_pooled_acc_eq_of_every_resample_counts_every_pair_of_the_drawn_entries_at_the_fixed_epsilon():
    metric, human = _data(2, 3, 9)
    epsilon = acc_eq(metric, human, "none").epsilon
    indices = bootstrap_indices(9, 25, 3)
    values = pooled_acc_eq_resamples(pooled_agreement(metric, human, epsilon), resample_counts(indices, 9))
    literal = [_accuracy_at(metric[:, drawn], human[:, drawn], epsilon) for drawn in indices]
    np.testing.assert_allclose(values, literal, rtol=0, atol=1e-12)
    identity = pooled_acc_eq_resamples(pooled_agreement(metric, human, epsilon), np.ones((1, 9)))[0]
    assert identity == pytest.approx(acc_eq(metric, human, "none").accuracy, abs=1e-12)


def test_pairwise_accuracy_of_every_row():
    rng = np.random.default_rng(5)
    metric_sys, human_sys = rng.normal(size=(30, 5)), rng.normal(size=(30, 5))
    metric_sys[3, 1] = np.nan
    got = pairwise_accuracy_resamples(metric_sys, human_sys, higher_is_better=False)
    want = [pairwise_accuracy(m, h, higher_is_better=False) for m, h in zip(metric_sys, human_sys, strict=True)]
    np.testing.assert_allclose(got, want, rtol=0, atol=0)


@pytest.mark.parametrize("missing", [False, True])
def test_spa_of_every_resample_is_spa_of_the_resampled_items(missing):
    rng = np.random.default_rng(8)
    human, metric = rng.normal(size=(4, 15)), rng.normal(size=(4, 15))
    metric += human
    if missing:  # an item without a human score and one without a metric score: left out wherever drawn
        human[2, 4] = metric[0, 9] = np.nan
    usable = np.isfinite(human).all(axis=0) & np.isfinite(metric).all(axis=0)
    indices = bootstrap_indices(15, 30, 11)
    stack = np.stack([np.where(usable, human, 0.0), -np.where(usable, metric, 0.0)])
    p = resampled_p_values(stack, usable, 200, 3, indices)
    values = spa_from_p_values(p[:, 0], p[:, 1])
    literal = [spa_of_segment_scores(metric[:, d], human_pairwise(human[:, d], 200, 3), human[:, d], False)[0]
               for d in indices]
    np.testing.assert_allclose(values, literal, rtol=0, atol=0)


@pytest.fixture(scope="module")
def sample_results():
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.inputs.sample import load_sample
    from korean_eval.model.config import EvalConfig

    return evaluate(load_sample(), EvalConfig(levels=("word", "char"), metrics=("bleu", "ter"), jobs=1,
                                              spa_permutations=100))


def test_identity_resample_reproduces_every_reported_value(sample_results):
    from korean_eval.metaeval.tables.intervals import bootstrap_correlations

    n = len(sample_results.seg_ids)
    values = bootstrap_correlations(sample_results, np.ones((1, n)), 1, np.arange(n)[None])[:, 0]
    reported = sample_results.correlations["value"].to_numpy(float)
    np.testing.assert_allclose(values, reported, rtol=0, atol=1e-12)


def test_intervals_of_the_accuracies_in_the_correlations_table(sample_results):
    from korean_eval.metaeval.tables.intervals import add_confidence_intervals, bootstrap_correlations

    table = add_confidence_intervals(sample_results, n_resamples=60, seed=4)
    accuracies = table[table["statistic"].isin(["acc_eq", "pairwise_accuracy", "spa"])]
    assert len(accuracies) == 4 * 4
    assert accuracies[["ci_low", "ci_high"]].notna().all().all()
    assert (accuracies["ci_low"] <= accuracies["ci_high"]).all()
    assert ((accuracies["ci_low"] >= 0) & (accuracies["ci_high"] <= 1)).all()
    # the correlations' intervals are unchanged: the same index matrix gives the same counts
    again = add_confidence_intervals(sample_results, n_resamples=60, seed=4)
    np.testing.assert_array_equal(table[["ci_low", "ci_high"]].to_numpy(), again[["ci_low", "ci_high"]].to_numpy())
    indices = bootstrap_indices(len(sample_results.seg_ids), 60, 4)
    counts = resample_counts(indices, len(sample_results.seg_ids))
    without_spa = bootstrap_correlations(sample_results, counts)  # no index matrix: SPA rows stay NaN
    spa = (table["statistic"] == "spa").to_numpy()
    assert np.isnan(without_spa[spa]).all() and np.isfinite(without_spa[~spa & table["value"].notna().to_numpy()]).all()


def test_blocks_of_resamples_give_the_values_of_the_whole():
    metric, human = _data(3)
    counts = resample_counts(bootstrap_indices(15, 50, 2), 15)
    steps = item_accuracy_steps(metric, human)
    whole = item_acc_eq_resamples(steps, counts)
    np.testing.assert_allclose(np.concatenate([item_acc_eq_resamples(steps, counts[i:i + 7]) for i in range(0, 50, 7)]),
                               whole, rtol=0, atol=1e-15)
