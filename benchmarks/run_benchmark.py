#!/usr/bin/env python3
"""Paper-scale benchmark: the full grid through the real pipeline, cold and warm, against the naive sacrebleu loop.

One command (from the repository root, venv active)::

    python benchmarks/run_benchmark.py                         # 8,192 pairs, all cores, ~1 min + extra levels
    python benchmarks/run_benchmark.py --out benchmarks/results/benchmark.md    # also write the report (.md/.json)
    python benchmarks/run_benchmark.py --pairs 2048 --jobs 2 --extra-pairs 1024  # smaller / quicker

What is measured, in one process (the extra levels each in a fresh child process):

1. Data: ``benchmarks/make_data.py`` builds ``--pairs`` distinct pairs (2,048 references × 4 systems by default;
   KoNLPy corpora + the project's sentences, perturbed; no sentence repeats) with simulated human scores, written
   to a temporary directory (``--data DIR`` to keep it).
2. ``load``: the files are read and validated as the CLI does (``evalset_from_texts`` + ``attach_human``).
3. Cold run: ``korean_eval.engine.pipeline.evaluate`` over levels word, mecab, kiwi, char, jamo × metrics bleu, chrf,
   chrf+, chrf++, ter, segment and system scores, correlations (Pearson, Spearman, Kendall; segment level without
   grouping / per item / per system; system level), with a fresh, empty cache directory. Nothing is warm except the
   numba kernels' on-disk compilation cache of earlier runs. Per-stage seconds come from ``Results.timings``:
   ``tokenise`` = wall seconds (levels word/char/jamo tokenised in a worker process: its tokenizer seconds),
   ``score`` = CPU seconds of the worker tasks for that level × metric + wall seconds of its assembly in the main
   process (segment scores, cache writes, system scores; TER runs here on threads), ``meta`` = wall seconds of the
   correlations, rankings and flipped pairs. Stages overlap (workers score one level while the main process
   tokenises the next), so they add up to more than the wall time of the run.
4. Naive loop, same run, on a random subset of the same pairs (``--naive-subset``, default 256 pairs, seeded): per
   pair ``sacrebleu.sentence_bleu`` / ``sentence_chrf`` (word_order 0, 1, 2) / ``sentence_ter`` on the pipeline's
   token strings, plus ``corpus_bleu`` / ``corpus_chrf`` / ``corpus_ter`` per system over that system's subset
   pairs; extrapolated linearly to all pairs. The naive meta-evaluation is the per-group scipy loop (one scipy call
   per item and per system) timed on one level × metric and multiplied by the number of level × metric cells.
   Every subset score is checked for equality (``==``) with the pipeline's. Two lower bounds of the naive cost are
   reported as well: the sentence loop alone (``corpus_ter`` repeats the whole TER search, so leaving out the
   ``corpus_*`` calls roughly halves TER's cost), and that loop with TER at the per-segment cost sacrebleu has on
   the study's real MT output (document 1, step 8) instead of on the generated systems.
5. Warm reruns with the filled cache directory (a new cache object, as a new session would open): with the stored
   whole result, and with the result store turned off (token and per-pair statistics caches only).
6. Jamo-level TER: sacrebleu's ``sentence_ter`` per segment (the naive loop's timing) against
   ``korean_eval.metrics.fast_ter`` on one thread and in the pipeline's run with all cores, on the same subset; raw
   statistics compared with sacrebleu's on 32 pairs (``tests/unit/metrics/test_fast_ter.py`` compares ≥ 500 pairs per level).
7. The other levels (spm, okt, komoran, kkma, hannanum): each evaluated with all five metrics in its own fresh
   process on ``--extra-pairs`` pairs (default all), to name the tokenizer's own cost.
8. Realism: mean sentence TER per level and sacrebleu's TER milliseconds per segment on the subset, next to the same
   on the study's document 1 (64 real MT outputs, ``../shared/data/kor_sacrebleu``), and chrF on the raw text.

Peak memory: a thread samples the resident set (``/proc/<pid>/status`` VmRSS) of the main process and of the
pipeline's worker processes every 20 ms; the table gives the highest sampled total while the main process was in
that stage. Below the table: the kernel's per-process peaks (VmHWM) and ``resource.getrusage``'s ``ru_maxrss``.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import make_data  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import sacrebleu  # noqa: E402

import korean_eval.engine.workers as workers  # noqa: E402
from korean_eval.engine import pools  # noqa: E402
from korean_eval.engine.cache import DiskCache  # noqa: E402
from korean_eval.engine.pipeline import evaluate  # noqa: E402
from korean_eval.inputs.tables import attach_human  # noqa: E402
from korean_eval.metaeval.stats.correlation import correlate  # noqa: E402
from korean_eval.metrics.fast_ter import ter_statistics  # noqa: E402
from korean_eval.model.config import EvalConfig  # noqa: E402
from korean_eval.model.evalset import evalset_from_texts  # noqa: E402
from tests.support.app_server import cpu_seconds  # noqa: E402

LEVELS = ("word", "mecab", "kiwi", "char", "jamo")
EXTRA_LEVELS = ("spm", "okt", "komoran", "kkma", "hannanum")
METRICS = ("bleu", "chrf", "chrf+", "chrf++", "ter")
LIBRARIES = (
    "sacrebleu", "numpy", "scipy", "pandas", "numba", "kiwipiepy", "kiwipiepy_model", "python-mecab-ko",
    "python-mecab-ko-dic", "konlpy", "JPype1", "sentencepiece", "jamo",
)  # fmt: skip
TABLES = ("segment_scores", "system_scores", "correlations", "rankings", "flips", "human_systems")


# ---- machine and memory --------------------------------------------------------------------------------------------
def machine_info() -> dict:
    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        platform.processor() or "unknown",
    )  # fmt: skip
    mem = next(
        (int(line.split()[1]) // 1024 for line in Path("/proc/meminfo").read_text().splitlines()
         if line.startswith("MemTotal")),
        0,
    )  # fmt: skip
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
        dirty = subprocess.run(["git", "status", "--porcelain", "korean_eval"], cwd=ROOT, capture_output=True, text=True).stdout
        commit = commit.strip() + ("+uncommitted changes" if dirty.strip() else "")
    except OSError:
        commit = "unknown"
    versions = {}
    for dist in LIBRARIES:
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = "missing"
    return {
        "cpu": cpu,
        "cores (os.cpu_count)": os.cpu_count(),
        "usable cores (affinity)": len(os.sched_getaffinity(0)),
        "memory MB": mem,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "korean_eval commit": commit,
        "load average at start (1, 5, 15 min)": [round(x, 2) for x in os.getloadavg()],
        "libraries": versions,
    }


def _status(pid: int, field: str) -> int:
    """A ``/proc/<pid>/status`` field in kB (0 if the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _worker_pids() -> list[int]:
    """The processes of every local worker pool (the main pool and Kiwi's)."""
    return [pid for pool, _ in list(pools._POOLS.values()) for pid in (getattr(pool, "_processes", {}) or {})]


class MemorySampler:
    """Samples main + worker VmRSS every ``interval`` seconds; peak per stage label and overall (MB)."""

    def __init__(self, interval: float = 0.02):
        self.interval = interval
        self.stage = "start"
        self.peaks: dict[str, float] = {}
        self.peak = 0.0
        self.worker_hwm: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.is_set():
            workers = _worker_pids()
            total = _status(me, "VmRSS") + sum(_status(p, "VmRSS") for p in workers)
            for p in workers:
                self.worker_hwm[p] = max(self.worker_hwm.get(p, 0), _status(p, "VmHWM"))
            mb = total / 1024
            self.peaks[self.stage] = max(self.peaks.get(self.stage, 0.0), mb)
            self.peak = max(self.peak, mb)
            time.sleep(self.interval)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def progress(self, fraction: float, message: str) -> None:
        self.stage = message


# ---- the naive loop --------------------------------------------------------------------------------------------------
NAIVE_SENTENCE = {
    "bleu": lambda h, r: sacrebleu.sentence_bleu(h, [r], tokenize="none"),
    "chrf": lambda h, r: sacrebleu.sentence_chrf(h, [r]),
    "chrf+": lambda h, r: sacrebleu.sentence_chrf(h, [r], word_order=1),
    "chrf++": lambda h, r: sacrebleu.sentence_chrf(h, [r], word_order=2),
    "ter": lambda h, r: sacrebleu.sentence_ter(h, [r]),
}
NAIVE_CORPUS = {
    "bleu": lambda hs, rs: sacrebleu.corpus_bleu(hs, [rs], tokenize="none", force=True),
    "chrf": lambda hs, rs: sacrebleu.corpus_chrf(hs, [rs]),
    "chrf+": lambda hs, rs: sacrebleu.corpus_chrf(hs, [rs], word_order=1),
    "chrf++": lambda hs, rs: sacrebleu.corpus_chrf(hs, [rs], word_order=2),
    "ter": lambda hs, rs: sacrebleu.corpus_ter(hs, [rs]),
}


def naive_loop(evalset, results, subset: list[tuple[int, int]], n_pairs: int) -> dict:
    """Seconds (measured on the subset and extrapolated) and equality checks per level × metric."""
    out = {}
    systems = evalset.system_names
    for level in LEVELS:
        tok = results.tokens[level]
        pairs = [(s, i, tok[evalset.systems[systems[s]][i]], tok[evalset.refs[0][i]]) for s, i in subset]
        for metric in METRICS:
            start = time.perf_counter()
            seg = [NAIVE_SENTENCE[metric](h, r).score for _, _, h, r in pairs]
            sentence_seconds = time.perf_counter() - start
            by_system: dict[int, list] = {}
            for s, i, h, r in pairs:
                by_system.setdefault(s, []).append((i, h, r))
            corpus = {s: NAIVE_CORPUS[metric]([h for _, h, _ in v], [r for _, _, r in v]).score for s, v in by_system.items()}
            seconds = time.perf_counter() - start
            ours = results.segment_matrices[(level, metric)]
            if metric == "ter" and results.settings.get("ter_cap"):
                raise SystemExit("run without --ter-cap")
            seg_equal = sum(ours[s, i] == v for (s, i, _, _), v in zip(pairs, seg, strict=True))
            m = results.metrics[(level, metric)]
            cube = results.stats[(level, metric)]
            corpus_equal = sum(
                float(m.scores_from_sums(cube[s, [i for i, _, _ in v]].sum(axis=0))) == corpus[s]
                for s, v in by_system.items()
            )
            out[(level, metric)] = {
                "subset seconds": seconds,
                "sentence ms/segment": 1000 * sentence_seconds / len(pairs),
                "mean sentence score": float(np.mean(seg)),
                "naive seconds": seconds * n_pairs / len(pairs),
                "naive sentence-only seconds": sentence_seconds * n_pairs / len(pairs),
                "segment scores equal": f"{seg_equal}/{len(pairs)}",
                "corpus scores equal": f"{corpus_equal}/{len(by_system)}",
                "all equal": seg_equal == len(pairs) and corpus_equal == len(by_system),
            }
    return out


def naive_meta(results, config: EvalConfig) -> tuple[float, bool]:
    """The per-group scipy loop for one level × metric (all statistics and groupings), and equality with ours."""
    from korean_eval.metaeval.stats.correlation import system_means

    level, metric = LEVELS[0], METRICS[0]
    seg = results.segment_matrices[(level, metric)]
    human = results.human_matrix
    sys_scores = results.system_scores.query("level == @level and metric == @metric")["score"].to_numpy()
    start = time.perf_counter()
    values = {}
    ok = np.isfinite(seg) & np.isfinite(human)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for statistic in config.statistics:
            values[("none", statistic)] = correlate(seg[ok], human[ok], statistic)
            for grouping in ("item", "system"):
                m, h, k = (seg.T, human.T, ok.T) if grouping == "item" else (seg, human, ok)
                per = [correlate(m[g][k[g]], h[g][k[g]], statistic) for g in range(m.shape[0])]
                per = [v for v in per if np.isfinite(v)]
                values[(grouping, statistic)] = float(np.mean(per)) if per else float("nan")
            hs = system_means(human)
            fin = np.isfinite(sys_scores) & np.isfinite(hs)
            correlate(sys_scores[fin], hs[fin], statistic)
    seconds = time.perf_counter() - start
    corr = results.correlations.query("level == @level and metric == @metric and granularity == 'segment'")
    equal = all(
        (np.isnan(v) and np.isnan(w)) or v == w
        for (grouping, statistic), v in values.items()
        for w in corr.query("grouping == @grouping and statistic == @statistic")["value"]
    )
    return seconds, equal


def jamo_ter(evalset, results, subset: list[tuple[int, int]], naive: dict, jobs: int) -> dict:
    """fast_ter against sacrebleu's ``sentence_ter`` at jamo level: sacrebleu's time is the naive loop's.

    The naive loop already timed ``sentence_ter`` on these pairs and compared every score with the pipeline's; here
    fast_ter runs on one thread over the same pairs, and its raw statistics are compared with sacrebleu's
    ``_extract_corpus_statistics`` on the first 32 of them (all of them would repeat minutes of sacrebleu).
    """
    tok = results.tokens["jamo"]
    systems = evalset.system_names
    hyps = [tok[evalset.systems[systems[s]][i]] for s, i in subset]
    refs = [tok[evalset.refs[0][i]] for _, i in subset]
    ter_statistics(hyps[:2], [refs[:2]], n_jobs=1)  # compiled / loaded already; make sure
    start = time.perf_counter()
    fast = ter_statistics(hyps, [refs], n_jobs=1)
    fast_seconds = time.perf_counter() - start
    k = min(32, len(subset))
    stats_equal = np.array_equal(
        fast[:k], np.asarray(sacrebleu.metrics.TER()._extract_corpus_statistics(hyps[:k], [refs[:k]]), np.float64)
    )
    row = results.timings.query("stage == 'score' and level == 'jamo' and metric == 'ter'")["seconds"].sum()
    n = int(np.isfinite(results.segment_matrices[("jamo", "ter")]).sum())
    per_pair_sacre = naive[("jamo", "ter")]["sentence ms/segment"] / 1000
    return {
        "subset pairs": len(subset),
        "mean jamo tokens per hypothesis (subset)": float(np.mean([len(h.split()) for h in hyps])),
        "sacrebleu ms/segment": 1000 * per_pair_sacre,
        "fast_ter 1 thread ms/segment": 1000 * fast_seconds / len(subset),
        "speed-up (1 thread)": per_pair_sacre / (fast_seconds / len(subset)),
        f"pipeline jamo TER ms/segment (all {n} pairs, {jobs} threads, incl. scores)": 1000 * row / n,
        "speed-up (pipeline)": per_pair_sacre / (row / n),
        f"statistics equal (first {k} pairs)": bool(stats_equal),
        "scores equal (subset)": naive[("jamo", "ter")]["segment scores equal"] == f"{len(subset)}/{len(subset)}",
    }


def realism(evalset, subset: list[tuple[int, int]], naive: dict) -> dict:
    """The study's document 1 (real MT output) profiled like the subset: mean TER, sacrebleu cost, raw chrF."""
    real_pairs = make_data.study_pairs()
    names = evalset.system_names
    raw = [(evalset.refs[0][i], evalset.systems[names[s]][i]) for s, i in subset]
    synthetic = {
        level: {"mean TER": naive[(level, "ter")]["mean sentence score"],
                "sacrebleu TER ms/segment": naive[(level, "ter")]["sentence ms/segment"]}
        for level in LEVELS
    }
    synthetic["raw text"] = {"mean chrF": float(np.mean([sacrebleu.sentence_chrf(h, [r]).score for r, h in raw]))}
    return {"study": make_data.profile(real_pairs, LEVELS), "benchmark": synthetic,
            "study pairs": len(real_pairs), "benchmark pairs": len(subset)}


# ---- extra levels (child process) ------------------------------------------------------------------------------------
def load_evalset(data: Path):
    refs = [("ref.txt", (data / "ref.txt").read_bytes())]
    files = sorted((data / "systems").glob("*.txt"))
    evalset = evalset_from_texts(refs, [(p.name, p.read_bytes()) for p in files], [p.stem for p in files])
    attach_human(evalset, (data / "human.tsv").read_bytes(), "human.tsv")
    return evalset


def extra_level_child(data: Path, level: str, jobs: int | None) -> dict:
    """Runs in a fresh process: one extra level × all metrics, cold, fresh cache."""
    from korean_eval.levels.registry import level_availability

    ok, reason = level_availability(level)
    if not ok:
        return {"level": level, "available": False, "reason": reason}
    evalset = load_evalset(data)
    with tempfile.TemporaryDirectory(prefix="ke-bench-cache-") as cache_dir, MemorySampler() as mem:
        start = time.perf_counter()
        results = evaluate(evalset, EvalConfig(levels=(level,), metrics=METRICS, jobs=jobs), mem.progress,
                           DiskCache(cache_dir))
        wall = time.perf_counter() - start
    t = results.timings
    return {
        "level": level,
        "available": True,
        "pairs": evalset.system_pairs(),
        "texts": int(results.token_stats["texts"].iloc[0]),
        "tokens per word": float(results.token_stats["tokens_per_word"].iloc[0]),
        "tokenise seconds": float(t.query("stage == 'tokenise'")["seconds"].sum()),
        "tokenizer seconds": float(results.token_stats["tokenizer_seconds"].iloc[0]),
        "score seconds": float(t.query("stage == 'score'")["seconds"].sum()),
        "meta seconds": float(t.query("stage == 'meta'")["seconds"].sum()),
        "wall seconds": wall,
        "peak RSS MB (sampled, main + workers)": mem.peak,
        "main ru_maxrss MB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run_extra(data: Path, pairs: int, jobs: int | None, levels: tuple[str, ...], tmp: Path) -> list[dict]:
    if pairs < make_data.n_pairs_in(data):
        sub = tmp / f"extra-{pairs}"
        make_data.write(make_data.subset(make_data.read(data), pairs), sub)
        data = sub
    rows = []
    for level in levels:
        print(f"  extra level {level} (fresh process) …", file=sys.stderr, flush=True)
        cmd = [sys.executable, str(Path(__file__).resolve()), "--_extra-child", level, "--data", str(data)]
        if jobs:
            cmd += ["--jobs", str(jobs)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            rows.append({"level": level, "available": False, "reason": proc.stderr.strip().splitlines()[-1:]})
            continue
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return rows


# ---- report ------------------------------------------------------------------------------------------------------------
def fmt(x: float, digits: int = 2) -> str:
    return f"{x:,.{digits}f}"


def build_report(m: dict) -> str:
    info, stage_rows = m["machine"], m["stages"]
    lines = [
        f"Machine: {info['cpu']}, {info['usable cores (affinity)']} cores, {info['memory MB']:,} MB RAM; "
        f"Python {info['python']}; korean_eval {info['korean_eval commit']}; load average at start "
        f"{info['load average at start (1, 5, 15 min)']}, at end {info.get('load average at end (1, 5, 15 min)')} "
        "(other work on the machine slows every figure)",
        "",
        "Libraries: " + ", ".join(f"{k} {v}" for k, v in info["libraries"].items()),
        "",
        f"Data: {m['data']['pairs']:,} distinct pairs ({m['data']['references']:,} references × "
        f"{m['data']['systems']} systems), reference length mean {m['data']['reference length mean']} characters "
        f"(max {m['data']['reference length max']}); all {m['data']['distinct sentences']:,} sentences distinct: "
        f"{m['data']['all sentences distinct']}. jobs = {m['jobs']}. Naive loop measured on {m['naive subset']} "
        "random pairs of the same set, extrapolated linearly.",
        "",
        "| stage | seconds | peak RSS MB | naive loop, s (extrapolated) | speed-up |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for r in stage_rows:
        naive = fmt(r["naive"], 1) if r.get("naive") is not None else ""
        ratio = f"{r['naive'] / r['seconds']:,.0f}×" if r.get("naive") and r["seconds"] > 0 else ""
        rss = fmt(r["rss"], 0) if r.get("rss") else ""
        lines.append(f"| {r['stage']} | {fmt(r['seconds'])} | {rss} | {naive} | {ratio} |")
    lines += ["", "Notes:"] + [f"- {n}" for n in m["notes"]]
    ter = m["jamo ter"]
    lines += [
        "",
        f"Jamo-level TER, {ter['subset pairs']} random pairs ({ter['mean jamo tokens per hypothesis (subset)']:.0f} "
        "jamo per hypothesis on average):",
        "",
        "| implementation | ms per segment | speed-up vs sacrebleu |",
        "| --- | ---: | ---: |",
        f"| sacrebleu `sentence_ter` | {fmt(ter['sacrebleu ms/segment'])} | 1× |",
        f"| korean_eval fast_ter, 1 thread | {fmt(ter['fast_ter 1 thread ms/segment'], 3)} | "
        f"{ter['speed-up (1 thread)']:,.0f}× |",
    ]
    key = next(k for k in ter if k.startswith("pipeline jamo TER"))
    lines += [
        f"| pipeline, {key.split('(')[1].rstrip(')')} | {fmt(ter[key], 3)} | {ter['speed-up (pipeline)']:,.0f}× |",
        "",
        "; ".join(f"{k.capitalize()}: {v}" for k, v in ter.items() if "equal" in k) + ".",
    ]
    real = m["realism"]
    lines += [
        "",
        "How far the systems are from their references, against real MT output (the study's document 1); the "
        "naive loop's cost depends on it:",
        "",
        make_data.calibration_table(real["study"], real["benchmark"], real["study pairs"], real["benchmark pairs"]),
    ]
    if m.get("extra"):
        lines += [
            "",
            "Other levels (each in a fresh process, cold, all five metrics):",
            "",
            "| level | pairs | tokenise s | of which the tokenizer | score s | meta s | wall s | peak RSS MB | bottleneck |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        for e in m["extra"]:
            if not e.get("available"):
                lines.append(f"| {e['level']} | unavailable: {e.get('reason')} | | | | | | | |")
                continue
            bottleneck = "tokenizer" if e["tokenise seconds"] > e["score seconds"] + e["meta seconds"] else "scoring"
            lines.append(
                f"| {e['level']} | {e['pairs']:,} | {fmt(e['tokenise seconds'])} | {fmt(e['tokenizer seconds'])} | "
                f"{fmt(e['score seconds'])} | {fmt(e['meta seconds'])} | {fmt(e['wall seconds'])} | "
                f"{fmt(e['peak RSS MB (sampled, main + workers)'], 0)} | {bottleneck} |"
            )
    return "\n".join(lines)


# ---- main ----------------------------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=8192, help="(system, segment) pairs, 4 systems (default 8192)")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--out", type=Path, help="also write the report: FILE.md (markdown) or FILE.json")
    parser.add_argument("--naive-subset", type=int, default=256, help="pairs for the naive loop (default 256)")
    parser.add_argument("--extra-pairs", type=int, default=None, help="pairs for the other levels (default: all)")
    parser.add_argument("--extra-levels", default=",".join(EXTRA_LEVELS), help="other levels ('' = none)")
    parser.add_argument("--data", type=Path, help="keep the generated data in this directory")
    parser.add_argument("--seed", type=int, default=20240605, help="seed of the naive-loop subset")
    parser.add_argument("--_extra-child", dest="extra_child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.extra_child:
        print(json.dumps(extra_level_child(args.data, args.extra_child, args.jobs)))
        return 0

    tmp = Path(tempfile.mkdtemp(prefix="ke-bench-"))
    try:
        return run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # generated data (unless --data) and the benchmark's cache


def run(args: argparse.Namespace, tmp: Path) -> int:
    jobs = pools.worker_count(args.jobs)
    m: dict = {"machine": machine_info(), "jobs": jobs, "notes": []}
    print(json.dumps(m["machine"], indent=2), file=sys.stderr)
    data = args.data or tmp / "data"
    print(f"generating {args.pairs} pairs into {data} …", file=sys.stderr, flush=True)
    start = time.perf_counter()
    dataset = make_data.build(args.pairs)
    make_data.write(dataset, data)
    m["data"] = dataset.summary()
    m["data generation seconds"] = time.perf_counter() - start
    del dataset

    stages: list[dict] = []
    with MemorySampler() as mem:
        mem.stage = "load"
        start = time.perf_counter()
        evalset = load_evalset(data)
        stages.append({"stage": f"load ({evalset.system_pairs():,} pairs, read + validate)",
                       "seconds": time.perf_counter() - start})
        n_pairs = evalset.system_pairs()

        print("cold run …", file=sys.stderr, flush=True)
        config = EvalConfig(levels=LEVELS, metrics=METRICS, jobs=args.jobs)
        cache_dir = tmp / "cache"
        start, cpu_main = time.perf_counter(), cpu_seconds([os.getpid()])
        cold = evaluate(evalset, config, mem.progress, DiskCache(cache_dir))
        cold_wall = time.perf_counter() - start
        cpu_main = cpu_seconds([os.getpid()]) - cpu_main
        cpu_workers = cpu_seconds(_worker_pids())  # started by this run
        mem.stage = "after"
        peak_cold = mem.peak
        main_hwm = _status(os.getpid(), "VmHWM") / 1024
        worker_hwm = [v / 1024 for v in mem.worker_hwm.values()]

        print("naive loop on the subset …", file=sys.stderr, flush=True)
        rng = random.Random(args.seed)
        positions = [(s, i) for s, name in enumerate(evalset.system_names) for i in range(evalset.n_segments)
                     if evalset.systems[name][i] is not None]
        subset = sorted(rng.sample(positions, min(args.naive_subset, len(positions))))
        m["naive subset"] = len(subset)
        naive = naive_loop(evalset, cold, subset, n_pairs)
        meta_one, meta_equal = naive_meta(cold, config)

        print("warm reruns …", file=sys.stderr, flush=True)
        start = time.perf_counter()
        warm = evaluate(evalset, config, None, DiskCache(cache_dir))
        warm_wall = time.perf_counter() - start
        items_only = DiskCache(cache_dir)
        items_only.store_results = False
        start = time.perf_counter()
        warm_items = evaluate(evalset, config, None, items_only)
        warm_items_wall = time.perf_counter() - start
        for name in TABLES:
            pd.testing.assert_frame_equal(getattr(warm, name), getattr(cold, name), check_exact=True)
            pd.testing.assert_frame_equal(getattr(warm_items, name), getattr(cold, name), check_exact=True)
        ter = jamo_ter(evalset, cold, subset, naive, jobs)
        print("profiling the study's real MT output …", file=sys.stderr, flush=True)
        m["realism"] = realism(evalset, subset, naive)

    t = cold.timings
    rss = mem.peaks
    for level in LEVELS:
        sec = float(t.query("stage == 'tokenise' and level == @level")["seconds"].sum())
        where = "workers" if workers.tokenised_in_workers(level) and jobs > 1 else "main"
        stages.append({"stage": f"tokenise {level} ({where})", "seconds": sec,
                       "rss": rss.get(f"tokenising at level {level}")})
    for level in LEVELS:
        for metric in METRICS:
            sec = float(t.query("stage == 'score' and level == @level and metric == @metric")["seconds"].sum())
            stages.append({"stage": f"score {level} × {metric}", "seconds": sec,
                           "naive": naive[(level, metric)]["naive seconds"],
                           "rss": rss.get(f"scoring {metric} at level {level}")})
    n_cells = len(LEVELS) * len(METRICS)
    meta_seconds = float(t.query("stage == 'meta'")["seconds"].sum())
    stages.append({"stage": f"meta-evaluation ({n_cells} level × metric cells)", "seconds": meta_seconds,
                   "naive": meta_one * n_cells, "rss": rss.get("meta-evaluation")})
    tokenise_total = float(t.query("stage == 'tokenise'")["seconds"].sum())
    naive_scoring = sum(v["naive seconds"] for v in naive.values())
    score_total = float(t.query("stage == 'score'")["seconds"].sum())
    stages.append({"stage": "all scoring (sum of the score rows: CPU s)", "seconds": score_total,
                   "naive": naive_scoring})
    naive_total = tokenise_total + naive_scoring + meta_one * n_cells
    stages.append({"stage": "cold full grid, wall (naive: same tokenizers + naive scoring + naive meta)",
                   "seconds": cold_wall, "naive": naive_total, "rss": peak_cold})
    # Lower bounds of the naive loop: sentence scores only (no corpus_* call, whose TER repeats the sentence work),
    # and the same with TER at the per-segment cost sacrebleu has on the study's real MT output.
    sentence_only = sum(v["naive sentence-only seconds"] for v in naive.values())
    naive_lower = tokenise_total + sentence_only + meta_one * n_cells
    stages.append({"stage": "**cold full grid, wall** (naive: sentence_* loop only, no corpus_* calls)",
                   "seconds": cold_wall, "naive": naive_lower})
    study = m["realism"]["study"]
    ter_at_study_cost = sum(study[level]["sacrebleu TER ms/segment"] / 1000 * n_pairs for level in LEVELS)
    naive_study = naive_lower - sum(naive[(level, "ter")]["naive sentence-only seconds"] for level in LEVELS)
    naive_study += ter_at_study_cost
    stages.append({"stage": "**cold full grid, wall** (naive: as above, TER at the study's real per-segment cost)",
                   "seconds": cold_wall, "naive": naive_study})
    stages.append({"stage": "**warm rerun, wall** (stored result of the identical evaluation)", "seconds": warm_wall})
    stages.append({"stage": "warm rerun, wall (token + statistics caches only, result store off)",
                   "seconds": warm_items_wall})
    m["stages"] = stages
    m["naive"] = {f"{k[0]}/{k[1]}": v for k, v in naive.items()}
    m["jamo ter"] = ter
    m["cold wall seconds"] = cold_wall
    m["cold CPU seconds"] = {"main process (all threads)": cpu_main, "worker processes": cpu_workers}
    m["warm wall seconds"] = warm_wall
    m["warm (caches only) wall seconds"] = warm_items_wall
    m["peak RSS MB"] = {
        "sampled total, cold run (main + workers)": peak_cold,
        "main VmHWM": main_hwm,
        "workers VmHWM": worker_hwm,
        "sum of per-process peaks": main_hwm + sum(worker_hwm),
        "main ru_maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    all_equal = all(v["all equal"] for v in naive.values())
    m["notes"] += [
        f"Cold run: {cold_wall:.1f} s wall for {n_pairs:,} pairs × {len(LEVELS)} levels × {len(METRICS)} metrics "
        f"(fresh cache; {jobs} worker processes). Warm rerun: {warm_wall:.2f} s (stored result); "
        f"{warm_items_wall:.2f} s from the token and statistics caches alone. Warm results equal the cold ones.",
        "seconds: tokenise = wall (word/char/jamo: a worker's tokenizer seconds); score = CPU seconds of the "
        "worker tasks + wall seconds in the main process; meta = wall. Stages overlap, so they sum to more than the "
        "wall time.",
        f"Naive loop: sentence_* per pair + corpus_* per system on the token strings, {len(subset)} random pairs, "
        f"extrapolated ×{n_pairs / len(subset):,.0f}; every subset segment and corpus score equal to the pipeline's: "
        f"{all_equal}. Naive meta-evaluation: the per-group scipy loop, timed on {LEVELS[0]} × {METRICS[0]} "
        f"({meta_one:.2f} s, values equal: {meta_equal}) × {n_cells}.",
        f"CPU during the cold run: main process {cpu_main:.1f} s (all its threads), worker processes "
        f"{cpu_workers:.1f} s: {cpu_main + cpu_workers:.1f} CPU-seconds in {cold_wall:.1f} s wall = "
        f"{(cpu_main + cpu_workers) / cold_wall:.2f} cores busy on average (of {jobs}).",
        f"Peak RSS: sampled total (main + workers, /proc VmRSS every 20 ms) {peak_cold:,.0f} MB during the cold "
        f"run; kernel peaks (VmHWM): main {main_hwm:,.0f} MB, workers "
        + ", ".join(f"{w:,.0f}" for w in worker_hwm) + f" MB (sum {main_hwm + sum(worker_hwm):,.0f} MB).",
    ]
    extra_levels = tuple(x for x in args.extra_levels.split(",") if x)
    if extra_levels:
        print("other levels …", file=sys.stderr, flush=True)
        m["extra"] = run_extra(data, args.extra_pairs or n_pairs, args.jobs, extra_levels, tmp)
    m["machine"]["load average at end (1, 5, 15 min)"] = [round(x, 2) for x in os.getloadavg()]
    report = build_report(m)
    print(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        if args.out.suffix == ".json":
            args.out.write_text(json.dumps(m, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
        else:
            args.out.write_text(report + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
