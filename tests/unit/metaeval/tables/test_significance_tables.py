"""Tests of the layer of korean_eval.metaeval that applies the statistics to a Results: CIs for every correlation
row, significance tables and clusters, system pairs, rankings and the plain-English comparison — on the study's
document 1 and on synthetic results."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, permutations

import numpy as np
import pandas as pd
import pytest

from korean_eval.metaeval.stats.comparisons import (
    PairCorrelator,
    pair_correlations,
    rank_clusters,
    williams_test,
)
from korean_eval.metaeval.stats.correlation import system_means
from korean_eval.metaeval.stats.pairwise import (
    SYSTEM_PAIR_LABELS,
    label_system_pair,
    pairwise_accuracy,
    wilcoxon_ranksum_human,
)
from korean_eval.metaeval.stats.reference import (
    paired_bootstrap_means_loop,
    paired_bootstrap_metric,
    permutation_deltas_loop,
    resampled_segment_correlations,
    resampled_system_correlations,
)
from korean_eval.metaeval.stats.resampling import bootstrap_indices, resample_counts
from korean_eval.metaeval.tables import compare, intervals, tidy
from korean_eval.metaeval.tables import significance as sig
from korean_eval.metaeval.tables import system_pairs as sp
from korean_eval.metaeval.tables.configs import configurations, system_scores
from korean_eval.model.results import Results
from korean_eval.model.vocabulary import STATISTICS, is_grouped
from tests.support.helpers import STUDY, require
from tests.support.synthetic_results import synthetic_results

DOC1 = STUDY / "doc1_with_text.csv"


# ----------------------------------------------------------------------------------------------------------------
# fixtures
# ----------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def doc1() -> Results:
    """The study's document 1 (4 systems, Sys_B lacks 7 of 18 segments), human = Z_adequacy, word and char levels.

    Skipped only when ../shared is absent, and a failure (not a skip) under CI=true."""
    require(DOC1)
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.inputs.tables import evalset_from_table
    from korean_eval.model.config import EvalConfig

    evalset = evalset_from_table(DOC1.read_bytes(), DOC1.name, human_col="Z_adequacy")
    return evaluate(evalset, EvalConfig(levels=("word", "char")))


@pytest.fixture(scope="module")
def doc1_frame() -> pd.DataFrame:
    return pd.read_csv(require(DOC1))


def _signed_inputs(res: Results, granularity: str) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Independently built comparison inputs: error-rate metrics negated."""
    configs = {}
    for (level, metric), mat in res.segment_matrices.items():
        sign = -1.0 if metric == "ter" or metric.startswith("err") else 1.0
        if granularity == "segment":
            configs[f"{level}/{metric}"] = sign * mat
        else:
            df = res.system_scores.query("level == @level and metric == @metric").set_index("system")["score"]
            configs[f"{level}/{metric}"] = sign * df.reindex(res.systems).to_numpy(float)
    human = res.human_matrix if granularity == "segment" else np.nanmean(res.human_matrix, axis=1)
    return configs, human


def _reference_significance(
    configs: dict[str, np.ndarray], human: np.ndarray, statistic: str, granularity: str, grouping: str,
    tests: Sequence[str], n_permutations: int, seed: int,
) -> list[dict]:
    """The significance rows, slowly: Williams on each ordered pair's correlations, the permutation test one scipy
    call per permutation (reference.permutation_deltas_loop, whose (y, x) differences are exactly the negated
    (x, y) ones, as test_stats checks)."""
    loops = {}
    for x, y in combinations(configs, 2):
        deltas = permutation_deltas_loop(
            configs[x], configs[y], human, statistic, granularity, grouping, n_permutations, seed
        )
        loops[(x, y)], loops[(y, x)] = deltas, deltas.reversed()
    rows = []
    for x, y in permutations(configs, 2):
        r = pair_correlations(configs[x], configs[y], human, statistic, granularity, grouping)
        for test in tests:
            if test == "perm-inputs":
                p = loops[(x, y)].p_value()
            elif is_grouped(granularity, grouping):
                p = float("nan")
            else:
                p = williams_test(r.r_a, r.r_b, r.r_ab, r.n, 3 if test == "williams" else 2)
            rows.append({"config_a": x, "config_b": y, "test": test, "p_value": p})
    return rows


# ----------------------------------------------------------------------------------------------------------------
# the ranking view on the study's document 1
# ----------------------------------------------------------------------------------------------------------------


def test_ranking_view_human_order_and_metric_orders(doc1: Results, doc1_frame: pd.DataFrame) -> None:
    view = sp.ranking_view(doc1, n_resamples=300)
    human = view[view["config"] == sp.HUMAN]
    # the human order, independently: mean Z_adequacy per system over its judged segments, highest first
    means = doc1_frame.groupby(["Sys", "SentID"])["Z_adequacy"].mean().groupby("Sys").mean()
    assert list(human["system"]) == list(means.sort_values(ascending=False).index)
    assert list(human["system"]) == ["Sys_B", "Sys_A", "Sys_P", "Sys_Q"]
    np.testing.assert_allclose(human["score"], means.sort_values(ascending=False).to_numpy(), rtol=1e-12)
    assert list(human["position"]) == [1, 2, 3, 4]

    labelled = 0
    for config, block in view[view["config"] != sp.HUMAN].groupby("config", sort=False):
        level, metric = config.split("/")
        scores = doc1.system_scores.query("level == @level and metric == @metric").set_index("system")["score"]
        expected = scores.sort_values(ascending=(metric == "ter"), kind="stable").index  # TER: lower is better
        assert list(block["system"]) == list(expected), config
        assert list(block["human_position"]) == [list(human["system"]).index(s) + 1 for s in block["system"]]
        assert block["vs_next"].iloc[-1] == ""
        assert set(block["vs_next"].iloc[:-1]) <= set(SYSTEM_PAIR_LABELS)
        labelled += len(block) - 1
    assert labelled == 10 * 3


# ----------------------------------------------------------------------------------------------------------------
# confidence intervals
# ----------------------------------------------------------------------------------------------------------------


def test_confidence_intervals_doc1(doc1: Results) -> None:
    before = doc1.correlations.copy()
    ci = intervals.add_confidence_intervals(doc1, n_resamples=1000, seed=12345)
    pd.testing.assert_frame_equal(doc1.correlations, before)  # a copy; the input is untouched
    assert list(ci.columns) == list(before.columns)
    pd.testing.assert_frame_equal(ci.drop(columns=["ci_low", "ci_high"]), before.drop(columns=["ci_low", "ci_high"]))
    assert ci.attrs["confidence_intervals"]["n_resamples"] == 1000
    correlation = ci["statistic"].isin(STATISTICS)
    assert ci.loc[correlation, "value"].notna().all()
    assert ci.loc[correlation, ["ci_low", "ci_high"]].notna().all().all()
    assert set(ci.loc[~correlation, "statistic"]) == set(tidy.PAIRWISE_STATISTICS)
    defined = ~correlation & ci["value"].notna()  # acc_eq, pairwise accuracy, SPA: bootstrapped too
    assert ci.loc[defined, ["ci_low", "ci_high"]].notna().all().all()
    # every interval contains its point estimate (the resampled values include the full-set pattern's neighbours)
    tol = 1e-12
    within = (ci["ci_low"] <= ci["value"] + tol) & (ci["value"] <= ci["ci_high"] + tol)
    assert within[correlation].all()
    assert (ci["ci_high"] - ci["ci_low"] > 0).any()
    # seeded: identical with the same seed, different with another
    again = intervals.add_confidence_intervals(doc1, n_resamples=1000, seed=12345)
    pd.testing.assert_frame_equal(ci, again)
    other = intervals.add_confidence_intervals(doc1, n_resamples=1000, seed=7)
    assert not np.allclose(other["ci_low"], ci["ci_low"])
    # threads do not change anything
    pd.testing.assert_frame_equal(intervals.add_confidence_intervals(doc1, n_resamples=1000, jobs=2), ci)


@pytest.mark.parametrize("statistics", [("pearson",), ("acc_eq", "spa"), ("kendall", "pairwise_accuracy")])
def test_intervals_of_some_statistics_equal_those_of_the_full_table(doc1: Results, statistics) -> None:
    """Only the rows of the statistics asked for get intervals, each the same as in the table of every row (every
    row is resampled with the same seeded draw); the others stay empty."""
    full = intervals.add_confidence_intervals(doc1, n_resamples=200, seed=12345)
    some = intervals.add_confidence_intervals(doc1, n_resamples=200, seed=12345, statistics=statistics)
    asked = some["statistic"].isin(statistics)
    assert asked.any() and (~asked).any()
    pd.testing.assert_frame_equal(some[asked], full[asked])
    assert some.loc[~asked, ["ci_low", "ci_high"]].isna().all().all()
    assert some.attrs["confidence_intervals"]["statistics"] == sorted(statistics)


def test_merged_interval_tables_hold_each_ones_rows(doc1: Results) -> None:
    full = intervals.add_confidence_intervals(doc1, n_resamples=200, seed=12345)
    parts = [intervals.add_confidence_intervals(doc1, n_resamples=200, seed=12345, statistics=stats)
             for stats in [("pearson",), ("acc_eq", "spa")]]
    merged = intervals.merge_interval_tables(doc1.correlations, parts)
    covered = merged["statistic"].isin(["pearson", "acc_eq", "spa"])
    pd.testing.assert_frame_equal(merged[covered], full[covered], check_like=True)
    assert merged.loc[~covered, ["ci_low", "ci_high"]].isna().all().all() and (~covered).any()
    assert merged.attrs["confidence_intervals"]["statistics"] == ["acc_eq", "pearson", "spa"]
    pd.testing.assert_frame_equal(intervals.merge_interval_tables(doc1.correlations, [full]), full)


@pytest.mark.parametrize("missing", [False, True])
def test_bootstrap_identity_reproduces_point_estimates(missing: bool) -> None:
    res = synthetic_results(missing=missing)
    values = intervals.bootstrap_correlations(res, np.ones((1, len(res.seg_ids))))[:, 0]
    np.testing.assert_allclose(values, res.correlations["value"].to_numpy(), rtol=0, atol=1e-12)


def test_bootstrap_identity_doc1(doc1: Results) -> None:
    values = intervals.bootstrap_correlations(doc1, np.ones((1, len(doc1.seg_ids))))[:, 0]
    correlation = doc1.correlations["statistic"].isin(STATISTICS).to_numpy()
    np.testing.assert_allclose(values[correlation], doc1.correlations["value"].to_numpy()[correlation], rtol=0, atol=1e-12)
    spa = (doc1.correlations["statistic"] == "spa").to_numpy()  # needs the index matrix itself: NaN without it
    assert np.isnan(values[spa]).all()
    accuracy = ~correlation & ~spa
    np.testing.assert_allclose(values[accuracy], doc1.correlations["value"].to_numpy()[accuracy], rtol=0, atol=1e-12)


def test_segment_rows_equal_resampling_loop() -> None:
    res = synthetic_results(n_items=25)
    idx = bootstrap_indices(25, 40, seed=3)
    got = intervals.bootstrap_correlations(res, resample_counts(idx, 25))
    corr = res.correlations
    for pos in np.flatnonzero((corr["granularity"] == "segment").to_numpy())[::5]:
        row = corr.iloc[pos]
        seg = res.segment_matrices[(row["level"], row["metric"])]
        loop = resampled_segment_correlations(seg, res.human_matrix, row["statistic"], row["grouping"], idx)
        np.testing.assert_allclose(got[pos], loop, rtol=0, atol=1e-12)


def test_system_ci_uses_summed_statistics() -> None:
    # Two systems' statistics where the ratio of sums and the mean of segment ratios order the systems differently.
    res = synthetic_results(n_systems=3, n_items=2, levels=("word",), metrics=("ratio",), missing=False)
    res.stats[("word", "ratio")][:] = np.array([[[1, 1], [0, 9]], [[2, 10], [2, 10]], [[3, 10], [3, 10]]], float)
    res.human_matrix[:] = np.array([[0.1, 0.1], [0.2, 0.2], [0.3, 0.3]])
    every_item_once = np.ones((3, 2))
    rows = res.correlations.query("granularity == 'system' and statistic == 'spearman'").index
    got = intervals.bootstrap_correlations(res, every_item_once)[rows[0]]
    assert got == pytest.approx([1.0, 1.0, 1.0])  # sums: 10%, 20%, 30% — averaging would give 50%, 20%, 30%
    resampled = intervals.resampled_system_scores(res, "word/ratio", np.array([[2.0, 0.0], [0.0, 1.0]]))
    np.testing.assert_allclose(resampled, [[100.0, 20.0, 30.0], [0.0, 20.0, 30.0]])


@pytest.mark.parametrize("statistic", ["pearson", "kendall"])
def test_system_rows_equal_naive_resampling(statistic: str, doc1: Results) -> None:
    idx = bootstrap_indices(len(doc1.seg_ids), 60, seed=11)
    got = intervals.bootstrap_correlations(doc1, resample_counts(idx, len(doc1.seg_ids)))
    corr = doc1.correlations
    for key in [("word", "bleu"), ("char", "chrf++"), ("char", "ter")]:
        pos = corr.index[
            (corr["level"] == key[0]) & (corr["metric"] == key[1]) & (corr["granularity"] == "system")
            & (corr["statistic"] == statistic)
        ][0]
        loop = resampled_system_correlations(
            doc1.stats[key], doc1.metrics[key].scores_from_sums, doc1.human_matrix, statistic, idx
        )
        np.testing.assert_allclose(got[pos], loop, rtol=0, atol=1e-12)


def test_without_human_scores() -> None:
    res = synthetic_results(human=False)
    ci = intervals.add_confidence_intervals(res, n_resamples=50)
    assert ci[["ci_low", "ci_high"]].isna().all().all()
    assert sig.significance_table(res).empty
    assert list(sig.significance_table(res).columns) == sig.SIGNIFICANCE_COLUMNS


# ----------------------------------------------------------------------------------------------------------------
# which configuration agrees more with the humans
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statistic", "granularity", "grouping"),
    [("pearson", "segment", "none"), ("kendall", "segment", "item"), ("spearman", "segment", "system"),
     ("pearson", "system", "none")],
)
def test_significance_table_equals_reference(doc1: Results, statistic: str, granularity: str, grouping: str) -> None:
    # the reference (one scipy call per permutation, every ordered pair by itself) is slow: four configurations
    subset = ["word/bleu", "word/ter", "char/chrf++", "char/ter"]
    tests = ("williams", "williams_n2", "perm-inputs")
    table = sig.significance_table(doc1, statistic, granularity, grouping, 150, 5, tests, configs=subset)
    assert list(table.columns) == sig.SIGNIFICANCE_COLUMNS
    signed, human = _signed_inputs(doc1, granularity)
    signed = {name: signed[name] for name in subset}
    ref = _reference_significance(signed, human, statistic, granularity, grouping, tests, 150, 5)
    assert len(table) == len(ref) == 4 * 3 * 3
    for got, want in zip(table.to_dict("records"), ref, strict=True):
        assert (got["config_a"], got["config_b"], got["test"]) == (want["config_a"], want["config_b"], want["test"])
        if np.isnan(want["p_value"]):
            assert np.isnan(got["p_value"])
        elif got["test"] == "perm-inputs":
            assert got["p_value"] == want["p_value"]
        else:
            assert got["p_value"] == pytest.approx(want["p_value"], abs=1e-12)
    assert (table["granularity"] == granularity).all() and (table["statistic"] == statistic).all()
    for got in table.to_dict("records"):  # the table's correlations: pair_correlations' on the pair's points
        want = pair_correlations(signed[got["config_a"]], signed[got["config_b"]], human, statistic, granularity,
                                 grouping)
        assert (got["r_a"], got["r_b"], got["n"]) == (want.r_a, want.r_b, want.n)


@pytest.mark.parametrize(("statistic", "granularity", "grouping"),
                         [("pearson", "segment", "none"), ("kendall", "segment", "item"),
                          ("spearman", "system", "none")])
@pytest.mark.parametrize("need_r_ab", [True, False])
def test_pair_correlator_equals_pair_correlations_whatever_points_are_missing(
        statistic: str, granularity: str, grouping: str, need_r_ab: bool) -> None:
    """The significance table's memo of r(config, H) is keyed by the pair's common points: configurations missing
    different points give pairs with different points, and each pair still gets pair_correlations' numbers."""
    rng = np.random.default_rng(3)
    shape = (5, 40) if granularity == "segment" else (12,)
    human = rng.normal(size=shape)
    human[rng.random(shape) < 0.1] = np.nan
    data = {}
    for k in range(5):
        values = human + rng.normal(size=shape)
        if k >= 2:  # configurations 2, 3, 4 each miss their own points; 0 and 1 none
            values[rng.random(shape) < 0.15] = np.nan
        data[("word", f"m{k}")] = values
    correlate = PairCorrelator(data, human, statistic, granularity, grouping, need_between=need_r_ab)
    pairs = list(permutations(data, 2))
    for (x, y), got in zip(pairs, correlate(pairs), strict=True):
        want = pair_correlations(data[x], data[y], human, statistic, granularity, grouping)
        assert (got.r_a, got.r_b, got.n) == (want.r_a, want.r_b, want.n)
        assert got.r_ab == want.r_ab if need_r_ab else np.isnan(got.r_ab)
    assert len({mask for _, mask in correlate._with_human}) > 1  # pairs with different points were met


def test_error_rate_metrics_are_compared_by_agreement(doc1: Results) -> None:
    table = sig.significance_table(doc1, n_permutations=200, tests=("williams", "perm-inputs"))
    ter = table[(table["config_a"] == "char/ter") & (table["config_b"] == "char/bleu")]
    assert set(ter["sign"]) == {"-1/+1"} and set(ter["sign_a"]) == {-1.0}
    raw = doc1.correlations.query(
        "granularity == 'segment' and grouping == 'none' and statistic == 'pearson' and level == 'char' and metric == 'ter'"
    )["value"].iloc[0]
    assert raw < 0 and ter["r_a"].iloc[0] == pytest.approx(-raw)  # agreement = -r
    # p(TER beats BLEU) + p(BLEU beats TER) ≈ 1 for Williams: one-sided tests of the same signed difference
    back = table[(table["config_a"] == "char/bleu") & (table["config_b"] == "char/ter") & (table["test"] == "williams")]
    assert ter.query("test == 'williams'")["p_value"].iloc[0] + back["p_value"].iloc[0] == pytest.approx(1.0)


def test_rank_clusters_table(doc1: Results) -> None:
    table = sig.significance_table(doc1, n_permutations=300)
    clusters = sig.rank_clusters_table(doc1, table=table)
    assert list(clusters.columns) == sig.CLUSTER_COLUMNS
    assert clusters["cluster"].iloc[0] == 1 and clusters["cluster"].is_monotonic_increasing
    assert clusters["correlation"].is_monotonic_decreasing
    np.testing.assert_allclose(clusters["correlation"], clusters["sign"] * clusters["value"])
    assert set(clusters.loc[clusters["metric"] == "ter", "sign"]) == {-1.0}
    perm = table[table["test"] == "perm-inputs"]
    pvalues = {(a, b): p for a, b, p in zip(perm["config_a"], perm["config_b"], perm["p_value"], strict=True)}
    expected = rank_clusters(dict(zip(clusters["config"], clusters["correlation"], strict=True)), pvalues)
    assert dict(zip(clusters["config"], clusters["cluster"], strict=True)) == expected
    # computed on demand from the same seed: the same clusters
    pd.testing.assert_frame_equal(sig.rank_clusters_table(doc1, n_permutations=300), clusters)


def test_compare_two(doc1: Results) -> None:
    tests = ("williams", "perm-inputs")
    table = sig.significance_table(doc1, n_permutations=1000, tests=tests)
    out = compare.compare_two(doc1, "char/ter", "char/bleu", tests=tests)
    better, worse = out["better"], out["worse"]
    row = table[(table["config_a"] == better) & (table["config_b"] == worse)].set_index("test")["p_value"]
    p = out["p_values"]
    assert p["williams"] == pytest.approx(row["williams"]) and p["perm-inputs"] == row["perm-inputs"]
    assert out["methods"]["perm-inputs"] == "Monte-Carlo, 1000 permutations"
    assert out["r_a"] < 0 and out["agreement_a"] == pytest.approx(-out["r_a"]) and out["sign_a"] == -1.0
    s = out["sentence"]
    labels = {"char/ter": "TER@char", "char/bleu": "BLEU@char"}
    assert s.startswith(f"{labels[better]} correlates more strongly with humans than {labels[worse]}")
    assert "error rate" in s and "Williams (assumes independent points) p" in s and "permutation p" in s
    assert "α = 0.05" in s and out["significant"] == all(v < 0.05 for v in p.values())
    # by default the segment level uses the permutation test alone
    default = compare.compare_two(doc1, "char/ter", "char/bleu")
    assert default["tests"] == ("perm-inputs",) and default["p_values"] == {"perm-inputs": p["perm-inputs"]}
    assert "Williams" not in default["sentence"]
    assert ("is significant" in s) == out["significant"]

    # chrF ignores whitespace: word and char chrF are identical
    same = compare.compare_two(doc1, "word/chrf", "char/chrf")
    assert same["r_a"] == same["r_b"] and not same["significant"] and "equally" in same["sentence"]

    grouped = compare.compare_two(doc1, "word/bleu", "char/bleu", statistic="kendall", grouping="item")
    assert grouped["tests"] == ("perm-inputs",) and "Williams" not in grouped["sentence"]
    grouped = compare.compare_two(doc1, "word/bleu", "char/bleu", "kendall", grouping="item", tests=("williams",))
    assert np.isnan(grouped["p_values"]["williams"]) and "Williams" not in grouped["sentence"]
    assert "averaged per item" in grouped["sentence"]
    system = compare.compare_two(doc1, ("word", "bleu"), ("char", "bleu"), granularity="system")
    assert system["n"] == 4 and "at the system level" in system["sentence"]
    assert system["tests"] == ("williams", "perm-inputs") and system["methods"]["perm-inputs"] == "exact, 16 patterns"
    assert "Williams p" in system["sentence"] and "exact permutation p" in system["sentence"]
    assert system["p_values"]["perm-inputs"] * 16 == pytest.approx(round(system["p_values"]["perm-inputs"] * 16))
    with pytest.raises(ValueError, match="unknown configuration"):
        compare.compare_two(doc1, "word/bleu", "word/nope")


def test_compare_two_significant_case() -> None:
    res = synthetic_results(n_items=300, seed=3)
    res.segment_matrices[("char", "ratio")] = res.segment_matrices[("word", "ratio")] + 40 * np.random.default_rng(
        1
    ).normal(size=res.human_matrix.shape)
    out = compare.compare_two(res, "word/ratio", "char/ratio")
    assert out["better"] == "word/ratio" and out["significant"]
    assert out["sentence"].endswith("the difference is significant at α = 0.05.")
    assert "p < 0.001" in out["sentence"]


# ----------------------------------------------------------------------------------------------------------------
# system pairs
# ----------------------------------------------------------------------------------------------------------------


def test_system_pairs_doc1(doc1: Results) -> None:
    pairs = sp.system_pairs_table(doc1, n_resamples=1000, seed=12345)
    assert list(pairs.columns) == sp.SYSTEM_PAIR_COLUMNS
    assert len(pairs) == 10 * 6 and set(pairs["label"]) <= set(SYSTEM_PAIR_LABELS)
    idx = bootstrap_indices(len(doc1.seg_ids), 1000, 12345)
    means = system_means(doc1.human_matrix)
    systems = doc1.systems
    for r in pairs.itertuples():
        i, j = systems.index(r.system_a), systems.index(r.system_b)
        scores = system_scores(doc1, (r.level, r.metric))
        assert r.metric_diff == pytest.approx(scores[i] - scores[j])
        assert r.human_diff == pytest.approx(means[i] - means[j])
        sign = -1.0 if r.metric == "ter" else 1.0
        assert r.label == label_system_pair(sign * r.metric_diff, r.metric_p, r.human_diff, r.human_p)
        assert r.metric_better == (r.system_a if sign * r.metric_diff > 0 else r.system_b)
        assert r.metric_ci_low <= r.metric_diff <= r.metric_ci_high
    # systems with every segment: exactly sacrebleu's paired bootstrap, and the paired human bootstrap
    a, p = systems.index("Sys_A"), systems.index("Sys_P")
    for key in [("word", "bleu"), ("char", "ter"), ("char", "chrf")]:
        row = pairs.query("level == @key[0] and metric == @key[1] and system_a == 'Sys_A' and system_b == 'Sys_P'")
        cube = doc1.stats[key]
        want = paired_bootstrap_metric(cube[a], cube[p], doc1.metrics[key].scores_from_sums, idx)
        got = row[["metric_diff", "metric_p", "metric_ci_low", "metric_ci_high"]].iloc[0].tolist()
        assert got == pytest.approx(list(want), abs=1e-9)
        assert row["metric_p"].iloc[0] == want.p_value
        h = paired_bootstrap_means_loop(doc1.human_matrix[a], doc1.human_matrix[p], idx)
        assert row["human_p"].iloc[0] == h.p_value and row["human_diff"].iloc[0] == pytest.approx(h.diff)
    # an error rate prefers the lower score
    ter = pairs.query("level == 'char' and metric == 'ter'")
    for r in ter.itertuples():
        assert r.metric_better == (r.system_a if r.metric_diff < 0 else r.system_b)
    # deterministic
    pd.testing.assert_frame_equal(sp.system_pairs_table(doc1, n_resamples=1000, seed=12345), pairs)
    assert not sp.system_pairs_table(doc1, n_resamples=1000, seed=1)["metric_p"].equals(pairs["metric_p"])


def test_system_pairs_wilcoxon(doc1: Results) -> None:
    pairs = sp.system_pairs_table(doc1, n_resamples=200, human_test="wilcoxon", configs=["word/bleu"])
    assert len(pairs) == 6 and pairs["human_ci_low"].isna().all()
    for r in pairs.itertuples():
        i, j = doc1.systems.index(r.system_a), doc1.systems.index(r.system_b)
        w = wilcoxon_ranksum_human(doc1.human_matrix[i], doc1.human_matrix[j])
        assert (r.human_diff, r.human_p) == pytest.approx((w.diff, w.p_value))
    with pytest.raises(ValueError, match="human_test"):
        sp.system_pairs_table(doc1, human_test="t-test")


def test_pairwise_accuracy_table(doc1: Results) -> None:
    acc = sp.pairwise_accuracy_table(doc1)
    assert list(acc.columns) == sp.ACCURACY_COLUMNS and len(acc) == 10
    assert (acc["n_pairs"] == 6).all()
    for r in acc.itertuples():
        want = pairwise_accuracy(
            system_scores(doc1, (r.level, r.metric)), system_means(doc1.human_matrix), r.metric != "ter"
        )
        assert r.pairwise_accuracy == want
    # consistent with the labels: accuracy = share of pairs whose better system is the humans' better system
    pairs = sp.system_pairs_table(doc1, n_resamples=100)
    agree = (pairs["metric_better"] == pairs["human_better"]).groupby([pairs["level"], pairs["metric"]]).mean()
    merged = acc.set_index(["level", "metric"])["pairwise_accuracy"]
    np.testing.assert_allclose(merged.loc[agree.index], agree.to_numpy())


def test_missing_segments_in_pairs() -> None:
    res = synthetic_results(n_items=80, seed=4)
    pairs = sp.system_pairs_table(res, n_resamples=300, configs=["word/ratio"])
    last = res.systems[-1]
    with_last = pairs[pairs["system_b"] == last]
    scores = system_scores(res, "word/ratio")
    np.testing.assert_allclose(with_last["metric_diff"], scores[:-1] - scores[-1])  # own segments, summed
    means = np.nanmean(res.human_matrix, axis=1)
    np.testing.assert_allclose(with_last["human_diff"], means[:-1] - means[-1])
    assert with_last[["metric_p", "human_p"]].notna().all().all()


def test_unordered_pairs_are_all_present(doc1: Results) -> None:
    table = sig.significance_table(doc1, granularity="system", n_permutations=100)
    names = configurations(doc1)
    for a, b in combinations(names, 2):
        assert ((table["config_a"] == a) & (table["config_b"] == b)).sum() == 2
        assert ((table["config_a"] == b) & (table["config_b"] == a)).sum() == 2


def test_confidence_intervals_on_a_large_grid() -> None:
    """5 levels × 5 metrics × 4 statistics × (3 groupings + system) = 400 rows on 4 systems × 500 items: every row
    gets an interval (the time this takes is a benchmark's business, not a test's)."""
    res = synthetic_results(
        n_items=500, levels=("word", "mecab", "kiwi", "char", "jamo"), metrics=("r1", "r2", "r3", "r4", "err")
    )
    assert len(res.correlations) == 25 * len(STATISTICS) * 4 == 400
    ci = intervals.add_confidence_intervals(res, n_resamples=200)
    assert ci[["ci_low", "ci_high"]].notna().all().all()
