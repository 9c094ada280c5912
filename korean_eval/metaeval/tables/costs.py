"""What a significance matrix and bootstrap intervals cost, measured, and the estimates a user is shown before
they are computed.

Definition of the estimate: a matrix over ``k`` configurations tests every unordered pair once, ``k(k − 1)/2``
pairs; a permutation test of one pair at the segment level costs :data:`PAIR_SECONDS` (per statistic, grouping and
test) per 1,000 (system, segment) points and per 1,000 permutations, so the estimate is
``pairs × seconds × points / 1000 × permutations / 1000``; at the system level (one point per system, every pair
in one vectorised call) and for Williams' test (a closed formula) :data:`CHEAP_PAIR_SECONDS` per pair.

The figures were measured by ``benchmarks/bench_costs.py`` (10 systems × 200 segments, 3 pairs after a warm-up,
single thread) on the project's shared machine: 2 cores (AMD EPYC), load average ≈ 11 from other work at the time,
so a quiet machine is faster. An estimate says how long to expect, not a promise.

Definition of the intervals' estimate (:func:`intervals_seconds`): the bootstrap intervals of one statistic's rows
(every granularity and grouping the results hold, :func:`korean_eval.metaeval.tables.intervals.add_confidence_intervals`)
cost, per 1,000 (system, segment) points and 1,000 resamples, a part shared by every configuration plus a part per
configuration (:data:`INTERVAL_SECONDS`); SPA's parts are also per 1,000 of its permutations (its p-values are
recomputed in every resample; the shared part is the humans' side and the sign patterns). Measured by
``benchmarks/bench_costs.py --parts intervals`` (4 systems × 300 segments with simulated human scores, evaluations
of 1 and 6 configurations, CPU seconds, one BLAS thread as the dashboard's server computes) on the same machine, load
average ≈ 5.
"""

from __future__ import annotations

from collections.abc import Iterable

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


#: Bootstrap intervals of one statistic's rows, CPU seconds per 1,000 points per 1,000 resamples: ``(shared by
#: every configuration, per configuration)``; SPA's also per 1,000 of its permutations.
INTERVAL_SECONDS: dict[str, tuple[float, float]] = {
    "pearson": (0.0014, 0.0104),
    "spearman": (0.0057, 0.0147),
    "kendall": (0.0049, 0.0184),
    "pdp": (0.0041, 0.0093),
    "acc_eq": (0.0061, 0.0107),
    "spa": (0.8689, 0.0149),
}
#: A statistic missing from :data:`INTERVAL_SECONDS` (e.g. pairwise accuracy) is estimated as the dearest
#: correlation.
UNKNOWN_INTERVAL = max((v for k, v in INTERVAL_SECONDS.items() if k != "spa"), key=lambda cost: cost[1])


def intervals_seconds(statistics: Iterable[str], n_configs: int, n_points: int, n_resamples: int = RESAMPLES,
                      spa_permutations: int = RESAMPLES) -> float:
    """The estimated CPU seconds of the bootstrap intervals of the rows of ``statistics`` over ``n_configs``
    configurations and ``n_points`` (system, segment) points (module docstring); SPA costs nothing without
    permutations (``spa_permutations`` 0: it has no intervals)."""
    total = 0.0
    for statistic in set(statistics):
        shared, per = INTERVAL_SECONDS.get(statistic, UNKNOWN_INTERVAL)
        scale = n_points / 1000 * n_resamples / 1000
        if statistic == "spa":
            scale *= spa_permutations / 1000
        total += scale * (shared + per * n_configs)
    return total
