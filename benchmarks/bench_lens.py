"""The Korean lens at the target scale: profile + probe for 2,200 pairs at 5 levels × 4 metrics, cold.

    python benchmarks/bench_lens.py                    # 2,200 pairs (550 references × 4 systems), --jobs 2
    python benchmarks/bench_lens.py --pairs 8192 --jobs 2

Builds the benchmark data of ``benchmarks/make_data.py`` (not timed), reads it as the CLI does, then times, in this
process, what ``python -m korean_eval profile`` computes (:func:`korean_eval.lens.run.run_lens`): Kiwi's model
loaded and every distinct text analysed, the error profile / speech levels / spacing, the probe (10 kinds on every
reference, re-analysed, scored through the pipeline at levels word, mecab, kiwi, char, jamo × BLEU, chrF, chrF++,
TER) and the links to the human scores with 1,000 bootstrap resamples, with a fresh, empty cache directory. As in
``run_benchmark.py``, nothing is warm except the numba kernels' on-disk compilation cache of earlier runs (run the
script twice to have it). Prints the stage seconds (:attr:`korean_eval.lens.run.LensResult.seconds`), the wall
time, the CPU seconds of this process, the machine's load average and ``uptime`` (the machine may be shared).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import make_data  # noqa: E402
from run_benchmark import _worker_pids  # noqa: E402

from korean_eval.engine.cache import DiskCache  # noqa: E402
from korean_eval.inputs.tables import attach_human  # noqa: E402
from korean_eval.lens.run import run_lens  # noqa: E402
from korean_eval.model.config import EvalConfig  # noqa: E402
from korean_eval.model.evalset import evalset_from_texts  # noqa: E402
from tests.support.app_server import cpu_seconds  # noqa: E402

LEVELS = ("word", "mecab", "kiwi", "char", "jamo")
METRICS = ("bleu", "chrf", "chrf++", "ter")
TARGET_SECONDS = 30.0


def load(pairs: int, directory: Path):
    """The benchmark data written to ``directory`` and read back as the CLI reads it."""
    make_data.write(make_data.build(pairs), directory)
    ref = directory / "ref.txt"
    systems = sorted((directory / "systems").glob("*.txt"))
    evalset = evalset_from_texts([(ref.name, ref.read_bytes())], [(p.name, p.read_bytes()) for p in systems])
    attach_human(evalset, (directory / "human.tsv").read_bytes(), "human.tsv")
    return evalset


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "uptime unavailable; load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=2200)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        evalset = load(args.pairs, Path(tmp) / "data")
        config = EvalConfig(levels=LEVELS, metrics=METRICS, jobs=args.jobs)
        before = uptime()
        start, cpu_main = time.perf_counter(), cpu_seconds([os.getpid()])
        result = run_lens(evalset, config, cache=DiskCache(Path(tmp) / "cache"))
        wall = time.perf_counter() - start
        cpu_main = cpu_seconds([os.getpid()]) - cpu_main
        cpu_workers = cpu_seconds(_worker_pids())  # the pool was started by this run
    probe = result.probe.perturbations
    print(f"Korean lens, cold: {evalset.system_pairs():,} pairs ({evalset.n_segments:,} references × "
          f"{len(evalset.systems)} systems), probe {int(probe['applied'].sum()):,} perturbed references "
          f"({int((~probe['applied']).sum()):,} could not be perturbed) at {len(LEVELS)} levels × {len(METRICS)} metrics")
    print("| stage | seconds |\n| --- | ---: |")
    for stage, seconds in result.seconds.items():
        print(f"| {stage} | {seconds:.2f} |")
    print(f"| **wall, profile + probe + human links** | **{wall:.2f}** |")
    print(f"CPU seconds: this process {cpu_main:.1f} (all its threads), worker processes {cpu_workers:.1f}: "
          f"{(cpu_main + cpu_workers) / wall:.2f} of {os.cpu_count()} cores busy on average")
    print(f"target ≤ {TARGET_SECONDS:.0f} s: {'met' if wall <= TARGET_SECONDS else 'NOT met'}")
    print(f"uptime before: {before}")
    print(f"uptime after:  {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
