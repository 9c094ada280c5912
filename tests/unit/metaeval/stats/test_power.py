"""The smallest p-value a permutation test's design can give, checked against brute force on the tests themselves:
every data arrangement of a few systems run through the system-level test (and scipy's loop over every swap
pattern), and acc_eq's exact pair-swap test; the units needed to reach α and the sentence the pages state."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from korean_eval.metaeval.stats.accuracy_permutation import pair_swap_test
from korean_eval.metaeval.stats.permutation import (
    MAX_EXACT_UNITS,
    permutation_deltas,
    permutation_method,
    system_permutation_deltas,
)
from korean_eval.metaeval.stats.power import (
    PermutationDesign,
    cannot_reach_sentence,
    deltas_min_p,
    design_of_method,
    permutation_design,
    permutations_needed,
    smallest_p,
    units_needed,
)
from korean_eval.metaeval.stats.reference import exact_permutation_p_loop


def test_designs_follow_the_tests_choice_of_exact_or_monte_carlo():
    four = permutation_design(4)
    assert (four.exact, four.n_patterns, four.n_units, four.min_p, four.can_reach) == (True, 16, 4, 0.0625, False)
    five = permutation_design(5)
    assert five.min_p == 1 / 32 and five.can_reach
    many = permutation_design(MAX_EXACT_UNITS + 1, n_permutations=1000)
    assert not many.exact and many.min_p == 1 / 1001 and many.can_reach
    assert permutation_design(MAX_EXACT_UNITS).n_patterns == 2**16
    assert smallest_p(True, 0) != smallest_p(True, 0)  # NaN: no pattern


def test_units_and_permutations_needed():
    assert units_needed(0.05) == 5  # 1/32 < 0.05 ≤ 1/16
    assert units_needed(0.05, min_units=3) == 5 and units_needed(0.5, min_units=3) == 3
    assert units_needed(0.01) == 7  # 1/128 < 0.01 ≤ 1/64
    assert units_needed(1e-6, n_permutations=1000) is None  # beyond 2^16 and beyond 1/1001
    assert units_needed(1e-4) == 14  # 1/16384 < 1e-4
    assert units_needed(1e-5, n_permutations=100_000) == MAX_EXACT_UNITS + 1  # 1/2^16 > 1e-5 > 1/100001
    for alpha in (0.05, 0.01, 0.1, 0.03):
        k = permutations_needed(alpha)
        assert 1 / (k + 1) < alpha <= 1 / k
        n = units_needed(alpha)
        assert 2.0**-n < alpha <= 2.0 ** -(n - 1)


#: The smallest p found over every arrangement: the design's bound 1/2^n, except for the rank correlations over 3
#: systems, where some swap always leaves the ranks as they were (the middle system's standardised scores lie between
#: the other two's), so that pattern ties the identity and p ≥ 2/8 — still above α, as the bound says.
SMALLEST_FOUND = {(3, "pearson"): 1 / 8, (3, "spearman"): 1 / 4, (3, "kendall"): 1 / 4, (3, "pdp"): 1 / 8,
                  (4, "pearson"): 1 / 16, (4, "spearman"): 1 / 16, (4, "kendall"): 1 / 16, (4, "pdp"): 1 / 16,
                  (5, "pearson"): 1 / 32, (5, "kendall"): 1 / 32}


@pytest.mark.parametrize(("n_systems", "statistic"), list(SMALLEST_FOUND))
def test_smallest_p_is_the_minimum_over_every_arrangement_of_the_system_level_test(statistic, n_systems):
    """Every ordering of two configurations' system scores against the humans' (n!² arrangements of unevenly spaced
    scores), through the system-level test the tables run: no p below the bound, every p a multiple of 1/2^n, and
    the smallest one found the bound (:data:`SMALLEST_FOUND`): with 4 systems nothing below 0.0625, with 5 the 1/32
    that α = 0.05 needs."""
    human = np.array([0.0, 0.9, 1.3, 3.1, 3.4])[:n_systems]
    scores = np.array([10.0, 12.5, 13.0, 17.5, 18.1])[:n_systems]
    orders = [scores[list(order)] for order in itertools.permutations(range(n_systems))]
    pairs = [(a, b) for a in orders for b in orders]
    found = system_permutation_deltas(pairs, human, statistic, 1000, 12345)
    p_values = np.array([d.p_value() for d in found])
    design = permutation_design(n_systems)
    finite = p_values[np.isfinite(p_values)]
    assert finite.size and (finite >= design.min_p).all() and finite.min() == SMALLEST_FOUND[(n_systems, statistic)]
    assert (finite.min() < 0.05) == design.can_reach
    assert np.allclose(finite * 2**n_systems, np.round(finite * 2**n_systems))
    assert {deltas_min_p(d) for d in found if np.isfinite(d.observed)} == {design.min_p}
    assert {d.method for d in found} == {permutation_method(True, 2**n_systems)}


@pytest.mark.parametrize("n_systems", [3, 4, 5, 6])
def test_the_bound_is_attained_by_a_perfect_against_a_reversed_metric(n_systems):
    """A metric ordering the systems as the humans do against one reversing them: the test's p and the brute-force
    loop over every swap pattern (scipy) are both 1/2^n — above α = 0.05 up to 4 systems, below from 5."""
    rng = np.random.default_rng(n_systems)
    human = np.sort(rng.normal(size=n_systems))
    perfect, reversed_ = human * 3 + 1, -human
    p = permutation_deltas(perfect, reversed_, human, "pearson", "system").p_value()
    loop = exact_permutation_p_loop(perfect, reversed_, human, "pearson", "system", "none")
    design = permutation_design(n_systems)
    assert p == loop == design.min_p == 1 / 2**n_systems
    assert design.can_reach == (n_systems >= 5)


def test_random_data_never_go_below_the_bound_at_the_segment_level():
    """Segment level over few items (the exact test swaps whole items): the test, the loop and the bound agree."""
    rng = np.random.default_rng(7)
    for n_items in (2, 3, 4):
        bound = permutation_design(n_items).min_p
        for _ in range(20):
            human = rng.normal(size=(3, n_items))
            a, b = human + rng.normal(scale=0.5, size=human.shape), rng.normal(size=human.shape)
            deltas = permutation_deltas(a, b, human, "pearson", "segment")
            p = deltas.p_value()
            assert p >= bound and p == pytest.approx(exact_permutation_p_loop(a, b, human, "pearson", "segment",
                                                                              "none"), abs=1e-12)
            assert deltas_min_p(deltas) == bound


def test_acc_eq_exact_pair_swap_test_reaches_its_bound():
    """acc_eq's ``perm-pairs`` test, exact over the k comparisons on which two configurations differ: all in a's
    favour gives p = 1/2^k, the design's bound; mixed signs never go below it."""
    for k in range(1, 8):
        values = np.zeros(40)
        values[:k] = 1.0 / 40
        test = pair_swap_test(values, 1000, 12345)
        assert test.exact and test.p_value() == smallest_p(True, 2**k) == deltas_min_p(test)
        assert design_of_method(test.method) == permutation_design(k)
        signs = np.where(np.arange(k) % 2, -1.0, 1.0)
        values[:k] = signs / 40
        assert pair_swap_test(values, 1000, 12345).p_value() >= 1 / 2**k


def test_design_of_method_reads_what_the_tables_record():
    assert design_of_method(permutation_method(True, 16)) == PermutationDesign(True, 16, 4)
    assert design_of_method(permutation_method(False, 1000)) == PermutationDesign(False, 1000, None)
    assert design_of_method("Student t, df = n − 3; assumes independent points") is None
    assert design_of_method("") is None


def test_the_sentence_states_the_real_numbers():
    assert cannot_reach_sentence(permutation_design(4), "systems", 3) == (
        "With 4 systems the exact test has 16 sign patterns: its smallest p-value is 0.0625 > α = 0.05, so no "
        "difference can be significant; ≥ 5 systems needed")
    assert cannot_reach_sentence(permutation_design(5), "systems", 3) == ""
    assert cannot_reach_sentence(PermutationDesign(True, 2**4, 4, alpha=0.0625), "segments").startswith(
        "With 4 segments the exact test has 16 sign patterns: its smallest p-value is 0.0625 = α = 0.0625")
    assert cannot_reach_sentence(permutation_design(1), "systems").startswith("With 1 system the exact test has 2 "
                                                                              "sign patterns")
    assert cannot_reach_sentence(permutation_design(1), "pairs (of a segment)").startswith("With 1 pair (of a segment)")
    assert cannot_reach_sentence(PermutationDesign(False, 10, None), "systems") == (
        "The Monte-Carlo test has 10 permutations: its smallest p-value is 0.09091 > α = 0.05, so no difference can "
        "be significant; ≥ 20 permutations needed")
