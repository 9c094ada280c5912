"""Significance as WMT does it: WMT's permutation test ("perm-wmt") against a readable loop and pinned
mt-metrics-eval (mtme) numbers, and the tests chosen by default at each granularity. mtme is not a dependency: the
constants were computed once with ``PYTHONPATH=<mt-metrics-eval checkout>`` as the comments say."""

from __future__ import annotations

import numpy as np
import pytest

from korean_eval.metaeval.stats.correlation import correlation, system_correlation
from korean_eval.metaeval.stats.permutation import permutation_deltas, permutation_deltas_wmt
from korean_eval.metaeval.stats.reference import permutation_deltas_wmt_loop
from korean_eval.metaeval.tables import significance as sig
from korean_eval.metaeval.tables import tidy
from korean_eval.model.vocabulary import (
    PERMUTATION_TESTS,
    SIGNIFICANCE_TESTS,
    STATISTICS,
    TEST_NOTES,
    default_tests,
)
from tests.support.synthetic_results import synthetic_results


def _mtme_example() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """4 systems × 30 items: human scores and two metrics (a closer to the humans than b)."""
    rng = np.random.default_rng(2024)
    h = rng.normal(size=(4, 30)).round(2)
    a = (h + 0.9 * rng.normal(size=h.shape)).round(2)
    b = (h + 1.3 * rng.normal(size=h.shape)).round(2)
    return h, a, b


# mtme: g = list(h.ravel()); stats.PermutationSigDiff(Correlation(4, g, list(b.ravel())), Correlation(4, g,
# list(a.ravel())), scipy.stats.pearsonr, average_by, k, PermutationSigDiffParams(block_size=k)) after
# np.random.seed(seed) — the p that a correlates better than b, and delta = r(a) − r(b) on z-scores.
MTME_NONE = {"k": 20000, "seed": 2, "p": 0.13785, "delta": 0.10069035100379864}
MTME_ITEM = {"k": 2000, "seed": 1, "p": 0.795, "delta": -0.09529341986790735}


@pytest.mark.parametrize(("grouping", "mtme"), [("none", MTME_NONE), ("item", MTME_ITEM)])
def test_perm_wmt_equals_mtme_within_noise(grouping: str, mtme: dict) -> None:
    h, a, b = _mtme_example()
    n_perm = 20000
    got = permutation_deltas_wmt(a, b, h, "pearson", "segment", grouping, n_perm, seed=7)
    assert got.observed == pytest.approx(mtme["delta"], abs=1e-12)
    assert got.method == f"Monte-Carlo, {n_perm} permutations"
    p = mtme["p"]
    se = np.sqrt(p * (1 - p) / mtme["k"] + p * (1 - p) / n_perm)
    assert abs(got.p_value() - p) < 4 * se, (got.p_value(), p)


@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("grouping", ["none", "item", "system"])
def test_perm_wmt_equals_loop(statistic: str, grouping: str) -> None:
    """The vectorised test equals one correlation per permutation, each (system, segment) score swapped alone."""
    rng = np.random.default_rng(5)
    h = rng.normal(size=(4, 9)).round(1)
    a, b = (h + 0.5 * rng.normal(size=h.shape)).round(1), (h + rng.normal(size=h.shape)).round(1)
    a[1, 3] = b[2, 5] = np.nan
    got = permutation_deltas_wmt(a, b, h, statistic, "segment", grouping, 150, seed=3)
    ref = permutation_deltas_wmt_loop(a, b, h, statistic, grouping, 150, 3)
    assert not got.exact and got.observed == pytest.approx(ref.observed, abs=1e-12)
    np.testing.assert_allclose(got.deltas, ref.deltas, rtol=0, atol=1e-12)
    assert got.p_value() == ref.p_value() and got.reversed().p_value() == ref.reversed().p_value()


def test_perm_wmt_is_exact_with_few_points_and_equals_perm_inputs_at_system_level() -> None:
    rng = np.random.default_rng(9)
    h = rng.normal(size=(3, 4))
    a, b = h + 0.4 * rng.normal(size=h.shape), h + rng.normal(size=h.shape)
    h[0, 0] = h[2, 3] = np.nan  # 10 common points: 2**10 patterns
    got = permutation_deltas_wmt(a, b, h, "pearson", "segment", "none")
    ref = permutation_deltas_wmt_loop(a, b, h, "pearson", "none", 1000, 12345)
    assert got.exact and got.method == "exact, 1024 patterns" and ref.exact
    assert got.p_value() == pytest.approx(ref.p_value(), abs=1e-12)
    assert got.p_value() * 1024 == pytest.approx(round(got.p_value() * 1024), abs=1e-9)
    sys_h, sys_a, sys_b = rng.normal(size=5), rng.normal(size=5), rng.normal(size=5)
    wmt = permutation_deltas_wmt(sys_a, sys_b, sys_h, "kendall", "system")
    inputs = permutation_deltas(sys_a, sys_b, sys_h, "kendall", "system")
    assert wmt.observed == inputs.observed and np.array_equal(wmt.deltas, inputs.deltas) and wmt.exact


def test_default_tests_and_labels() -> None:
    assert default_tests("segment") == ("perm-inputs",)
    assert default_tests("system") == ("williams", "perm-inputs")
    assert set(TEST_NOTES) == set(SIGNIFICANCE_TESTS) and set(PERMUTATION_TESTS) <= set(SIGNIFICANCE_TESTS)
    assert "assumes independent points" in TEST_NOTES["williams"]


def test_significance_table_defaults_and_perm_wmt_rows() -> None:
    res = synthetic_results(n_items=40, seed=2)
    configs = list(res.segment_matrices)[:3]
    seg = sig.significance_table(res, n_permutations=100, configs=configs)
    assert set(seg["test"]) == {"perm-inputs"} and set(seg["method"]) == {"Monte-Carlo, 100 permutations"}
    system = sig.significance_table(res, granularity="system", n_permutations=100, configs=configs)
    assert list(dict.fromkeys(system["test"])) == ["williams", "perm-inputs"]
    n_sys = len(res.systems)
    assert set(system.loc[system["test"] == "perm-inputs", "method"]) == {f"exact, {2**n_sys} patterns"}
    assert set(system.loc[system["test"] == "williams", "method"]) == {
        "Student t, df = n − 3; assumes independent points"
    }
    both = sig.significance_table(res, n_permutations=100, tests=("perm-inputs", "perm-wmt"), configs=configs)
    wmt = both[both["test"] == "perm-wmt"]
    assert len(wmt) == 6 and wmt["p_value"].between(1 / 101, 1).all()
    h, a, b = res.human_matrix, res.segment_matrices[configs[0]], res.segment_matrices[configs[1]]
    sign = [(1.0 if res.higher_is_better(k[1], k[0]) else -1.0) for k in configs[:2]]
    want = permutation_deltas_wmt(sign[0] * a, sign[1] * b, h, "pearson", "segment", "none", 100, 12345)
    assert wmt["p_value"].iloc[0] == want.p_value()
    with pytest.raises(ValueError, match="unknown test"):
        sig.significance_table(res, tests=("permutation",))


# ----------------------------------------------------------------------------------------------------------------
# correlation edge cases: undefined groups are counted, and can count as 0 (mt-metrics-eval replace_nans_with_zeros)
# ----------------------------------------------------------------------------------------------------------------


def test_item_grouping_counts_undefined_groups() -> None:
    # 3 systems × 4 items. Item 0: all systems got the same metric score; item 1: the humans tie all; item 2: a
    # perfect agreement (r = 1); item 3: perfect disagreement (r = −1) with one system missing.
    metric = np.array([[5.0, 1.0, 1.0, 3.0], [5.0, 2.0, 2.0, 2.0], [5.0, 3.0, 3.0, np.nan]])
    human = np.array([[1.0, 7.0, 1.0, 1.0], [2.0, 7.0, 2.0, 2.0], [3.0, 7.0, 3.0, 3.0]])
    got = correlation(metric, human, "pearson", "segment", "item")
    assert got == (pytest.approx(0.0), 11, 4, 2)  # mean of (1, −1); two of four items undefined
    got = correlation(metric, human, "pearson", "segment", "item", replace_nans_with_zeros=True)
    assert got == (pytest.approx(0.0), 11, 4, 2)
    only_good = metric.copy()
    only_good[:, 3] = [1.0, 2.0, np.nan]  # item 3 now agrees: mean of (1, 1) = 1, or (0 + 0 + 1 + 1) / 4 with zeros
    assert correlation(only_good, human, "pearson", "segment", "item").value == pytest.approx(1.0)
    zeros = correlation(only_good, human, "pearson", "segment", "item", replace_nans_with_zeros=True)
    assert zeros.value == pytest.approx(0.5) and zeros.n_undefined == 2
    # an item without any pair is not a group at all
    empty = only_good.copy()
    empty[:, 0] = np.nan
    assert correlation(empty, human, "pearson", "segment", "item")[2:] == (3, 1)


def test_ungrouped_and_system_counts() -> None:
    metric = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert correlation(metric, metric, "kendall")[1:] == (4, 1, 0)
    assert correlation(np.ones((2, 2)), metric, "kendall")[1:] == (4, 1, 1)  # constant metric: undefined
    assert system_correlation(np.array([1.0, 2.0]), np.array([2.0, 1.0]), "pearson")[1:] == (2, 1, 1)
    assert system_correlation(np.array([np.nan]), np.array([1.0]), "pearson")[1:] == (0, 0, 0)


def test_correlation_rows_carry_the_counts() -> None:
    metric = np.array([[5.0, 1.0, 1.0], [5.0, 2.0, 2.0], [5.0, 3.0, 3.0]])
    human = np.array([[1.0, 7.0, 1.0], [2.0, 7.0, 2.0], [3.0, 7.0, 3.0]])
    rows = tidy.correlation_rows("char", "m", metric, human, metric.mean(axis=1), ("pearson",), ("none", "item"))
    assert list(rows[0]) == tidy.CORRELATION_COLUMNS
    assert tidy.CORRELATION_COLUMNS[-3:] == ["n_groups", "n_undefined", "epsilon"]
    item = rows[1]
    assert (item["grouping"], item["n"], item["n_groups"], item["n_undefined"]) == ("item", 9, 3, 2)
    assert item["value"] == pytest.approx(1.0)
    zeros = tidy.correlation_rows("char", "m", metric, human, metric.mean(axis=1), ("pearson",), ("item",), True)
    assert zeros[0]["value"] == pytest.approx(1 / 3)
