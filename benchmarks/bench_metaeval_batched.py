"""The meta-evaluation's batched paths against their one-at-a-time definitions, at the dashboard's scale.

    python benchmarks/bench_metaeval_batched.py                 # 20 systems × 100 segments, 99 configurations
    python benchmarks/bench_metaeval_batched.py --segments 500 --configs 30 --permutations 100

Synthetic, seeded scores (rounded: ties; 10 % of the human scores absent) for ``--configs`` configurations of
``--systems`` systems × ``--segments`` segments. Times, in process CPU seconds, and checks equal (``==``, NaN where
NaN):

1. grouped segment-level correlations — Spearman and Kendall per item and per system of every configuration:
   :func:`korean_eval.metaeval.stats.correlation.grouped_correlations` against scipy called per group (their definition);
2. a system-level significance matrix — every pair of configurations, Pearson r, ``--permutations`` permutations:
   :class:`korean_eval.metaeval.stats.comparisons.PairCorrelator` and
   :func:`korean_eval.metaeval.stats.permutation.system_permutation_deltas` over all pairs against
   :func:`~korean_eval.metaeval.stats.comparisons.pair_correlations` and
   :func:`~korean_eval.metaeval.stats.permutation.permutation_deltas` pair by pair.

Prints each time and the ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from korean_eval.metaeval.stats.comparisons import PairCorrelator, pair_correlations  # noqa: E402
from korean_eval.metaeval.stats.correlation import grouped_correlations  # noqa: E402
from korean_eval.metaeval.stats.permutation import permutation_deltas, system_permutation_deltas  # noqa: E402


def data(systems: int, segments: int, configs: int) -> tuple[list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(7)
    quality = rng.normal(size=(systems, 1)) + rng.normal(size=(systems, segments))
    human = (50 + 10 * quality + 5 * rng.normal(size=quality.shape)).round(0)
    human[rng.random(human.shape) < 0.1] = np.nan
    scores = [(quality + rng.uniform(0.3, 2.0) * rng.normal(size=quality.shape)).round(1) for _ in range(configs)]
    return scores, human


def scipy_per_group(m: np.ndarray, h: np.ndarray, statistic: str) -> list[float]:
    ok = np.isfinite(m) & np.isfinite(h)
    out = []
    for g in range(len(m)):
        x, y = m[g][ok[g]], h[g][ok[g]]
        if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
            out.append(float("nan"))
        elif statistic == "spearman":
            out.append(float(sps.spearmanr(x, y).statistic))
        else:
            out.append(float(sps.kendalltau(x, y, variant="b").statistic))
    return out


def timed(fn):
    start = time.process_time()
    result = fn()
    return result, time.process_time() - start


def grouped(scores: list[np.ndarray], human: np.ndarray) -> None:
    views = [(m, human) for m in scores] + [(m.T, human.T) for m in scores]  # per system, per item
    for statistic in ("spearman", "kendall"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want, t_loop = timed(lambda s=statistic: [scipy_per_group(m, h, s) for m, h in views])
        got, t_fast = timed(lambda s=statistic: [grouped_correlations(m, h, np.isfinite(m) & np.isfinite(h), s)
                                                 for m, h in views])
        assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(got, want, strict=True))
        print(f"grouped {statistic:8s} ({len(views)} views): scipy per group {t_loop:7.2f} s, batched {t_fast:6.2f} s, "
              f"{t_loop / t_fast:5.1f}×, identical")


def significance(scores: list[np.ndarray], human: np.ndarray, permutations: int) -> None:
    system_scores = {i: np.nanmean(m, axis=1) for i, m in enumerate(scores)}
    system_human = np.nanmean(human, axis=1)
    pairs = list(combinations(system_scores, 2))

    def one_by_one():
        return [(pair_correlations(system_scores[a], system_scores[b], system_human, "pearson", "system"),
                 permutation_deltas(system_scores[a], system_scores[b], system_human, "pearson", "system", "none",
                                    permutations, 12345)) for a, b in pairs]

    def batched():
        correlations = PairCorrelator(system_scores, system_human, "pearson", "system", "none")(pairs)
        deltas = system_permutation_deltas([(system_scores[a], system_scores[b]) for a, b in pairs], system_human,
                                           "pearson", permutations, 12345)
        return list(zip(correlations, deltas, strict=True))

    want, t_loop = timed(one_by_one)
    got, t_fast = timed(batched)
    for (c1, d1), (c2, d2) in zip(got, want, strict=True):
        assert np.array_equal(c1, c2, equal_nan=True) and np.array_equal(d1.deltas, d2.deltas, equal_nan=True)
    print(f"system-level significance ({len(pairs):,} pairs × {permutations} permutations): pair by pair "
          f"{t_loop:6.2f} s, batched {t_fast:5.2f} s, {t_loop / t_fast:5.1f}×, identical")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--segments", type=int, default=100)
    parser.add_argument("--configs", type=int, default=99)
    parser.add_argument("--permutations", type=int, default=1000)
    args = parser.parse_args()
    scores, human = data(args.systems, args.segments, args.configs)
    print(f"{args.configs} configurations of {args.systems} systems × {args.segments} segments")
    grouped(scores, human)
    significance(scores, human, args.permutations)


if __name__ == "__main__":
    main()
