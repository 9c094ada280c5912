#!/usr/bin/env python3
"""How the engine scales with the workers it is given: the WMT-shaped grid at ``--jobs 1, 2, 4, …`` up to the
machine's cores and on a Dask ``LocalCluster`` with as many workers, cold, each table checked byte-identical.

    python benchmarks/bench_scaling.py                                    # 24 × 2,000, jobs 1 … cores, Dask
    python benchmarks/bench_scaling.py --systems 8 --segments 1000 --jobs 2 --no-dask
    python benchmarks/bench_scaling.py --levels word,mecab,char,jamo     # without Kiwi (e.g. a lent machine)

Each run is ``python -m korean_eval run`` in a fresh process with a fresh cache on the set built by
``benchmarks/make_data.py --wmt`` (levels × BLEU, chrF, chrF++, TER, ``--bootstrap`` resamples). A sampler reads
``/proc`` every 50 ms: the caller's and every worker's CPU seconds (utime + stime, last reading of each process)
and resident memory (peak of the caller, peak of the largest worker, peak of their sum). Printed per run: wall,
CPU of the caller and of the workers, the caller's share of the tree's CPU, peak memory, the speedup over the
previous job count (per doubling) and over ``--jobs 2``; then each figure beside its target, met or not. With Dask
the workers are the cluster's processes (started here; its scheduler runs in this process and is not counted).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
METRICS = "bleu,chrf,chrf++,ter"
TABLES = ("segment_scores.csv", "system_scores.csv", "correlations.csv", "rankings.csv", "significance.csv",
          "clusters.csv", "system_pairs.csv")
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def _stat(pid: int) -> tuple[int, float, int] | None:
    """(parent pid, CPU seconds, resident bytes) of ``pid`` from /proc, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, int(fields[21]) * PAGE


class TreeSampler(threading.Thread):
    """Every process below this one (``caller``: the evaluating process; every other one counts as a worker): CPU
    seconds since the sampler started (last reading of each process) and peak resident memory."""

    def __init__(self, caller: int, interval: float = 0.05):
        super().__init__(daemon=True)
        self.caller, self.interval = caller, interval
        self.cpu: dict[int, float] = {}
        self.peak: dict[int, int] = {}
        self.peak_sum_workers = 0
        self.stop_event = threading.Event()
        self.baseline = {pid: info[1] for pid in self._descendants() if (info := _stat(pid)) is not None}

    def _descendants(self) -> list[int]:
        me = os.getpid()
        parents: dict[int, int] = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                info = _stat(int(name))
                if info is not None:
                    parents[int(name)] = info[0]
        out, frontier = [], [me]
        while frontier:
            kids = [p for p, pp in parents.items() if pp in frontier]
            out += kids
            frontier = kids
        return out

    def run(self) -> None:
        while not self.stop_event.is_set():
            total = 0
            for pid in self._descendants():
                info = _stat(pid)
                if info is None:
                    continue
                self.cpu[pid] = info[1]
                self.peak[pid] = max(self.peak.get(pid, 0), info[2])
                if pid != self.caller:
                    total += info[2]
            self.peak_sum_workers = max(self.peak_sum_workers, total)
            self.stop_event.wait(self.interval)

    def stop(self) -> dict:
        self.stop_event.set()
        self.join()
        used = {p: c - self.baseline.get(p, 0.0) for p, c in self.cpu.items()}
        workers = {p: c for p, c in used.items() if p != self.caller}
        return {
            "caller_cpu": used.get(self.caller, 0.0),
            "workers_cpu": sum(workers.values()),
            "caller_mb": self.peak.get(self.caller, 0) / 2**20,
            "worker_mb": max((m for p, m in self.peak.items() if p != self.caller), default=0) / 2**20,
            "workers_mb": self.peak_sum_workers / 2**20,
        }


def ensure_data(out: Path, systems: int, segments: int) -> Path:
    if not (out / "ref.txt").exists():
        print(f"building the WMT-shaped set ({systems} × {segments}) in {out} …", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, str(HERE / "make_data.py"), "--wmt", "--systems", str(systems),
                        "--segments", str(segments), "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    return out


def one_run(data: Path, tmp: Path, label: str, levels: str, bootstrap: int, jobs: int | None,
            scheduler: str | None = None) -> dict:
    """One cold ``korean-eval run`` in a new process; its figures and the digests of its tables."""
    out, cache = tmp / f"out-{label}", tmp / f"cache-{label}"
    args = [sys.executable, "-m", "korean_eval", "run", "--ref", str(data / "ref.txt"), "--sys-dir",
            str(data / "systems"), "--human", str(data / "human.tsv"), "--levels", levels, "--metrics", METRICS,
            "--bootstrap", str(bootstrap), "--cache-dir", str(cache), "--out", str(out), "--quiet"]
    args += ["--scheduler", scheduler] if scheduler else ["--jobs", str(jobs)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(
        ROOT / ".venv" / "numba-kernels"))}
    start = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sampler = TreeSampler(proc.pid)
    sampler.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - start
    figures = sampler.stop()
    if proc.returncode != 0:
        raise RuntimeError(f"{label} failed ({proc.returncode}):\n{err[-3000:]}")
    digests = {t: hashlib.sha256((out / t).read_bytes()).hexdigest() for t in TABLES if (out / t).exists()}
    cpu = figures["caller_cpu"] + figures["workers_cpu"]
    return {"label": label, "jobs": jobs, "wall": wall, **figures, "share": figures["caller_cpu"] / cpu if cpu else 0,
            "digests": digests}


def dask_run(data: Path, tmp: Path, workers: int, levels: str, bootstrap: int) -> dict:
    """One cold run on a Dask ``LocalCluster`` of ``workers`` processes (one thread each), started here."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as cluster:
        return one_run(data, tmp, f"dask{workers}", levels, bootstrap, None, cluster.scheduler_address)


def table(runs: list[dict]) -> str:
    base = next((r for r in runs if r["jobs"] == 2), runs[0])
    lines = ["| run | wall s | caller CPU s | workers CPU s | caller share | peak caller MB | peak worker MB | "
             "peak workers MB | speedup vs previous | speedup vs jobs 2 | tables = jobs 1 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    first, prev = runs[0], None
    for r in runs:
        step = f"{prev['wall'] / r['wall']:.2f}×" if prev is not None and r["jobs"] else "–"
        same = "yes" if r["digests"] == first["digests"] else "NO"
        lines.append(f"| {r['label']} | {r['wall']:.1f} | {r['caller_cpu']:.1f} | {r['workers_cpu']:.1f} | "
                     f"{100 * r['share']:.1f} % | {r['caller_mb']:.0f} | {r['worker_mb']:.0f} | {r['workers_mb']:.0f} | "
                     f"{step} | {base['wall'] / r['wall']:.2f}× | {same} |")
        if r["jobs"]:
            prev = r
    return "\n".join(lines)


def targets(runs: list[dict], cores: int) -> list[str]:
    by_jobs = {r["jobs"]: r for r in runs if r["jobs"]}
    out = []
    if 2 in by_jobs:
        share = by_jobs[2]["share"]
        out.append(f"caller's CPU share at --jobs 2: {100 * share:.1f} % (target ≤ 10 % on the full set, ≤ 15 % on "
                   f"8 × 1,000): {'met' if share <= 0.10 else 'met for the subset' if share <= 0.15 else 'NOT met'}")
    if 2 in by_jobs and cores in by_jobs and cores >= 16:
        ratio = by_jobs[2]["wall"] / by_jobs[cores]["wall"]
        out.append(f"--jobs {cores} vs --jobs 2: {ratio:.2f}× (target ≥ 6×): {'met' if ratio >= 6 else 'NOT met'}")
    dask = [r for r in runs if not r["jobs"]]
    if dask and cores in by_jobs:
        gap = dask[0]["wall"] / by_jobs[cores]["wall"] - 1
        out.append(f"Dask {dask[0]['label']} vs --jobs {cores}: {100 * gap:+.0f} % wall (target within 15 %): "
                   f"{'met' if gap <= 0.15 else 'NOT met'}")
    for r in runs:
        n = r["jobs"] or int(r["label"].removeprefix("dask"))
        limit = 1536 + 410 * n
        total = r["caller_mb"] + r["workers_mb"]
        out.append(f"peak memory {r['label']}: {total:.0f} MB (target ≤ 1.5 GB + 0.4 GB × {n} = {limit} MB): "
                   f"{'met' if total <= limit else 'NOT met'}")
    same = all(r["digests"] == runs[0]["digests"] for r in runs)
    out.append(f"byte-identical tables across every run: {'yes' if same else 'NO'}")
    return out


def main(argv: list[str] | None = None) -> int:
    cores = len(os.sched_getaffinity(0))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--systems", type=int, default=24)
    p.add_argument("--segments", type=int, default=2000)
    p.add_argument("--levels", default="word,mecab,kiwi,char,jamo")
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--jobs", default=None, help="comma-separated job counts (default 1, 2, 4, … up to the cores)")
    p.add_argument("--no-dask", action="store_true")
    p.add_argument("--data", type=Path, default=None, help="the WMT-shaped folder (built when missing)")
    args = p.parse_args(argv)
    counts = [int(j) for j in args.jobs.split(",")] if args.jobs else sorted(
        {1, *(2**k for k in range(1, 8) if 2**k <= cores), cores})
    data = ensure_data(args.data or HERE / "results" / f"data_wmt_{args.systems}x{args.segments}", args.systems,
                       args.segments)
    print(f"machine: {cores} cores, {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.2f}; "
          f"set {args.systems} × {args.segments}, levels {args.levels}, metrics {METRICS}, bootstrap {args.bootstrap}",
          flush=True)
    runs = []
    with tempfile.TemporaryDirectory(prefix="ke-scaling-") as tmp:
        for jobs in counts:
            runs.append(one_run(data, Path(tmp), f"jobs{jobs}", args.levels, args.bootstrap, jobs))
            print(f"  {runs[-1]['label']}: {runs[-1]['wall']:.1f} s", file=sys.stderr, flush=True)
        if not args.no_dask:
            runs.append(dask_run(data, Path(tmp), max(counts), args.levels, args.bootstrap))
            print(f"  {runs[-1]['label']}: {runs[-1]['wall']:.1f} s", file=sys.stderr, flush=True)
    print(table(runs))
    print()
    print("\n".join(targets(runs, cores)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
