"""What scoring costs per metric, measured: the basis of the estimates shown before slow work starts.

Definition of the estimate: a metric costs its microseconds per hypothesis character (:data:`SCORE_US_PER_CHAR`)
times the hypothesis characters it scores, at each level. Measured by ``benchmarks/bench_costs.py`` at the char
level (the densest level, so an upper bound for the others) on 300 distinct pairs, the kernels loaded, one process,
no cache, on the project's shared machine: 2 cores (AMD EPYC), load average ≈ 10 from other work at the time.
"""

from __future__ import annotations

from collections.abc import Iterable

SCORE_US_PER_CHAR: dict[str, float] = {
    "bleu": 0.46,
    "chrf": 0.93,
    "chrf+": 0.14,
    "chrf++": 1.12,
    "ter": 8.23,
    "nltk-bleu": 2.35,
    "gleu": 1.58,
    "nist": 6.63,
    "ribes": 0.35,
    "character": 3.14,
    "eed": 0.54,
}


def score_seconds(metrics: Iterable[str], n_levels: int, chars: int) -> float:
    """Estimated seconds to score ``chars`` hypothesis characters with each of ``metrics`` at ``n_levels`` levels
    (a metric not measured: the slowest measured)."""
    slowest = max(SCORE_US_PER_CHAR.values())
    return sum(SCORE_US_PER_CHAR.get(m, slowest) for m in metrics) * n_levels * chars / 1e6
