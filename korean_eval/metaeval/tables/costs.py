"""What a significance matrix costs, measured, and the estimate a user is shown before one is computed.

Definition of the estimate: a matrix over ``k`` configurations tests every unordered pair once, ``k(k − 1)/2``
pairs; a permutation test of one pair at the segment level costs :data:`PAIR_SECONDS` (per statistic, grouping and
test) per 1,000 (system, segment) points and per 1,000 permutations, so the estimate is
``pairs × seconds × points / 1000 × permutations / 1000``; at the system level (one point per system, every pair
in one vectorised call) and for Williams' test (a closed formula) :data:`CHEAP_PAIR_SECONDS` per pair.

The figures were measured by ``benchmarks/bench_costs.py`` (10 systems × 200 segments, 3 pairs after a warm-up,
single thread) on the project's shared machine: 2 cores (AMD EPYC), load average ≈ 11 from other work at the time,
so a quiet machine is faster. An estimate says how long to expect, not a promise.
"""

from __future__ import annotations

from korean_eval.model.defaults import RESAMPLES
from korean_eval.model.vocabulary import grouping_used

#: Seconds per pair of configurations per 1,000 points and 1,000 permutations: ``(statistic, grouping, test)``,
#: grouping ``"none"`` (one correlation over all points) or ``"grouped"`` (per item or per system).
PAIR_SECONDS: dict[tuple[str, str, str], float] = {
    ("pearson", "none", "perm-inputs"): 0.0113,
    ("pearson", "none", "perm-wmt"): 0.0414,
    ("pearson", "grouped", "perm-inputs"): 0.0022,
    ("pearson", "grouped", "perm-wmt"): 0.0776,
    ("spearman", "none", "perm-inputs"): 0.0325,
    ("spearman", "none", "perm-wmt"): 0.3054,
    ("spearman", "grouped", "perm-inputs"): 0.0014,
    ("spearman", "grouped", "perm-wmt"): 0.1965,
    ("kendall", "none", "perm-inputs"): 0.0494,
    ("kendall", "none", "perm-wmt"): 0.2808,
    ("kendall", "grouped", "perm-inputs"): 0.0015,
    ("kendall", "grouped", "perm-wmt"): 0.1841,
    ("pdp", "grouped", "perm-inputs"): 0.0012,
    ("pdp", "grouped", "perm-wmt"): 0.1110,
}
#: Seconds per pair where no permutation runs over the points (system level; Williams' test).
CHEAP_PAIR_SECONDS = 0.001


def significance_seconds(n_configs: int, n_points: int, statistic: str, granularity: str, grouping: str,
                         test: str, n_permutations: int = RESAMPLES) -> float:
    """The estimated seconds of a significance matrix over ``n_configs`` configurations (module docstring):
    ``n_points`` (system, segment) points with a human score at the segment level (systems at the system level)."""
    pairs = n_configs * (n_configs - 1) / 2
    if granularity == "system" or not test.startswith("perm"):
        return pairs * CHEAP_PAIR_SECONDS
    used = grouping_used(granularity, grouping)
    ungrouped_pdp = statistic == "pdp" and used == "none"  # PDP over one group is Pearson r
    key = ("pearson" if ungrouped_pdp else statistic, "none" if used == "none" else "grouped", test)
    per = PAIR_SECONDS.get(key, max(PAIR_SECONDS.values()))
    return pairs * (CHEAP_PAIR_SECONDS + per * n_points / 1000 * n_permutations / 1000)
