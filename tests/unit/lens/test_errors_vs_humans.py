"""Error counts against human scores (docs/design.md §8): correlations equal scipy's, their intervals are the
meta-evaluation's bootstrap, the linear model equals scipy's regression where that applies and the normal equations
otherwise."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from korean_eval.inputs.sample import load_sample
from korean_eval.lens import humans
from korean_eval.lens.pos_categories import CATEGORIES
from korean_eval.lens.run import run_lens
from korean_eval.metaeval.stats.correlation import correlate
from korean_eval.model.config import EvalConfig


@pytest.fixture(scope="module")
def features_and_human():
    rng = np.random.default_rng(3)
    shape = (4, 60)
    human = rng.normal(70, 10, shape)
    human[0, :5] = np.nan
    features = {name: rng.poisson(1.0, shape).astype(float) for name in humans.MODEL_FEATURES}
    features["particle"] = np.round(np.clip((80 - human) / 8 + rng.normal(0, 1, shape), 0, None))
    features["particle"][1, 3] = np.nan  # a system without that segment
    for name in humans.MODEL_FEATURES:
        features[name][1, 3] = np.nan
    features["other"] = np.where(np.isnan(features["other"]), np.nan, 0.0)  # constant: left out of the model
    return features, human


def test_correlations_equal_scipy_over_the_pairs_with_both(features_and_human):
    features, human = features_and_human
    table, _notes = humans.human_links(features, human, n_resamples=200, seed=1)
    corr = table[table["analysis"] == "correlation"].set_index(["feature", "statistic"])
    x, h = features["particle"].ravel(), human.ravel()
    ok = np.isfinite(x) & np.isfinite(h)
    assert corr.loc[("particle", "pearson"), "value"] == pytest.approx(sps.pearsonr(x[ok], h[ok]).statistic, abs=1e-12)
    assert corr.loc[("particle", "spearman"), "value"] == pytest.approx(sps.spearmanr(x[ok], h[ok]).statistic, abs=1e-12)
    assert corr.loc[("particle", "kendall"), "value"] == pytest.approx(sps.kendalltau(x[ok], h[ok]).statistic, abs=1e-12)
    assert corr.loc[("particle", "pearson"), "n"] == ok.sum()
    assert corr.loc[("particle", "pearson"), "value"] < -0.5
    assert np.isnan(corr.loc[("other", "pearson"), "value"])  # a constant feature has no correlation


def test_intervals_are_the_item_bootstrap(features_and_human):
    """The interval equals a slow loop: resample segments (columns) with all their systems, scipy per resample."""
    features, human = features_and_human
    table, _ = humans.human_links(features, human, n_resamples=200, seed=1)
    row = table[(table["feature"] == "particle") & (table["statistic"] == "pearson")].iloc[0]
    indices = np.random.default_rng(1).choice(human.shape[1], size=(200, human.shape[1]), replace=True)
    values = []
    for idx in indices:
        x, h = features["particle"][:, idx].ravel(), human[:, idx].ravel()
        ok = np.isfinite(x) & np.isfinite(h)
        values.append(correlate(x[ok], h[ok], "pearson"))
    low, high = np.quantile(values, [0.025, 0.975])
    assert row["ci_low"] == pytest.approx(low, abs=1e-9) and row["ci_high"] == pytest.approx(high, abs=1e-9)
    assert row["ci_low"] < row["value"] < row["ci_high"]


def test_one_predictor_model_equals_scipy_linregress():
    rng = np.random.default_rng(5)
    human = rng.normal(60, 15, (3, 40))
    features = {name: np.zeros((3, 40)) for name in humans.MODEL_FEATURES}
    features["content"] = rng.poisson(2.0, (3, 40)).astype(float)
    rows, notes = humans.ols_rows(features, human)
    fit = sps.linregress(features["content"].ravel(), human.ravel())
    table = pd.DataFrame(rows).set_index("feature")
    t = sps.t.ppf(0.975, human.size - 2)
    assert table.loc["content", "value"] == pytest.approx(fit.slope, abs=1e-10)
    assert table.loc[humans.INTERCEPT, "value"] == pytest.approx(fit.intercept, abs=1e-9)
    assert table.loc["content", "ci_low"] == pytest.approx(fit.slope - t * fit.stderr, abs=1e-9)
    assert table.loc[humans.INTERCEPT, "ci_high"] == pytest.approx(fit.intercept + t * fit.intercept_stderr, abs=1e-9)
    assert table.loc["(model)", "value"] == pytest.approx(fit.rvalue**2, abs=1e-12)
    assert notes and "particle" in notes[0]


def test_model_equals_the_normal_equations_and_leaves_out_constant_predictors(features_and_human):
    features, human = features_and_human
    rows, notes = humans.ols_rows(features, human)
    used = [f for f in humans.MODEL_FEATURES if f != "other"]
    assert "other" in notes[0]
    ok = np.isfinite(human) & np.all([np.isfinite(features[f]) for f in used], axis=0)
    x = np.column_stack([np.ones(ok.sum()), *(features[f][ok] for f in used)])
    beta = np.linalg.solve(x.T @ x, x.T @ human[ok])
    table = pd.DataFrame(rows).set_index("feature")
    assert list(table.index) == [humans.INTERCEPT, *used, "(model)"]
    assert table.loc[[humans.INTERCEPT, *used], "value"].to_numpy() == pytest.approx(beta, abs=1e-9)
    resid = human[ok] - x @ beta
    assert table.loc["(model)", "value"] == pytest.approx(1 - resid @ resid / np.sum((human[ok] - human[ok].mean()) ** 2))
    assert (table["n"] == ok.sum()).all()


def test_without_human_scores_the_table_is_empty_with_a_note():
    table, notes = humans.human_links({"content": np.zeros((2, 3))}, np.full((2, 3), np.nan))
    assert table.empty and list(table.columns) == humans.COLUMNS and "no human scores" in notes[0]


def test_features_of_the_sample_match_the_profile_tables():
    sample = load_sample()
    result = run_lens(sample, EvalConfig(levels=("char",), metrics=("chrf",)), with_probe=False, n_resamples=50)
    features = humans.feature_matrices(result.profile_segments, result.spacing_segments,
                                       result.speech_level_segments, sample.system_names, sample.seg_ids)
    assert set(CATEGORIES) <= set(features) and {"spacing", "speech_level_mismatch", "honorific_mismatch"} <= set(features)
    particle = result.profile_segments.query("category == 'particle' and subcategory == 'all'")
    assert np.nansum(features["particle"]) == particle["errors"].sum()
    assert np.nansum(features["speech_level_mismatch"]) == (~result.speech_level_segments["agree"]).sum()
    assert np.isfinite(features["content"]).sum() == len(result.pairs)
    links = result.human_links
    assert set(links["analysis"]) == {"correlation", "ols"} and (links["n"] == 543).all()
