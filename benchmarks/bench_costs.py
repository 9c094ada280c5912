"""The per-unit costs behind the dashboard's estimates (``korean_eval.levels.costs``, ``korean_eval.lens.costs``,
``korean_eval.metaeval.tables.costs``), measured on this machine and printed as the tables those modules hold.

    python benchmarks/bench_costs.py              # every available level; ~3 minutes on 2 cores
    python benchmarks/bench_costs.py --levels word,kiwi,char

In one process, on the benchmark's Korean text (``benchmarks/make_data.py``: distinct references and simulated
system outputs built from KoNLPy's corpora, none repeated, so no cache shortcuts a measurement):

* **token levels**: the start of each level (its first text: the analyzer's model or dictionary loaded; KoNLPy's
  JVM measured on its own first, as ``jvm``; SentencePiece: training on the references, per reference character)
  and its seconds per character of distinct text tokenised afterwards, single process, no cache;
* **scoring**: seconds per character of hypothesis for each metric, from the pipeline's own ``score`` timings of an
  evaluation at the char level (the densest level: an upper bound for the others);
* **Korean lens**: Kiwi's model load, its analysis per character, and the perturbation of references (10 kinds,
  each perturbed text analysed again) per reference character;
* **significance**: seconds per pair of configurations per 1,000 (system, segment) points for 1,000 permutations,
  per statistic and test, at the segment level (pair correlations included), single thread;
* **intervals**: the dashboard's bootstrap intervals (``korean_eval.engine.stored_views.intervals``) of every row
  of one statistic, seconds per configuration per 1,000 (system, segment) points for 1,000 resamples (SPA: also
  per 1,000 of its permutations), on an evaluation of the benchmark's texts with their simulated human scores,
  one BLAS thread.

The machine's load is printed with the figures: the costs are wall-clock seconds and grow with it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from korean_eval.engine.cache import NullCache  # noqa: E402
from korean_eval.engine.pipeline import evaluate  # noqa: E402
from korean_eval.engine.tokenise_stage import prepare_level  # noqa: E402
from korean_eval.levels.registry import LEVEL_NAMES, level_availability  # noqa: E402
from korean_eval.model.config import EvalConfig  # noqa: E402
from korean_eval.model.evalset import evalset_from_texts  # noqa: E402


def _texts(n_refs: int):
    import make_data

    data = make_data.build(pairs=4 * n_refs, seed="korean-eval-costs-v1")
    return data.refs, data.systems


def _texts_with_human(n_refs: int):
    """References, systems and the simulated human scores ``(system, seg_id, score)`` of the benchmark's text."""
    import make_data

    data = make_data.build(pairs=4 * n_refs, seed="korean-eval-costs-v1")
    return data.refs, data.systems, data.human


def _level_costs(levels, refs, hyps, chars) -> list[tuple[str, float, float]]:
    """(level, start seconds, seconds per character) of each level; ``jvm`` first when a KoNLPy level is asked."""
    rows = []
    evalset = evalset_from_texts([("ref.txt", "\n".join(refs).encode())], [("a.txt", "\n".join(refs).encode())])
    if any(lv in ("okt", "komoran", "kkma", "hannanum") for lv in levels):
        from konlpy import jvm

        mark = time.perf_counter()
        jvm.init_jvm()
        rows.append(("jvm", time.perf_counter() - mark, 0.0))
    for name in levels:
        mark = time.perf_counter()
        level = prepare_level(name, evalset, EvalConfig(levels=(name,)))
        level.tokenize(["시작합니다."])
        start = time.perf_counter() - mark
        if name == "spm":
            start /= sum(len(r) for r in refs)  # training: per reference character
        mark = time.perf_counter()
        level.tokenize(hyps)
        rows.append((name, start, (time.perf_counter() - mark) / chars))
    return rows


def _scoring_costs(refs, hyps, metrics) -> dict[str, float]:
    """Seconds per hypothesis character of each metric at the char level (the pipeline's score timings of a second
    run, the kernels loaded by the first)."""
    evalset = evalset_from_texts([("ref.txt", "\n".join(refs).encode())], [("a.txt", "\n".join(hyps).encode())])
    config = EvalConfig(levels=("char",), metrics=tuple(metrics), jobs=1)
    evaluate(evalset, config, cache=NullCache())  # the kernels loaded before the measured run
    results = evaluate(evalset, config, cache=NullCache())
    timings = results.timings[results.timings["stage"] == "score"]
    chars = sum(len(h) for h in hyps)
    return {m: float(timings.loc[timings["metric"] == m, "seconds"].sum()) / chars for m in metrics}


def _lens_costs(refs, hyps) -> dict[str, float]:
    from korean_eval.lens.analysis import analyse
    from korean_eval.lens.perturb import KINDS, perturbation_table
    from korean_eval.levels.registry import kiwi_analyzer

    mark = time.perf_counter()
    kiwi_analyzer()
    load = time.perf_counter() - mark
    mark = time.perf_counter()
    analyse(hyps, NullCache())
    analysis = (time.perf_counter() - mark) / sum(len(h) for h in hyps)
    mark = time.perf_counter()
    perturbation_table([str(i) for i in range(len(refs))], refs, tuple(KINDS), 1, NullCache())
    perturb = (time.perf_counter() - mark) / sum(len(r) for r in refs)
    return {"kiwi load": load, "analysis per char": analysis, "perturbation per reference char": perturb}


def _significance_costs(points: int, systems: int, repeats: int = 3) -> dict[tuple[str, str, str], float]:
    """Seconds per pair per 1,000 points (1,000 permutations, segment level), per statistic, grouping and test: the
    mean of ``repeats`` pairs after one unmeasured pair."""
    from korean_eval.metaeval.stats.comparisons import PairCorrelator
    from korean_eval.metaeval.stats.permutation import deltas_of_test

    rng = np.random.default_rng(0)
    items = points // systems
    human = rng.normal(size=(systems, items))
    a, b = human + rng.normal(size=human.shape), human + 2 * rng.normal(size=human.shape)
    out = {}
    for statistic in ("pearson", "spearman", "kendall", "pdp"):
        for grouping in ("none", "item"):
            for test in ("perm-inputs", "perm-wmt"):
                if statistic == "pdp" and grouping == "none":
                    continue  # ungrouped PDP is Pearson r
                def one(seed: int, statistic: str = statistic, grouping: str = grouping, test: str = test) -> None:
                    PairCorrelator({"a": a, "b": b}, human, statistic, "segment", grouping,
                                   need_between=False)([("a", "b")])
                    deltas_of_test(test, a, b, human, statistic, "segment", grouping, 1000, seed)

                one(0)  # the kernels loaded (compiled once by `korean-eval compile`) before the clock starts
                mark = time.perf_counter()
                for seed in range(1, repeats + 1):
                    one(seed)
                out[(statistic, grouping, test)] = (time.perf_counter() - mark) / repeats / (systems * items / 1000)
    return out


def _interval_costs(refs, systems, human) -> dict[str, tuple[float, float]]:
    """Per statistic, ``(shared, per configuration)``: CPU seconds per 1,000 points per 1,000 resamples (SPA: and per
    1,000 permutations) of the intervals of its rows — the part shared by every configuration (SPA's human side and
    sign patterns) and the part of each — from evaluations of 1 and 6 configurations, each measured after one
    unmeasured call with few resamples (kernels loaded)."""
    import pandas as pd

    from korean_eval.engine import stored_views
    from korean_eval.engine.blas_threads import one_blas_thread
    from korean_eval.inputs.tables import attach_human_frame

    evalset = evalset_from_texts([("ref.txt", "\n".join(refs).encode())],
                                 [(f"{name}.txt", "\n".join(texts).encode()) for name, texts in systems.items()])
    attach_human_frame(evalset, pd.DataFrame(human, columns=["system", "seg_id", "score"]).astype(
        {"seg_id": str, "score": float}), "human")
    statistics = ("pearson", "spearman", "kendall", "pdp", "acc_eq", "spa")
    seconds: dict[int, dict[str, float]] = {}
    for levels, metrics in ((("char",), ("chrf",)), (("word", "char"), ("bleu", "chrf", "ter"))):
        results = evaluate(evalset, EvalConfig(levels=levels, metrics=metrics, jobs=1), cache=NullCache())
        points = len(results.systems) * len(results.seg_ids)
        permutations = int(results.settings.get("spa_permutations", 0) or 0)
        measured = seconds.setdefault(len(results.segment_matrices), {})
        with one_blas_thread():
            for statistic in statistics:
                stored_views.intervals(results, 10, (statistic,))
                mark = time.process_time()
                stored_views.intervals(results, 1000, (statistic,))
                per = (time.process_time() - mark) / (points / 1000)
                measured[statistic] = per / (permutations / 1000) if statistic == "spa" else per
    (few, low), (many, high) = sorted(seconds.items())
    out = {}
    for statistic in statistics:
        per_config = max(0.0, (high[statistic] - low[statistic]) / (many - few))
        out[statistic] = (max(0.0, low[statistic] - per_config * few), per_config)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default=",".join(LEVEL_NAMES))
    parser.add_argument("--refs", type=int, default=300, help="distinct references (their systems: 4 × as many)")
    parser.add_argument("--metrics", default=",".join(("bleu", "chrf", "chrf+", "chrf++", "ter", "nltk-bleu", "gleu", "nist", "ribes", "character", "eed")))
    parser.add_argument("--parts", default="levels,scoring,lens,significance,intervals", help="what to measure")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    print(f"load average at start: {os.getloadavg()}; cores: {os.cpu_count()}")
    refs, systems = _texts(args.refs)
    hyps = [h for texts in systems.values() for h in texts]
    chars = sum(len(h) for h in hyps)
    print(f"text: {len(refs)} references, {len(hyps)} hypotheses, {chars:,} hypothesis characters")
    levels = [lv for lv in args.levels.split(",") if lv and level_availability(lv)[0]]
    if "levels" in parts:
        print("\nlevel            start s    µs per char", flush=True)
        for name, start, per in _level_costs(levels, refs, hyps, chars):
            unit = " per ref char" if name == "spm" else ""
            print(f"{name:14s} {start:9.4g}{unit:>14s} {per * 1e6:9.2f}", flush=True)
    if "scoring" in parts:
        from korean_eval.metrics import METRIC_NAMES

        metrics = [m for m in args.metrics.split(",") if m in METRIC_NAMES]
        print("\nmetric           µs per hypothesis char (char level)")
        for metric, per in _scoring_costs(refs, hyps[: len(refs)], metrics).items():
            print(f"{metric:14s} {per * 1e6:9.2f}", flush=True)
    if "lens" in parts:
        print("\nKorean lens")
        for name, value in _lens_costs(refs, hyps).items():
            print(f"  {name:34s} {value * (1e6 if 'char' in name else 1):10.3f}{' µs' if 'char' in name else ' s'}")
    if "significance" in parts:
        print("\nsignificance, s per pair per 1,000 points, 1,000 permutations")
        for (statistic, grouping, test), per in _significance_costs(2000, 10).items():
            print(f"  {statistic:9s} {grouping:5s} {test:12s} {per:8.4f}", flush=True)
    if "intervals" in parts:
        print("\nintervals, CPU s per 1,000 points, 1,000 resamples (spa: per 1,000 permutations)")
        print("  statistic   shared  per configuration")
        for statistic, (shared, per) in _interval_costs(*_texts_with_human(args.refs)).items():
            print(f"  {statistic:9s} {shared:8.4f} {per:8.4f}", flush=True)
    print(f"\nload average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
