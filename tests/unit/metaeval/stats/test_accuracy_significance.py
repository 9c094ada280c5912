"""Significance tests and rank clusters by WMT's pairwise accuracies: acc_eq's ``perm-pairs`` (mt-metrics-eval
``PairwisePermutationSigDiff``) and SPA's ``perm-wmt`` (``PermutationSigDiff`` with ``PairwiseConfidenceError``),
against mt-metrics-eval's own numbers on its own random draws, literal enumerations, and the tables of an
evaluation."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from korean_eval.metaeval.stats.accuracy_permutation import (
    all_patterns,
    pair_agreements,
    pair_swap_deltas,
    pair_swap_test,
    pair_swap_values,
    spa_swap_block,
    spa_swap_test,
    standardise_scores,
    swap_coins,
)
from korean_eval.metaeval.stats.permutation import PermutationDeltas
from korean_eval.metaeval.stats.soft_pairwise import pairwise_permutation_p_values, soft_pairwise_accuracy
from korean_eval.metaeval.stats.tie_calibrated import acc_eq
from tests.support.helpers import SHARED, require


def _sums(sums: np.ndarray) -> np.ndarray:
    return sums[..., 0]


def _hits(deltas: np.ndarray, observed: float) -> int:
    return int(np.sum(deltas >= observed - 1e-12))


# ---- acc_eq: comparisons swapped ------------------------------------------------------------------------------------


def _pairs_case() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(35)
    human = rng.integers(0, 3, size=(4, 12)).astype(float)
    a = np.round(human * 0.5 + rng.normal(size=(4, 12)) * 0.5, 2)
    b = np.round(human * 0.3 + rng.normal(size=(4, 12)) * 0.5, 2)
    return human, a, b


# Pinned from mt-metrics-eval (google-research/mt-metrics-eval, stats.py, commit 68a481a) on _pairs_case():
#   np.random.seed(0); PairwisePermutationSigDiff(corr(b), corr(a), 'acc23', 'item', 200,
#                                                 PermutationSigDiffParams(block_size=200), sample_rate=1.0)
# → (p, delta) = (0.59, -0.01388888888888884): p that a agrees more than b; KendallWithTiesOpt gives
# (acc, ε) = (0.5277777777777778, 0.02) for a and (0.5416666666666666, 0.68) for b.
MTME_PAIRS = {"p": 0.59, "delta": -0.01388888888888884, "k": 200, "eps_a": 0.02, "eps_b": 0.68}


def _mtme_pair_coins(n_permutations: int, n_items: int, n_systems: int) -> np.ndarray:
    """mt-metrics-eval's draws in PairwisePermutationSigDiff after ``np.random.seed(0)`` — per permutation, per item,
    ``np.triu(np.random.binomial(1, 0.5, (n, n)))``, entry ``[s, t]`` (s < t) kept for the first configuration when
    1 — as our coins for (a, b) = (its second, its first): True (swap) where it drew 0."""
    np.random.seed(0)
    first, second = np.triu_indices(n_systems, 1)
    coins = np.empty((n_permutations, n_items, first.size), dtype=bool)
    for j in range(n_permutations):
        for i in range(n_items):
            coins[j, i] = np.triu(np.random.binomial(1, 0.5, (n_systems, n_systems)))[first, second] == 0
    return coins.reshape(n_permutations, -1)


def test_pair_swap_equals_mt_metrics_eval_on_its_own_draws():
    human, a, b = _pairs_case()
    ea, eb = acc_eq(a, human, "item"), acc_eq(b, human, "item")
    assert (ea.epsilon, eb.epsilon) == pytest.approx((MTME_PAIRS["eps_a"], MTME_PAIRS["eps_b"]), abs=1e-12)
    values, n_items = pair_swap_values(pair_agreements(a, human, ea.epsilon), pair_agreements(b, human, eb.epsilon))
    assert n_items == 12
    assert values.sum() == pytest.approx(MTME_PAIRS["delta"], abs=1e-15) == ea.accuracy - eb.accuracy
    coins = _mtme_pair_coins(MTME_PAIRS["k"], 12, 4)
    agree_a, agree_b = pair_agreements(a, human, ea.epsilon), pair_agreements(b, human, eb.epsilon)
    # mt-metrics-eval's arithmetic on these draws: per item the share of agreeing pairs, their mean, c2 − c1 ≥ δ
    observed = agree_a.mean(axis=1).mean() - agree_b.mean(axis=1).mean()
    hybrids = [(np.where(c.reshape(agree_a.shape), agree_b, agree_a), np.where(c.reshape(agree_a.shape), agree_a, agree_b))
               for c in coins]
    mtme_count = sum(ha.mean(axis=1).mean() - hb.mean(axis=1).mean() >= observed for ha, hb in hybrids)
    assert mtme_count / MTME_PAIRS["k"] == MTME_PAIRS["p"]
    # ours counts every δ_j equal to δ in exact arithmetic (accuracies are multiples of 1/72 here); mt-metrics-eval
    # counts such a tie or not as the floating-point rounding of its two sums falls: the only difference
    deltas = pair_swap_deltas(values[:, None], coins)[0]
    exact = int(np.sum(np.round(deltas * 72) >= np.round(values.sum() * 72)))
    assert _hits(deltas, values.sum()) == exact
    assert int(np.sum(deltas > values.sum() + 1e-12)) <= MTME_PAIRS["p"] * MTME_PAIRS["k"] <= exact


def test_pair_swap_deltas_are_the_accuracies_of_the_hybrids():
    human, a, b = _pairs_case()
    agree_a = pair_agreements(a, human, acc_eq(a, human, "item").epsilon)
    agree_b = pair_agreements(b, human, acc_eq(b, human, "item").epsilon)
    coins = swap_coins(3, 1, 0, 50, agree_a.size)
    deltas = pair_swap_deltas(pair_swap_values(agree_a, agree_b)[0][:, None], coins)[0]
    for coin, delta in zip(coins, deltas, strict=True):
        swap = coin.reshape(agree_a.shape)
        hybrid_a, hybrid_b = np.where(swap, agree_b, agree_a), np.where(swap, agree_a, agree_b)
        assert delta == pytest.approx(hybrid_a.mean(axis=1).mean() - hybrid_b.mean(axis=1).mean(), abs=1e-15)


def test_pair_swap_is_exact_when_few_comparisons_differ():
    human = np.array([[1.0, 2, 0], [2, 2, 1], [0, 1, 2]])
    a = np.array([[0.1, 0.5, 0.0], [0.3, 0.5, 0.2], [0.0, 0.4, 0.9]])
    b = np.array([[0.3, 0.5, 0.0], [0.1, 0.2, 0.2], [0.0, 0.9, 0.4]])
    agree_a, agree_b = pair_agreements(a, human, 0.0), pair_agreements(b, human, 0.0)
    values = pair_swap_values(agree_a, agree_b)[0]
    test = pair_swap_test(values, 1000, 1)
    differ = np.flatnonzero(values != 0)
    assert test.exact and len(test.deltas) == 2 ** differ.size
    # the literal definition: every swap pattern of the 9 comparison units, accuracies of both hybrids
    literal = []
    for pattern in itertools.product([False, True], repeat=agree_a.size):
        swap = np.array(pattern).reshape(agree_a.shape)
        hybrid_a, hybrid_b = np.where(swap, agree_b, agree_a), np.where(swap, agree_a, agree_b)
        literal.append(hybrid_a.mean(axis=1).mean() - hybrid_b.mean(axis=1).mean())
    assert test.p_value() == pytest.approx(_hits(np.array(literal), values.sum()) / len(literal), abs=1e-15)
    assert test.method == f"exact, {2 ** differ.size} patterns"


# ---- SPA: scores swapped --------------------------------------------------------------------------------------------


def _scores_case() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2024)
    human = rng.integers(0, 5, size=(3, 30)).astype(float)
    a = np.round(human + rng.normal(size=(3, 30)), 3)
    b = np.round(human + 2 * rng.normal(size=(3, 30)), 3)
    return human, a, b


# Pinned from mt-metrics-eval (commit 68a481a) on _scores_case(), pce(g, m) = PairwiseConfidenceError(g, m, 3, 1000):
#   pce(human, a) = 0.761, pce(human, b) = 0.7;
#   np.random.seed(0); PermutationSigDiff(corr(b), corr(a), pce, 'none', 100, PermutationSigDiffParams(block_size=100))
# → (p, delta) = (0.23, 0.061000000000000054): p that a's SPA beats b's.
MTME_SCORES = {"spa_a": 0.761, "spa_b": 0.7, "p": 0.23, "delta": 0.061000000000000054, "k": 100}


def _pce_signs(n_permutations: int, n_items: int) -> np.ndarray:
    """The sign patterns of mt-metrics-eval's ``pce.compute_pairwise_p_values`` (its default seed 4), as ±1."""
    draws = np.rint(np.random.default_rng(4).random(size=(n_permutations, n_items), dtype=np.float32))
    return draws.astype(np.float64) * 2.0 - 1.0


def test_spa_swap_equals_mt_metrics_eval_on_its_own_draws():
    human, a, b = _scores_case()
    signs = _pce_signs(1000, 30)
    p_human = pairwise_permutation_p_values(human[..., None], _sums, signs)
    first, second = np.triu_indices(3, 1)
    za, zb = standardise_scores(a), standardise_scores(b)
    for z, pinned in ((za, MTME_SCORES["spa_a"]), (zb, MTME_SCORES["spa_b"])):
        assert soft_pairwise_accuracy(p_human, pairwise_permutation_p_values(z[..., None], _sums, signs)) == \
            pytest.approx(pinned, abs=1e-12)
    np.random.seed(0)  # PermutationSigDiff's draws: w1 = binomial(1, 0.5, 90) per permutation, 1 = keep
    coins = np.stack([np.random.binomial(1, 0.5, za.size) == 0 for _ in range(MTME_SCORES["k"])])
    z = np.stack([za, zb])
    observed = spa_swap_block(z, np.array([[0, 1]]), signs, p_human[first, second], coins[:1] & False)[0, 0]
    assert observed == pytest.approx(MTME_SCORES["delta"], abs=1e-12)
    deltas = spa_swap_block(z, np.array([[0, 1]]), signs, p_human[first, second], coins)[0]
    # SPA is a multiple of 1/3000 here (1000 patterns, 3 pairs): ours counts the δ_j equal to δ in exact arithmetic,
    # mt-metrics-eval (float32 sums) counts such a tie or not as rounding falls — the only difference
    exact = int(np.sum(np.round(deltas * 3000) >= np.round(observed * 3000)))
    assert _hits(deltas, observed) == exact
    assert int(np.sum(deltas > observed + 1e-12)) <= MTME_SCORES["p"] * MTME_SCORES["k"] <= exact


def test_spa_swap_is_exact_on_tiny_data_and_equals_the_literal_hybrids():
    rng = np.random.default_rng(9)
    human = rng.normal(size=(3, 5))
    za, zb = standardise_scores(human + rng.normal(size=(3, 5))), standardise_scores(rng.normal(size=(3, 5)))
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=5)))
    p_human = pairwise_permutation_p_values(human[..., None], _sums, signs)
    first, second = np.triu_indices(3, 1)
    test = spa_swap_test(za, zb, signs, p_human[first, second], 1000, 1)
    assert test.exact and len(test.deltas) == 2**15
    literal = []
    for pattern in all_patterns(15):
        swap = pattern.reshape(3, 5)
        hybrid_a, hybrid_b = np.where(swap, zb, za), np.where(swap, za, zb)
        literal.append(soft_pairwise_accuracy(p_human, pairwise_permutation_p_values(hybrid_a[..., None], _sums, signs))
                       - soft_pairwise_accuracy(p_human, pairwise_permutation_p_values(hybrid_b[..., None], _sums, signs)))
    np.testing.assert_allclose(test.deltas, literal, rtol=0, atol=1e-12)
    assert test.observed == pytest.approx(literal[0], abs=1e-15)


def test_blocks_do_not_depend_on_how_they_are_run():
    rng = np.random.default_rng(4)
    z = np.stack([standardise_scores(rng.normal(size=(3, 20))) for _ in range(3)])
    signs = rng.integers(0, 2, size=(64, 20)) * 2.0 - 1.0
    p_human = np.array([0.1, 0.5, 0.9])
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    coins = np.concatenate([swap_coins(7, 2, j, 250, z[0].size) for j in range(3)])
    together = spa_swap_block(z, pairs, signs, p_human, coins)
    one_by_one = np.concatenate([spa_swap_block(z, pairs[i:i + 1], signs, p_human, coins) for i in range(3)])
    np.testing.assert_array_equal(together, one_by_one)
    assert coins.shape == (250, 60)
    np.testing.assert_array_equal(swap_coins(7, 2, 1, 250, 60), coins[100:200])


# ---- the tables of an evaluation ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_results():
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.inputs.sample import load_sample
    from korean_eval.model.config import EvalConfig

    return evaluate(load_sample(), EvalConfig(levels=("word", "char"), metrics=("bleu", "chrf", "ter"), jobs=1,
                                              spa_permutations=200))


@pytest.mark.parametrize("statistic", ["acc_eq", "spa"])
def test_table_rows_hold_the_reported_values_and_both_directions(sample_results, statistic):
    from korean_eval.metaeval.tables.accuracy_significance import ACCURACY_TESTS, accuracy_significance_table

    table = accuracy_significance_table(sample_results, statistic, n_permutations=200, seed=5)
    granularity, grouping, test = ACCURACY_TESTS[statistic]
    assert len(table) == 6 * 5 and set(table["test"]) == {test} and set(table["statistic"]) == {statistic}
    assert set(table["granularity"]) == {granularity}
    # exact where at most 16 units differ (chrF ignores spaces: word and char chrF agree on every comparison)
    assert set(table["method"]) <= {"Monte-Carlo, 200 permutations", "exact, 1 patterns"}
    assert (table["method"] == "Monte-Carlo, 200 permutations").sum() >= 20
    corr = sample_results.correlations
    rows = corr[(corr["statistic"] == statistic) & (corr["grouping"] == grouping)]
    reported = dict(zip(rows["level"] + "/" + rows["metric"], rows["value"], strict=True))
    for row in table.itertuples():
        assert row.r_a == pytest.approx(reported[row.config_a], abs=1e-12)
        assert row.r_b == pytest.approx(reported[row.config_b], abs=1e-12)
    # each direction from the same permutations: p(a, b) counts δ_j ≥ δ, p(b, a) counts δ_j ≤ δ
    p = table.set_index(["config_a", "config_b"])["p_value"]
    for a, b in itertools.combinations(reported, 2):
        assert p[(a, b)] + p[(b, a)] >= 1.0 + 1.0 / 201 - 1e-12
    again = accuracy_significance_table(sample_results, statistic, n_permutations=200, seed=5)
    pd.testing.assert_frame_equal(table, again)


def test_clusters_follow_the_table(sample_results):
    from korean_eval.metaeval.stats.comparisons import rank_clusters
    from korean_eval.metaeval.tables.accuracy_significance import (
        accuracy_clusters_table,
        accuracy_significance_table,
    )

    table = accuracy_significance_table(sample_results, "acc_eq", n_permutations=200, seed=5)
    clusters = accuracy_clusters_table(sample_results, "acc_eq", table)
    values = dict(zip(clusters["config"], clusters["value"], strict=True))
    pvalues = {(a, b): p for a, b, p in zip(table["config_a"], table["config_b"], table["p_value"], strict=True)}
    assert list(clusters["cluster"]) == list(rank_clusters(values, pvalues).values())
    assert list(clusters["value"]) == sorted(clusters["value"], reverse=True)
    assert (clusters["sign"] == 1.0).all() and (clusters["correlation"] == clusters["value"]).all()


def test_reversed_deltas_give_the_other_direction():
    deltas = PermutationDeltas(0.1, np.array([0.2, 0.1, -0.3, 0.0]), False)
    assert deltas.p_value() == (2 + 1) / 5 and deltas.reversed().p_value() == (3 + 1) / 5


# ---- the held-out WMT24 set -----------------------------------------------------------------------------------------

# Pinned from mt-metrics-eval (commit 68a481a) on the WMT24 chat en→ko held-out set (human.tsv; sentence scores as
# korean-eval computes them, TER negated): for (a, b) = (word BLEU, word −TER) and (char chrF, word chrF),
#   np.random.seed(0); PairwisePermutationSigDiff(corr(b), corr(a), 'acc23', 'item', 100,
#                                                 PermutationSigDiffParams(block_size=100), sample_rate=1.0)
# → (p that a's acc_eq beats b's, delta).
MTME_HELDOUT = {(("word", "bleu"), ("word", "ter")): (0.0, 0.027272727272727337),
                (("char", "chrf"), ("word", "chrf")): (0.55, 0.00030303030303024947)}


def test_pair_swap_equals_mt_metrics_eval_on_the_heldout_set():
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.inputs.tables import attach_human
    from korean_eval.model.config import EvalConfig
    from korean_eval.model.evalset import evalset_from_texts

    root = require(SHARED / "heldout" / "wmt24_chat_enko")
    systems = sorted((root / "systems").glob("*.txt"))
    evalset = evalset_from_texts([("ref.txt", (root / "ref.txt").read_bytes())],
                                 [(p.name, p.read_bytes()) for p in systems])
    evalset = attach_human(evalset, (root / "human.tsv").read_bytes(), "human.tsv")
    res = evaluate(evalset, EvalConfig(levels=("word", "char"), metrics=("bleu", "chrf", "ter"), jobs=1,
                                       spa_permutations=0))
    human = res.human_matrix
    coins = _mtme_pair_coins(100, human.shape[1], human.shape[0])
    for (x, y), (p, delta) in MTME_HELDOUT.items():
        signed = [(-1.0 if key[1] == "ter" else 1.0) * res.segment_matrices[key] for key in (x, y)]
        agree = [pair_agreements(m, human, acc_eq(m, human, "item").epsilon) for m in signed]
        values, _ = pair_swap_values(*agree)
        assert values.sum() == pytest.approx(delta, abs=1e-12)
        deltas = pair_swap_deltas(values[:, None], coins)[0]
        assert int(np.sum(deltas > values.sum() + 1e-12)) <= round(p * 100) <= _hits(deltas, values.sum())
        observed = agree[0].mean(axis=1).mean() - agree[1].mean(axis=1).mean()  # mt-metrics-eval's arithmetic
        count = sum(np.where(c.reshape(agree[0].shape), agree[1], agree[0]).mean(axis=1).mean()
                    - np.where(c.reshape(agree[0].shape), agree[0], agree[1]).mean(axis=1).mean() >= observed
                    for c in coins)
        assert count / 100 == p
