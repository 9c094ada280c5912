"""The meta-evaluation's batched computations equal their one-at-a-time definitions bit for bit (``==``, NaN where
NaN): Spearman and Kendall of many row pairs against scipy per row (korean_eval.metaeval.stats.rank_rows), the grouped
correlations of the study's document 1 against scipy per group, a significance table's pair correlations and
system-level permutation deltas against each pair alone, the weighted Pearson of many point sets against each set
alone, row standardisation against :func:`standardise`, and the soft pairwise accuracy's vectorised pairs against
one pair at a time."""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from korean_eval.metaeval.stats import rank_rows
from korean_eval.metaeval.stats.comparisons import PairCorrelator, pair_correlations
from korean_eval.metaeval.stats.correlation import grouped_correlations
from korean_eval.metaeval.stats.permutation import (
    permutation_deltas,
    standardise,
    standardise_rows,
    system_permutation_deltas,
)
from korean_eval.metaeval.stats.soft_pairwise import (
    _mean_of_sums,
    pairwise_permutation_p_values,
    sign_patterns,
)
from korean_eval.metaeval.stats.weighted import Counts, pearson_fixed_points
from korean_eval.model.vocabulary import GROUPINGS, STATISTICS
from tests.support.helpers import STUDY, require


def same(a, b) -> bool:
    """Equal arrays (or numbers), NaN where NaN."""
    return np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True)


def _row_pairs(rng: np.random.Generator, kind: int, rows: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row pairs of one kind: few integer values (many ties), continuous, tiny and large magnitudes, signed zeros
    and infinities."""
    if kind == 0:
        return rng.integers(0, 4, (rows, n)).astype(float), rng.integers(0, 6, (rows, n)).astype(float)
    if kind == 1:
        x = rng.normal(size=(rows, n)) * rng.uniform(0.01, 100)
        return x, x + rng.normal(size=(rows, n))
    if kind == 2:
        return rng.normal(size=(rows, n)).round(1) * 1e-300, rng.integers(0, 3, (rows, n)) * 7.3
    return rng.choice([0.0, -0.0, 1.5, np.inf, -np.inf, 1e308], (rows, n)), rng.normal(size=(rows, n)).round(0)


@pytest.mark.parametrize("kind", range(4))
def test_rank_rows_equal_scipy_per_row(kind: int) -> None:
    rng = np.random.default_rng(kind)
    for n in (2, 3, 13, 20, 70, rank_rows.MAX_PAIRWISE_N, rank_rows.MAX_PAIRWISE_N + 1):
        x, y = _row_pairs(rng, kind, 12, n)
        live = ~((x == x[:, :1]).all(axis=1) | (y == y[:, :1]).all(axis=1))  # what the callers pass
        x, y = x[live], y[live]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spearman = [sps.spearmanr(a, b).statistic for a, b in zip(x, y, strict=True)]
            kendall = [sps.kendalltau(a, b, variant="b").statistic for a, b in zip(x, y, strict=True)]
        assert same(rank_rows.spearman_rows(x, y), spearman), n
        assert same(rank_rows.kendall_rows(x, y), kendall), n


def test_kendall_rows_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows taken a few at a time (a small chunk of pair signs) give the same values."""
    rng = np.random.default_rng(5)
    x, y = _row_pairs(rng, 0, 40, 30)
    whole = rank_rows.kendall_rows(x, y)
    monkeypatch.setattr(rank_rows, "_CHUNK_PAIRS", 1000)  # 2 rows of 435 pairs per chunk
    assert same(rank_rows.kendall_rows(x, y), whole)
    assert np.isnan(rank_rows.kendall_rows(np.ones((1, 5)), np.arange(5.0)[None, :])).all()  # every pair tied


@pytest.mark.parametrize("statistic", ["pearson", "spearman", "kendall"])
def test_grouped_correlations_of_the_study_equal_scipy_per_group(statistic: str) -> None:
    """Document 1 of the study (4 systems × 18 segments, one system without 7 of them), its z-scored adequacy
    against its raw adequacy, fluency and z-scored fluency (integer ratings: ties): per segment (≤ 4 values: the
    rank-pattern memo) and per system (≤ 18 values: korean_eval.metaeval.stats.rank_rows) against scipy per group."""
    frame = pd.read_csv(require(STUDY / "doc1_with_text.csv"))
    table = frame.pivot_table(index="Sys", columns="SentID", values=["Z_adequacy", "Adequacy", "Fluency", "Z_fluency"])
    human = table["Z_adequacy"].to_numpy(float)
    for column in ("Adequacy", "Fluency", "Z_fluency"):
        metric = table[column].to_numpy(float)
        for m, h in ((metric, human), (metric.T, human.T)):
            k = np.isfinite(m) & np.isfinite(h)
            expected = []
            for g in range(len(m)):
                a, b = m[g][k[g]], h[g][k[g]]
                if len(a) < 2 or np.all(a == a[0]) or np.all(b == b[0]):
                    expected.append(np.nan)
                elif statistic == "pearson":
                    expected.append(sps.pearsonr(a, b).statistic)
                elif statistic == "spearman":
                    expected.append(sps.spearmanr(a, b).statistic)
                else:
                    expected.append(sps.kendalltau(a, b, variant="b").statistic)
            assert same(grouped_correlations(m, h, k, statistic), expected), column
            assert np.isfinite(expected).sum() >= 3


def _configs(rng: np.random.Generator, granularity: str, n: int = 6) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Configurations with absent scores (different common points per pair) and ties, and the human scores."""
    shape = (9,) if granularity == "system" else (5, 14)
    human = rng.normal(size=shape).round(1)
    human[rng.random(shape) < 0.15] = np.nan
    configs = {}
    for i in range(n):
        scores = (human + rng.normal(size=shape)).round(i % 3)
        scores[rng.random(shape) < 0.1 * (i % 3)] = np.nan
        configs[f"c{i}"] = scores
    configs["c0"][: 7 if granularity == "system" else 5] = np.nan  # two systems left: undefined at the system level
    return configs, human


@pytest.mark.parametrize("granularity", ["system", "segment"])
@pytest.mark.parametrize("statistic", STATISTICS)
def test_pair_correlator_equals_pair_correlations(granularity: str, statistic: str) -> None:
    configs, human = _configs(np.random.default_rng(2), granularity)
    pairs = list(combinations(configs, 2))
    for grouping in GROUPINGS if granularity == "segment" else ("none",):
        correlator = PairCorrelator(configs, human, statistic, granularity, grouping)
        for first in (pairs[:4], pairs[4:]):  # two batches: the memo carries over
            for (x, y), got in zip(first, correlator(first), strict=True):
                want = pair_correlations(configs[x], configs[y], human, statistic, granularity, grouping)
                assert same(got, want) and got.n == want.n, (x, y, grouping)


@pytest.mark.parametrize("statistic", STATISTICS)
def test_system_permutation_deltas_equal_each_pair_alone(statistic: str) -> None:
    configs, human = _configs(np.random.default_rng(4), "system", n=8)
    pairs = list(combinations(configs, 2))
    together = system_permutation_deltas([(configs[x], configs[y]) for x, y in pairs], human, statistic, 40, 3)
    for (x, y), got in zip(pairs, together, strict=True):
        alone = permutation_deltas(configs[x], configs[y], human, statistic, "system", "none", 40, 3)
        assert same(got.observed, alone.observed) and same(got.deltas, alone.deltas) and got.exact == alone.exact
    assert any(np.isnan(d.observed) for d in together) and any(np.isfinite(d.observed) for d in together)


def test_pearson_fixed_points_of_many_sets_equal_each_set_alone() -> None:
    rng = np.random.default_rng(6)
    y = rng.normal(size=30).round(1)
    xs = np.vstack([rng.normal(size=(5, 30)) * 1e3, np.full((1, 30), 2.5), rng.integers(0, 2, (2, 30))])
    counts = Counts(rows=rng.integers(0, 3, (50, 12)).astype(float))
    cols = rng.integers(0, 12, 30)  # several points per weight column
    together = pearson_fixed_points(xs, y, counts, cols)
    for s, x in enumerate(xs):
        assert same(together[s], pearson_fixed_points(x[None, :], y, counts, cols)[0]), s
    assert np.isnan(together[5]).all()  # a constant set


def test_standardise_rows_equal_standardise_each_row() -> None:
    rng = np.random.default_rng(7)
    xs = rng.normal(size=(6, 11)) * [[1e-3], [1.0], [1e5], [0.0], [3.0], [1.0]]
    ok = rng.random(11) > 0.3
    rows = standardise_rows(xs, ok)
    for r, x in enumerate(xs):
        assert same(rows[r], standardise(x, ok))
    assert same(standardise_rows(xs, np.zeros(11, dtype=bool)), xs)


def test_soft_pairwise_p_values_equal_one_pair_at_a_time() -> None:
    rng = np.random.default_rng(8)
    per_item = rng.normal(size=(6, 25, 1)).round(1)
    signs = sign_patterns(200, 25, 9)
    for higher in (True, False):
        got = pairwise_permutation_p_values(per_item, _mean_of_sums, signs, higher)
        direction = 1.0 if higher else -1.0
        totals, signed = per_item.sum(axis=1), np.einsum("pi,sik->spk", signs, per_item)
        for a, b in combinations(range(6), 2):  # the definition, one pair at a time
            half_sum, half_diff = (totals[a] + totals[b]) / 2.0, (signed[a] - signed[b]) / 2.0
            null = direction * (_mean_of_sums(half_sum + half_diff) - _mean_of_sums(half_sum - half_diff))
            observed = direction * totals[a, 0] - direction * totals[b, 0]
            assert got[a, b] == float(np.mean(null >= observed - 1e-12 * max(1.0, abs(observed))))
        assert np.isnan(got[np.tril_indices(6)]).all()
