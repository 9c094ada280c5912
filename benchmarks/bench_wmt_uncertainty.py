"""What the uncertainty of WMT's statistics adds to a ``--bootstrap 1000`` run: the bootstrap intervals of acc_eq
(both groupings), pairwise accuracy and SPA, and the significance tables and rank clusters by acc_eq and by SPA.

    python benchmarks/bench_wmt_uncertainty.py                         # the held-out WMT24 chat set in ../shared
    python benchmarks/bench_wmt_uncertainty.py --levels word,mecab,kiwi,char,jamo
    python benchmarks/bench_wmt_uncertainty.py --ref REF --sys-dir DIR --human HUMAN

Runs what ``python -m korean_eval run --bootstrap 1000 --no-cache`` runs — the pipeline (every available level but
khaiii unless ``--levels``; BLEU, chrF, chrF+, chrF++, TER; SPA with 1,000 permutations) and the parts of the
statistics stage (:func:`korean_eval.engine.statistics.compute_statistics`, every resampling with 1,000 draws), each
timed by itself in one process: the correlations' intervals, their significance tables and clusters at both
granularities, the system-pair tests — the run as it was — and the new parts: the accuracies' intervals (the
bootstrap of the correlations table's acc_eq, pairwise-accuracy and SPA rows), the acc_eq and the SPA significance
tables with their clusters. Each part of the statistics stage runs ``--repeat`` times and counts its fastest run
(the machine is shared); wall-clock and CPU seconds are both printed. Then the statistics stage as a run does it
(:func:`~korean_eval.engine.statistics.compute_statistics`: tasks on ``--jobs`` workers, BLAS on one thread each),
alternately with and without the new parts (the accuracy rows and their significance tasks), ``--repeat`` times
each: the figure the target is about — what they add to the run (pipeline + statistics stage), in wall-clock seconds.
``--out FILE.json`` writes the figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from korean_eval.engine.cache import NullCache  # noqa: E402
from korean_eval.engine.pipeline import evaluate  # noqa: E402
from korean_eval.engine.statistics import StatisticsSettings, compute_statistics  # noqa: E402
from korean_eval.inputs.tables import attach_human  # noqa: E402
from korean_eval.levels.registry import available_levels  # noqa: E402
from korean_eval.metaeval.tables import accuracy_significance  # noqa: E402
from korean_eval.metaeval.tables.accuracy_significance import (  # noqa: E402
    accuracy_clusters_table,
    accuracy_significance_table,
)
from korean_eval.metaeval.tables.intervals import add_confidence_intervals  # noqa: E402
from korean_eval.metaeval.tables.significance import rank_clusters_table, significance_table  # noqa: E402
from korean_eval.metaeval.tables.system_pairs import system_pairs_table  # noqa: E402
from korean_eval.model.config import EvalConfig  # noqa: E402
from korean_eval.model.evalset import evalset_from_texts  # noqa: E402
from korean_eval.model.vocabulary import GRANULARITIES  # noqa: E402

HELDOUT = HERE.parent.parent / "shared" / "heldout" / "wmt24_chat_enko"
RESAMPLES = 1000
ACCURACIES = ("acc_eq", "pairwise_accuracy", "spa")


def load(ref: Path, sys_dir: Path, human: Path):
    systems = sorted(sys_dir.glob("*.txt"))
    evalset = evalset_from_texts([(ref.name, ref.read_bytes())], [(p.name, p.read_bytes()) for p in systems])
    return attach_human(evalset, human.read_bytes(), human.name)


def timed(fn, *a, **k) -> tuple[object, float]:
    start = time.perf_counter()
    out = fn(*a, **k)
    return out, time.perf_counter() - start


def _rows(results, accuracies: bool):
    """A copy of ``results`` whose correlations table holds only the accuracy rows (or only the others)."""
    corr = results.correlations
    keep = corr["statistic"].isin(ACCURACIES) == accuracies
    return dataclasses.replace(results, correlations=corr[keep].reset_index(drop=True))


def _significance(results) -> None:
    for granularity in GRANULARITIES:
        table = significance_table(results, granularity=granularity, n_permutations=RESAMPLES)
        rank_clusters_table(results, granularity=granularity, table=table)


def _accuracy_significance(results, statistic: str) -> None:
    table = accuracy_significance_table(results, statistic, n_permutations=RESAMPLES)
    accuracy_clusters_table(results, statistic, table)


def _stage(results, config: EvalConfig, with_new: bool) -> None:
    """The statistics stage on the run's executor; without the new parts: no accuracy rows to resample and no
    accuracy significance task submitted (the stage submits one per entry of ``ACCURACY_TESTS``)."""
    saved = accuracy_significance.ACCURACY_TESTS
    if not with_new:
        accuracy_significance.ACCURACY_TESTS = {}
    try:
        compute_statistics(results if with_new else _rows(results, False), StatisticsSettings(resamples=RESAMPLES),
                           config)
    finally:
        accuracy_significance.ACCURACY_TESTS = saved


def fastest(repeat: int, fn, *a) -> tuple[float, float]:
    """(wall, CPU) seconds of the fastest of ``repeat`` runs of ``fn(*a)``."""
    runs = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn(*a)
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    return min(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", type=Path, default=HELDOUT / "ref.txt")
    parser.add_argument("--sys-dir", type=Path, default=HELDOUT / "systems")
    parser.add_argument("--human", type=Path, default=HELDOUT / "human.tsv")
    parser.add_argument("--levels", help="comma-separated levels (default: every available level but khaiii, as run)")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each part of the statistics stage (fastest counts)")
    parser.add_argument("--out", type=Path, help="write the figures as JSON")
    args = parser.parse_args()
    evalset = load(args.ref, args.sys_dir, args.human)
    levels = tuple(args.levels.split(",")) if args.levels else tuple(lv for lv in available_levels() if lv != "khaiii")
    config = EvalConfig(levels=levels, metrics=("bleu", "chrf", "chrf+", "chrf++", "ter"), jobs=args.jobs,
                        spa_permutations=RESAMPLES)
    results, t_pipeline = timed(evaluate, evalset, config, cache=NullCache())
    parts = {
        "correlation intervals": (add_confidence_intervals, _rows(results, False), RESAMPLES),
        "correlation significance + clusters": (_significance, results),
        "system pairs": (system_pairs_table, results, RESAMPLES),
        "NEW accuracy intervals": (add_confidence_intervals, _rows(results, True), RESAMPLES),
        "NEW acc_eq significance + clusters": (_accuracy_significance, results, "acc_eq"),
        "NEW SPA significance + clusters": (_accuracy_significance, results, "spa"),
    }
    seconds = {name: fastest(args.repeat, *call) for name, call in parts.items()}
    _stage(results, config, True)  # the workers started and warm
    stage = {True: [], False: []}
    for _ in range(args.repeat):
        for with_new in (False, True):
            start = time.perf_counter()
            _stage(results, config, with_new)
            stage[with_new].append(time.perf_counter() - start)
    stage_without, stage_with = min(stage[False]), min(stage[True])
    new = [sum(v[k] for n, v in seconds.items() if n.startswith("NEW")) for k in (0, 1)]
    old = [sum(v[k] for n, v in seconds.items() if not n.startswith("NEW")) for k in (0, 1)]
    figures = {
        "data": f"{len(results.systems)} systems × {len(results.seg_ids)} segments, "
                f"{len(results.segment_matrices)} configurations ({', '.join(levels)})",
        "cpus": os.cpu_count(), "load_average": os.getloadavg(), "pipeline_wall_s": t_pipeline,
        "parts_wall_cpu_s": seconds, "run_before_wall_s": t_pipeline + old[0], "new_wall_s": new[0],
        "added_to_run_percent": 100 * new[0] / (t_pipeline + old[0]),
        "added_to_statistics_stage_percent_wall": 100 * new[0] / old[0],
        "added_to_statistics_stage_percent_cpu": 100 * new[1] / old[1],
        "stage_on_executor_wall_s": {"without": stage_without, "with": stage_with},
        "run_on_executor_added_percent": 100 * (stage_with - stage_without) / (t_pipeline + stage_without),
    }
    print(f"data: {figures['data']}; {RESAMPLES} resamples; {os.cpu_count()} CPUs, load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"pipeline {t_pipeline:.1f} s (wall)")
    for name, (wall, cpu) in seconds.items():
        print(f"  {name:<40} {wall:7.2f} s wall {cpu:7.2f} s CPU")
    print(f"run as it was: {t_pipeline + old[0]:.1f} s; the new parts add {new[0]:.1f} s = "
          f"{figures['added_to_run_percent']:.1f} % to it; to the statistics stage alone "
          f"{figures['added_to_statistics_stage_percent_wall']:.0f} % (wall), "
          f"{figures['added_to_statistics_stage_percent_cpu']:.0f} % (CPU)")
    print(f"statistics stage on {config.jobs or os.cpu_count()} workers, as a run does it: {stage_without:.1f} s without the "
          f"new parts, {stage_with:.1f} s with them; the run (pipeline + stage) {t_pipeline + stage_without:.1f} s → "
          f"{t_pipeline + stage_with:.1f} s: +{figures['run_on_executor_added_percent']:.1f} % (target ≤ 25 %)")
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
