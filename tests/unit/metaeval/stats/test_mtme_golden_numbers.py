"""Golden numbers from google-research/mt-metrics-eval (mtme), pinned as constants: our Williams test and rank
clusters against mtme's ``stats.WilliamsTest`` and ``data.AssignRanks``. mtme is not a dependency: the constants were
computed once with its source on the path (``PYTHONPATH=<mt-metrics-eval checkout>``), each call named in a comment.
"""

from __future__ import annotations

import itertools

import pytest

from korean_eval.metaeval.stats.comparisons import rank_clusters, williams_test

# mtme: stats.WilliamsTest(0.65, 0.55, 0.30, 50)  (one-sided, df = n - 3)
MTME_WILLIAMS_065_055_030_50 = 0.20928617286753579
# mtme: stats.WilliamsTest(0.55, 0.65, 0.30, 50)  (mtme tests |t|: the same p in both directions)
MTME_WILLIAMS_055_065_030_50 = 0.20928617286753584


def test_williams_equals_mtme() -> None:
    assert williams_test(0.65, 0.55, 0.30, 50) == pytest.approx(MTME_WILLIAMS_065_055_030_50, abs=1e-12)
    # the one deliberate difference: our t is signed, so "0.55 beats 0.65" gets 1 - p, not mtme's p of |t|
    assert williams_test(0.55, 0.65, 0.30, 50) == pytest.approx(1 - MTME_WILLIAMS_055_065_030_50, abs=1e-12)


# Five configurations, best first (correlations 0.9 … 0.5). P_BEATS[i][j] (i < j) is the p-value that
# configuration i correlates better than configuration j — mtme's sig_matrix[i, j] ("the null hypothesis that the
# correlation for metric j is >= the correlation for metric i"). P_2_BEATS_4 is varied below.
NAMES = ("c1", "c2", "c3", "c4", "c5")
CORRELATIONS = dict(zip(NAMES, (0.9, 0.8, 0.7, 0.6, 0.5), strict=True))
P_BEATS = {
    (0, 1): 0.30, (0, 2): 0.01, (0, 3): 0.002, (0, 4): 0.001,
    (1, 2): 0.20, (1, 3): 0.001, (1, 4): 0.01,
    (2, 3): 0.20, (2, 4): None,
    (3, 4): 0.40,
}
# mtme: data.AssignRanks(sig_matrix, 0.05) with sig_matrix the upper triangle of P_BEATS and P_2_BEATS_4 = …
MTME_ASSIGN_RANKS = {
    0.04: [1, 1, 2, 2, 3],  # c3 (a member of the current cluster {c3, c4}) beats c5
    0.05: [1, 1, 2, 2, 3],  # mtme: p <= 0.05 is significant
    0.06: [1, 1, 2, 2, 2],
}


def _pvalues(p_2_beats_4: float) -> dict[tuple[str, str], float]:
    """Our input: every ordered pair; the reverse direction of each pair is 1 − p (never significant here)."""
    out = {}
    for i, j in itertools.combinations(range(len(NAMES)), 2):
        p = p_2_beats_4 if (i, j) == (2, 4) else P_BEATS[(i, j)]
        out[(NAMES[i], NAMES[j])], out[(NAMES[j], NAMES[i])] = p, 1.0 - p
    return out


@pytest.mark.parametrize("p_2_beats_4", [0.04, 0.06])
def test_rank_clusters_equal_mtme_assign_ranks(p_2_beats_4: float) -> None:
    clusters = rank_clusters(CORRELATIONS, _pvalues(p_2_beats_4), alpha=0.05)
    assert [clusters[n] for n in NAMES] == MTME_ASSIGN_RANKS[p_2_beats_4]
    # c2 beats c4 significantly, but c2 is no longer in the current cluster when c4 is reached: c4 joins c3
    assert clusters["c4"] == clusters["c3"]


def test_rank_clusters_p_exactly_at_alpha_differs_from_mtme() -> None:
    """The one difference: AssignRanks counts ``p <= pval`` as significant, rank_clusters ``p < alpha``."""
    clusters = rank_clusters(CORRELATIONS, _pvalues(0.05), alpha=0.05)
    assert [clusters[n] for n in NAMES] == [1, 1, 2, 2, 2]
    assert MTME_ASSIGN_RANKS[0.05] == [1, 1, 2, 2, 3]


def test_rank_clusters_order_ties_and_nan() -> None:
    correlations = {"b": 0.5, "a": 0.5, "z": float("nan"), "c": 0.7}
    pvalues = {(x, y): 0.5 for x in correlations for y in correlations if x != y}
    clusters = rank_clusters(correlations, pvalues)
    assert list(clusters) == ["c", "a", "b", "z"]  # descending, ties by name, NaN last
    assert set(clusters.values()) == {1}
