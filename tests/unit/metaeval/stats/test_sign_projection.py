"""Single-precision sign projections with their error bound: the bound holds, and SPA's permutation p-values
computed through them are those of double precision — on ordinary data, on tied scores and where a large offset
leaves most comparisons to the double-precision fallback."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from korean_eval.metaeval.stats import accuracy_permutation, accuracy_resampling
from korean_eval.metaeval.stats.accuracy_permutation import spa_swap_block, standardise_scores
from korean_eval.metaeval.stats.accuracy_resampling import resampled_p_values
from korean_eval.metaeval.stats.sign_projection import project, projection_bounds, single_precision
from korean_eval.metaeval.stats.soft_pairwise import (
    pairwise_permutation_p_values,
    sign_patterns,
    soft_pairwise_accuracy,
)


def _sums(sums: np.ndarray) -> np.ndarray:
    return sums[..., 0]


@pytest.mark.parametrize("scale, offset", [(1.0, 0.0), (100.0, 0.0), (1.0, 1e6), (1e-3, 50.0)])
def test_the_bound_holds_for_every_projection(scale, offset):
    rng = np.random.default_rng(5)
    values = rng.normal(size=(700, 40)) * scale + offset
    signs = sign_patterns(300, 700, seed=2)
    exact = np.array([[float(np.sum(np.array(s, dtype=np.longdouble) * np.array(v, dtype=np.longdouble)))
                       for s in signs] for v in values.T])
    error = np.abs(project(single_precision(signs), values).astype(np.float64) - exact)
    bound = projection_bounds(values)[:, None]
    assert (error <= bound).all()
    assert error.max() > 0  # single precision did round: the test compares something
    assert bound.max() < 1e-2 * np.abs(values).sum(axis=0).max()  # and the bound is not vacuous


def _literal_p_values(scores: np.ndarray, n_permutations: int, seed: int, indices: np.ndarray) -> np.ndarray:
    """The definition, in double precision, one resample and one group at a time."""
    n_groups, n_sys, _ = scores.shape
    first, second = np.triu_indices(n_sys, 1)
    out = np.empty((len(indices), n_groups, first.size))
    for r, drawn in enumerate(indices):
        signs = sign_patterns(n_permutations, drawn.size, seed)
        for g in range(n_groups):
            p = pairwise_permutation_p_values(scores[g][:, drawn, None], _sums, signs)
            out[r, g] = p[first, second]
    return out


@pytest.mark.parametrize("kind", ["continuous", "tied integers", "identical systems", "large offset"])
def test_resampled_p_values_equal_double_precision(kind):
    rng = np.random.default_rng(11)
    n_items = 60
    if kind == "continuous":
        scores = rng.normal(size=(3, 4, n_items))
    elif kind == "tied integers":  # many equal scores: permuted sums land exactly on the observed one
        scores = rng.integers(0, 3, size=(3, 4, n_items)).astype(np.float64)
    elif kind == "identical systems":
        base = rng.normal(size=(3, 1, n_items))
        scores = np.concatenate([base, base, base + 0.5, rng.normal(size=(3, 1, n_items))], axis=1)
    else:  # every projection's bound is wide: most comparisons are decided again in double precision
        scores = rng.normal(size=(3, 4, n_items)) * 1e-3 + 1e7 * rng.normal(size=(3, 1, 1))
    indices = rng.integers(0, n_items, size=(20, n_items))
    ours = resampled_p_values(scores, np.ones(n_items, dtype=bool), 200, 3, indices)
    np.testing.assert_array_equal(ours, _literal_p_values(scores, 200, 3, indices))


def _literal_spa_deltas(z: np.ndarray, signs: np.ndarray, p_human: np.ndarray, coins: np.ndarray) -> list[float]:
    """SPA(a′) − SPA(b′) of the hybrids formed literally, in double precision."""
    n_sys = z.shape[1]
    out = []
    for pattern in coins:
        swap = pattern.reshape(n_sys, -1)
        hybrid_a, hybrid_b = np.where(swap, z[1], z[0]), np.where(swap, z[0], z[1])
        out.append(soft_pairwise_accuracy(p_human, pairwise_permutation_p_values(hybrid_a[..., None], _sums, signs))
                   - soft_pairwise_accuracy(p_human, pairwise_permutation_p_values(hybrid_b[..., None], _sums, signs)))
    return out


def test_spa_swap_block_equals_the_literal_hybrids_on_tied_scores():
    rng = np.random.default_rng(3)
    human = rng.normal(size=(3, 8))
    z = rng.integers(0, 3, size=(2, 3, 8)).astype(np.float64)  # small integers: exact sums, many exact ties
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=8)))
    p_human = pairwise_permutation_p_values(human[..., None], _sums, signs)
    first, second = np.triu_indices(3, 1)
    coins = np.random.default_rng(1).integers(2, size=(40, 24)).astype(bool)
    deltas = spa_swap_block(z, np.array([[0, 1]]), signs, p_human[first, second], coins)[0]
    np.testing.assert_allclose(deltas, _literal_spa_deltas(z, signs, p_human, coins), rtol=0, atol=1e-12)
    assert np.ptp(deltas) > 0


def _undecided_everywhere(values: np.ndarray) -> np.ndarray:
    return np.full(np.shape(values)[1], 1e30)


def test_the_double_precision_path_alone_decides_the_same(monkeypatch):
    rng = np.random.default_rng(8)
    human = rng.normal(size=(4, 30))
    z = np.stack([standardise_scores(human + rng.normal(size=(4, 30))) for _ in range(3)])
    signs = sign_patterns(100, 30, seed=4)
    first, second = np.triu_indices(4, 1)
    p_human = pairwise_permutation_p_values(human[..., None], _sums, signs)[first, second]
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    coins = np.random.default_rng(2).integers(2, size=(25, 120)).astype(bool)
    indices = rng.integers(0, 30, size=(10, 30))
    screened = (spa_swap_block(z, pairs, signs, p_human, coins),
                resampled_p_values(z, np.ones(30, dtype=bool), 100, 4, indices))
    monkeypatch.setattr(accuracy_permutation, "projection_bounds", _undecided_everywhere)
    monkeypatch.setattr(accuracy_resampling, "projection_bounds", _undecided_everywhere)
    in_double = (spa_swap_block(z, pairs, signs, p_human, coins),
                 resampled_p_values(z, np.ones(30, dtype=bool), 100, 4, indices))
    np.testing.assert_allclose(screened[0], in_double[0], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(screened[1], in_double[1])
    np.testing.assert_allclose(screened[0][0], _literal_spa_deltas(z[:2], signs, _full_p(human, signs), coins),
                               rtol=0, atol=1e-12)


def _full_p(human: np.ndarray, signs: np.ndarray) -> np.ndarray:
    return pairwise_permutation_p_values(human[..., None], _sums, signs)
