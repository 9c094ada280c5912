#!/usr/bin/env python3
"""WMT-sized evaluation: the full grid on 24 systems × 2,000 segments (a third paragraphs), cold and warm, its peak
memory, scores checked against sacrebleu on a sampled subset; the warm CLI rerun on a held-out-sized input; and
the same run on a Dask ``LocalCluster`` (benchmarks/README.md, "WMT-shaped set").

    python benchmarks/bench_wmt_scale.py                       # builds benchmarks/results/data_wmt/ if missing
    python benchmarks/bench_wmt_scale.py --jobs 2 --out benchmarks/results/wmt_scale.md
    python benchmarks/bench_wmt_scale.py --cli-data ../shared/heldout/wmt24_chat_enko --dask-segments 300

What is measured (from the repository root, venv active):

1. ``cold``: ``korean_eval.engine.pipeline.evaluate`` on the WMT-shaped set (``benchmarks/make_data.py --wmt``) over levels
   word, mecab, kiwi, char, jamo × BLEU, chrF, chrF++, TER, segment + system scores + correlations, with a fresh
   cache directory: wall seconds, CPU seconds of the main process and of the worker processes
   (``/proc/<pid>/stat``), and the peak resident memory of main + workers sampled every 20 ms
   (``run_benchmark.MemorySampler``) — targets ≤ 180 s on 2 cores and ≤ 3 GB;
2. ``warm``: the same evaluation again from the filled cache (a new cache object): the stored result;
3. ``check``: on ``--check-pairs`` random (system, segment) pairs (seeded) every level × metric segment score
   equals sacrebleu's ``sentence_bleu`` / ``sentence_chrf`` (word order 0 and 2) / ``sentence_ter`` on the
   pipeline's token strings (``==``; TER only where both sides have at most 250 tokens: sacrebleu's TER search takes
   ~25 s on one 700-token pair), and at every level BLEU, chrF and chrF++ system scores of ``--check-systems``
   random systems equal sacrebleu's ``corpus_*`` over all their segments;
4. ``cli``: ``python -m korean_eval run`` on ``--cli-data`` (a ``ref.txt`` + ``systems/`` + ``human.tsv`` folder,
   e.g. the held-out WMT24 chat set: 2,200 pairs) with levels word, mecab, kiwi, char, jamo × BLEU, chrF, chrF++,
   TER (20 configurations) and the default statistics: once cold, then three warm reruns of the whole process
   (target ≤ 2 s);
5. ``dask``: the first ``--dask-segments`` segments of the set evaluated locally and on a
   ``distributed.LocalCluster(n_workers=2, threads_per_worker=1)`` (``EvalConfig.scheduler``), both cold: seconds
   and whether every table is equal.

The machine's load average is printed with every figure: other work on the machine slows all of them.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import run_benchmark as rb  # noqa: E402

from korean_eval.engine.cache import DiskCache, NullCache  # noqa: E402
from korean_eval.engine.pipeline import evaluate  # noqa: E402
from korean_eval.engine.planning import level_pairs  # noqa: E402
from korean_eval.model.config import EvalConfig  # noqa: E402

LEVELS = ("word", "mecab", "kiwi", "char", "jamo")
METRICS = ("bleu", "chrf", "chrf++", "ter")
TARGETS = {"cold": 180.0, "memory": 3072.0, "cli warm": 2.0}
SENTENCE = {m: rb.NAIVE_SENTENCE[m] for m in METRICS}
CORPUS = {m: rb.NAIVE_CORPUS[m] for m in ("bleu", "chrf", "chrf++")}
TER_CHECK_TOKENS = 250  # sacrebleu's TER takes ~25 s on one 700-token pair: longer pairs are not checked against it
TABLES = ("segment_scores", "system_scores", "correlations", "rankings", "flips", "human_systems")


def load() -> str:
    """``uptime``'s load average, as printed next to every figure."""
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def ensure_data(data: Path) -> Path:
    if not (data / "ref.txt").exists():
        print(f"building the WMT-shaped set in {data} …", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, str(HERE / "make_data.py"), "--wmt", "--out", str(data)], check=True,
                       stdout=subprocess.DEVNULL)
    return data


def cold_and_warm(evalset, jobs: int | None, tmp: Path) -> dict:
    """The cold run (wall, CPU, peak memory) and the warm rerun of the full grid."""
    config = EvalConfig(levels=LEVELS, metrics=METRICS, jobs=jobs)
    out: dict = {"load before": load()}
    with rb.MemorySampler() as mem:
        start, cpu = time.perf_counter(), time.process_time()
        results = evaluate(evalset, config, progress=mem.progress, cache=DiskCache(tmp / "cache"))
        out["cold"] = time.perf_counter() - start
        out["main cpu"] = time.process_time() - cpu
        out["worker cpu"] = rb.cpu_seconds(rb._worker_pids())
    out["load after cold"] = load()
    out["memory"], out["stage peaks"], out["worker hwm"] = mem.peak, mem.peaks, mem.worker_hwm
    out["timings"] = results.timings
    start = time.perf_counter()
    warm = evaluate(evalset, config, cache=DiskCache(tmp / "cache"))
    out["warm"] = time.perf_counter() - start
    out["warm equal"] = all(getattr(warm, t).equals(getattr(results, t)) for t in TABLES)
    out["load after warm"] = load()
    return out | {"results": results}


def check_subset(evalset, results, n_pairs: int, n_systems: int, seed: int = 14) -> dict:
    """Segment scores of random pairs and system scores of random systems against sacrebleu (``==``)."""
    rng = random.Random(seed)
    mismatches: list[str] = []
    checked = skipped = 0
    chosen = rng.sample(range(len(evalset.system_names)), n_systems)
    for level in LEVELS:
        positions, hyps, refs = level_pairs(evalset, results.tokens[level])
        for k in rng.sample(range(len(hyps)), min(n_pairs, len(hyps))):
            s, i = positions[k]
            for metric, fn in SENTENCE.items():
                if metric == "ter" and max(len(hyps[k].split()), len(refs[0][k].split())) > TER_CHECK_TOKENS:
                    skipped += 1
                    continue
                checked += 1
                if fn(hyps[k], refs[0][k]).score != results.segment_matrices[(level, metric)][s, i]:
                    mismatches.append(f"{level}/{metric} pair {evalset.system_names[s]}:{i}")
        scores = results.system_scores.set_index(["level", "metric", "system"])["score"]
        for s in chosen:
            rows = [k for k, (t, _) in enumerate(positions) if t == s]
            for metric, fn in CORPUS.items():
                checked += 1
                expected = fn([hyps[k] for k in rows], [refs[0][k] for k in rows]).score
                if expected != scores[(level, metric, evalset.system_names[s])]:
                    mismatches.append(f"{level}/{metric} system {evalset.system_names[s]}")
    return {"checked": checked, "mismatches": mismatches, "pairs": n_pairs, "systems": n_systems, "ter skipped": skipped}


def cli_runs(data: Path, tmp: Path, warm_runs: int = 3) -> dict:
    """Wall seconds of the whole ``python -m korean_eval run`` process: cold, then ``warm_runs`` warm reruns."""
    command = [sys.executable, "-m", "korean_eval", "run", "--ref", str(data / "ref.txt"),
               "--sys-dir", str(data / "systems"), "--human", str(data / "human.tsv"),
               "--levels", ",".join(LEVELS), "--metrics", ",".join(METRICS), "--cache-dir", str(tmp / "cli-cache"),
               "--out", str(tmp / "cli-out"), "--quiet"]
    seconds = []
    for _ in range(1 + warm_runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds.append((time.perf_counter() - start, load()))
    return {"cold": seconds[0], "warm": seconds[1:]}


def dask_runs(evalset, segments: int, jobs: int | None) -> dict:
    """The first ``segments`` segments, cold, on the local pool and on a 2-worker ``LocalCluster``."""
    import distributed

    from korean_eval.engine.dask_executor import disconnect

    part = _first_segments(evalset, segments)
    out: dict = {"pairs": part.system_pairs()}
    start = time.perf_counter()
    local = evaluate(part, EvalConfig(levels=LEVELS, metrics=METRICS, jobs=jobs), cache=NullCache())
    out["local"] = (time.perf_counter() - start, load())
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster:
        config = EvalConfig(levels=LEVELS, metrics=METRICS, scheduler=cluster.scheduler_address)
        start = time.perf_counter()
        remote = evaluate(part, config, cache=NullCache())
        out["dask"] = (time.perf_counter() - start, load())
        disconnect(cluster.scheduler_address)
    out["equal"] = all(getattr(remote, t).equals(getattr(local, t)) for t in TABLES)
    return out


def _first_segments(evalset, n: int):
    """An evaluation set of the first ``n`` segments (texts re-read through the library's validation)."""
    from korean_eval.inputs.tables import attach_human
    from korean_eval.model.evalset import evalset_from_texts

    refs = [("ref.txt", "".join(r + "\n" for r in evalset.refs[0][:n]).encode())]
    systems = [(f"{name}.txt", "".join((h or "") + "\n" for h in hyps[:n]).encode())
               for name, hyps in evalset.systems.items()]
    part = evalset_from_texts(refs, systems, list(evalset.systems))
    human = evalset.human[evalset.human["seg_id"].astype(int) < n]
    attach_human(part, human.to_csv(sep="\t", index=False).encode(), "human.tsv")
    return part


def report(m: dict) -> str:
    """The figures, each with its target and ratio where there is one, and the load average."""
    c = m["scale"]
    lines = [f"Machine: {m['machine']['cpu']}, {m['machine']['usable cores (affinity)']} cores; "
             f"korean_eval {m['machine']['korean_eval commit']}",
             f"Data: {m['data']}", "",
             "| figure | measured | target | ratio (measured / target) | load average (1, 5, 15 min) |",
             "| --- | ---: | ---: | ---: | --- |",
             f"| cold full grid, wall | {c['cold']:.1f} s | ≤ 180 s | {c['cold'] / TARGETS['cold']:.2f} "
             f"| before {c['load before']}; after {c['load after cold']} |",
             f"| cold CPU (main + workers) | {c['main cpu'] + c['worker cpu']:.0f} s "
             f"(main {c['main cpu']:.0f} + workers {c['worker cpu']:.0f}) | | | |",
             f"| peak memory, main + workers (sampled) | {c['memory']:,.0f} MB | ≤ 3,072 MB "
             f"| {c['memory'] / TARGETS['memory']:.2f} | {c['load after cold']} |",
             f"| warm rerun (stored result) | {c['warm']:.2f} s | | | {c['load after warm']} |"]
    if "cli" in m:
        cold, warm = m["cli"]["cold"], m["cli"]["warm"]
        best = min(w[0] for w in warm)
        lines.append(f"| CLI `run`, {m['cli data']}: cold process | {cold[0]:.1f} s | | | {cold[1]} |")
        lines.append(f"| CLI `run`, same, warm process ({len(warm)} reruns) | "
                     f"{', '.join(f'{w[0]:.2f}' for w in warm)} s | ≤ 2 s | {best / TARGETS['cli warm']:.2f} (best) "
                     f"| {warm[-1][1]} |")
    if "dask" in m:
        d = m["dask"]
        lines.append(f"| {d['pairs']:,} pairs cold, local pool | {d['local'][0]:.1f} s | | | {d['local'][1]} |")
        lines.append(f"| same on a Dask LocalCluster (2 workers × 1 thread) | {d['dask'][0]:.1f} s "
                     f"(tables equal: {d['equal']}) | | | {d['dask'][1]} |")
    k = m["check"]
    lines += ["", f"Scores against sacrebleu: {k['checked']} comparisons ({k['pairs']} random pairs per level × "
              f"{len(METRICS)} metrics, sentence scores; BLEU, chrF, chrF++ system scores of {k['systems']} random "
              f"systems at every level; TER only on pairs of ≤ {TER_CHECK_TOKENS} tokens: {k['ter skipped']} longer "
              f"sampled pairs not checked for TER), mismatches: {len(k['mismatches'])} {k['mismatches'][:5]}",
              f"Warm results equal the cold ones: {c['warm equal']}.", "", "Stage seconds of the cold run:", "",
              c["timings"].groupby(["stage", "level"], sort=False)["seconds"].sum().round(1).to_string(), "",
              "Peak memory (main + workers, MB) by the progress message current when it was sampled, highest 8:", ""]
    lines += [f"- {mb:,.0f} MB: {stage}" for stage, mb in sorted(c["stage peaks"].items(), key=lambda kv: -kv[1])[:8]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE / "results" / "data_wmt")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--check-pairs", type=int, default=60)
    parser.add_argument("--check-systems", type=int, default=2)
    parser.add_argument("--cli-data", type=Path, default=ROOT.parent / "shared" / "heldout" / "wmt24_chat_enko")
    parser.add_argument("--dask-segments", type=int, default=300, help="0 = no Dask run")
    parser.add_argument("--out", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    data = ensure_data(args.data)
    m: dict = {"machine": rb.machine_info()}
    evalset = rb.load_evalset(data)
    sizes = [len(r) for r in evalset.refs[0]]
    m["data"] = (f"{len(evalset.system_names)} systems × {len(sizes):,} segments = {evalset.system_pairs():,} pairs; "
                 f"{sum(n >= 300 for n in sizes):,} paragraphs (≥ 300 characters); reference length mean "
                 f"{sum(sizes) / len(sizes):.0f}, max {max(sizes):,}")
    with tempfile.TemporaryDirectory() as tmp:
        print(f"cold and warm runs … ({load()})", file=sys.stderr, flush=True)
        m["scale"] = cold_and_warm(evalset, args.jobs, Path(tmp))
        print("checking against sacrebleu …", file=sys.stderr, flush=True)
        m["check"] = check_subset(evalset, m["scale"].pop("results"), args.check_pairs, args.check_systems)
        if (args.cli_data / "ref.txt").exists():
            print("CLI runs …", file=sys.stderr, flush=True)
            m["cli"], m["cli data"] = cli_runs(args.cli_data, Path(tmp)), args.cli_data.name
    if args.dask_segments:
        print("Dask runs …", file=sys.stderr, flush=True)
        m["dask"] = dask_runs(evalset, args.dask_segments, args.jobs)
    text = report(m)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0 if not m["check"]["mismatches"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
