"""What WMT's statistics (acc_eq with its ε search, pairwise accuracy, SPA) add to a full run.

    python benchmarks/bench_wmt_statistics.py --ref REF --sys-dir DIR --human HUMAN   # any line-aligned set
    python benchmarks/bench_wmt_statistics.py                                          # the bundled sample

Runs what ``python -m korean_eval run --bootstrap 1000`` runs — the pipeline (levels word, mecab, kiwi, char, jamo ×
BLEU, chrF, chrF+, chrF++, TER; statistics not cached), bootstrap intervals, the significance tables of both
granularities, rank clusters and the system-pair tests, each with 1,000 resamples — and times, inside the same
run, the part that the WMT statistics add: every cell's :func:`korean_eval.metaeval.tables.tidy.pairwise_rows` (acc_eq over
items and over all pairs, pairwise accuracy, SPA with 1,000 permutations) plus the humans' SPA p-values. Prints
both and their ratio.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from korean_eval.engine.cache import DiskCache  # noqa: E402
from korean_eval.engine.pipeline import evaluate  # noqa: E402
from korean_eval.inputs.sample import load_sample  # noqa: E402
from korean_eval.inputs.tables import attach_human  # noqa: E402
from korean_eval.metaeval import tidy  # noqa: E402
from korean_eval.metaeval.stats.soft_pairwise import human_pairwise  # noqa: E402
from korean_eval.metaeval.tables.intervals import add_confidence_intervals  # noqa: E402
from korean_eval.metaeval.tables.significance import rank_clusters_table, significance_table  # noqa: E402
from korean_eval.metaeval.tables.system_pairs import system_pairs_table  # noqa: E402
from korean_eval.model.config import EvalConfig  # noqa: E402
from korean_eval.model.evalset import evalset_from_texts  # noqa: E402
from korean_eval.model.vocabulary import GRANULARITIES  # noqa: E402

LEVELS = ("word", "mecab", "kiwi", "char", "jamo")
RESAMPLES = 1000


def load(args: argparse.Namespace):
    if not args.ref:
        return load_sample()
    systems = sorted(Path(args.sys_dir).glob("*.txt"))
    evalset = evalset_from_texts([(args.ref.name, args.ref.read_bytes())], [(p.name, p.read_bytes()) for p in systems])
    return attach_human(evalset, args.human.read_bytes(), args.human.name)


def timed(fn, *a, **k) -> tuple[object, float]:
    start = time.perf_counter()
    out = fn(*a, **k)
    return out, time.perf_counter() - start


def the_new_statistics(results, permutations: int, seed: int) -> float:
    """Seconds of the WMT statistics of every cell, recomputed here exactly as the pipeline computes them."""
    start = time.perf_counter()
    humans = human_pairwise(results.human_matrix, permutations, seed)
    for (level, metric), matrix in results.segment_matrices.items():
        scores = results.system_scores
        sys_scores = scores[(scores["level"] == level) & (scores["metric"] == metric)].set_index("system")["score"]
        tidy.pairwise_rows(level, metric, matrix, results.human_matrix, sys_scores.reindex(results.systems).to_numpy(),
                           results.higher_is_better(metric, level), humans)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", type=Path)
    parser.add_argument("--sys-dir", type=Path)
    parser.add_argument("--human", type=Path)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    evalset = load(args)
    with tempfile.TemporaryDirectory() as tmp:
        config = EvalConfig(levels=LEVELS, jobs=args.jobs, spa_permutations=RESAMPLES)
        results, t_pipeline = timed(evaluate, evalset, config, cache=DiskCache(Path(tmp)))
    results.correlations, t_ci = timed(add_confidence_intervals, results, n_resamples=RESAMPLES)
    t_sig = 0.0
    for granularity in GRANULARITIES:
        table, t = timed(significance_table, results, granularity=granularity, n_permutations=RESAMPLES)
        _, t2 = timed(rank_clusters_table, results, granularity=granularity, table=table)
        t_sig += t + t2
    _, t_pairs = timed(system_pairs_table, results, n_resamples=RESAMPLES)
    t_new = the_new_statistics(results, RESAMPLES, config.seed)
    total = t_pipeline + t_ci + t_sig + t_pairs
    before = total - t_new
    print(f"data: {len(results.systems)} systems × {len(results.seg_ids)} segments, {len(results.segment_matrices)} "
          f"configurations, {RESAMPLES} resamples")
    print(f"pipeline {t_pipeline:.1f} s (of which the WMT statistics {t_new:.2f} s), intervals {t_ci:.1f} s, "
          f"significance + clusters {t_sig:.1f} s, system pairs {t_pairs:.1f} s")
    print(f"run without the WMT statistics {before:.1f} s; they add {t_new:.2f} s = {100 * t_new / before:.1f} %")


if __name__ == "__main__":
    main()
