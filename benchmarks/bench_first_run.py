"""A new user's first run and later runs of ``korean-eval run`` on 6 sentences, in CPU seconds of the process tree.

    python benchmarks/bench_first_run.py              # the runs below, printed beside their targets
    python benchmarks/bench_first_run.py --kernels    # compile seconds per kernel module (KERNEL_COMPILE_SECONDS)

Each scenario starts in a fresh temporary directory holding ``$NUMBA_CACHE_DIR`` and ``$KOREAN_EVAL_CACHE_DIR``: no
compiled kernel, no stored token, statistic or result, as on a new user's machine. It runs
``python -m korean_eval run --ref R --sys A=… --sys B=…`` on the first 6 lines of the bundled sample's reference and
of two of its systems (default levels and metrics, ``--quiet``) three times:

1. the first run (numba compiles the kernels the run needs; the run says so on stderr, with its estimate);
2. a later run of the same command (its result is stored: loaded);
3. a later run with ``--no-cache`` (kernels cached; tokens, statistics and results computed again).

The scenario "with human scores" adds ``--human`` (the sample's scores of those segments), so that the statistics
stage runs (and its kernels are compiled) too. CPU time: ``resource.getrusage(RUSAGE_CHILDREN)`` before and after
each process, which counts the process and every child it waited for (a run this small starts no worker pool).
Targets: first run ≤ 45 CPU-s, later runs ≤ 10 CPU-s. The machine may be shared: its load average is printed.

``--kernels`` compiles every kernel as ``korean-eval compile`` does, in this process, into a fresh cache, and prints
the CPU seconds of numba's compilations per module (a kernel compiled while another is, e.g. the Levenshtein
kernels inside TER's shift search, counted with the outermost): the figures of
:data:`korean_eval.engine.kernel_warmup.KERNEL_COMPILE_SECONDS`.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data"
SEGMENTS = 6
SYSTEMS = ("sys_strong", "sys_weak")
FIRST_TARGET, LATER_TARGET = 45.0, 10.0


def write_inputs(directory: Path, with_human: bool) -> list[str]:
    """The first :data:`SEGMENTS` lines of the sample's reference and :data:`SYSTEMS` in ``directory``; the ``run``
    arguments that read them (as ``A=…``, ``B=…``) and, ``with_human``, their human scores."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = (SAMPLE / "ref.txt").read_text(encoding="utf-8").splitlines()[:SEGMENTS]
    (directory / "ref.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["--ref", str(directory / "ref.txt")]
    for label, name in zip("AB", SYSTEMS, strict=True):
        lines = (SAMPLE / "systems" / f"{name}.txt").read_text(encoding="utf-8").splitlines()[:SEGMENTS]
        (directory / f"{label}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        args += ["--sys", f"{label}={directory / f'{label}.txt'}"]
    if with_human:
        rows = (SAMPLE / "human.tsv").read_text(encoding="utf-8").splitlines()
        kept = [rows[0]]
        for row in rows[1:]:
            system, seg_id, score = row.split("\t")
            if system in SYSTEMS and int(seg_id) < SEGMENTS:
                kept.append(f"{'AB'[SYSTEMS.index(system)]}\t{seg_id}\t{score}")
        (directory / "human.tsv").write_text("\n".join(kept) + "\n", encoding="utf-8")
        args += ["--human", str(directory / "human.tsv")]
    return args


def timed_run(args: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(CPU seconds of the process tree, wall seconds, stderr) of one ``python -m korean_eval run``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "korean_eval", "run", *args, "--quiet"], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"run failed ({done.returncode}):\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stderr


def scenario(name: str, with_human: bool) -> list[str]:
    """The three runs of one scenario in a fresh directory, as table rows."""
    with tempfile.TemporaryDirectory(prefix="bench-first-run-") as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": f"{tmp}/numba", "KOREAN_EVAL_CACHE_DIR": f"{tmp}/cache"}
        args = write_inputs(Path(tmp) / "data", with_human)
        first = timed_run(args, env)
        later = timed_run(args, env)
        computed = timed_run([*args, "--no-cache"], env)
    notice = next((line for line in first[2].splitlines() if line.startswith("compiling the numba kernels")), "none")
    again = [line for run in (later, computed) for line in run[2].splitlines() if "compiling the numba" in line]
    rows = [
        f"| {name}: first run | {first[0]:.1f} | {first[1]:.1f} | ≤ {FIRST_TARGET:.0f} | {_ok(first[0], FIRST_TARGET)} |",
        f"| {name}: later run (stored result) | {later[0]:.1f} | {later[1]:.1f} | ≤ {LATER_TARGET:.0f} | "
        f"{_ok(later[0], LATER_TARGET)} |",
        f"| {name}: later run, --no-cache (computed) | {computed[0]:.1f} | {computed[1]:.1f} | ≤ {LATER_TARGET:.0f} | "
        f"{_ok(computed[0], LATER_TARGET)} |",
    ]
    notes = [f"{name}: the first run said: {notice!r}; compilation ≈ first − computed = "
             f"{first[0] - computed[0]:.1f} CPU-s; later runs said it again: {'yes' if again else 'no'}"]
    return rows + notes


def _ok(value: float, target: float) -> str:
    return "yes" if value <= target else "NO"


def kernel_seconds() -> None:
    """Print the compile CPU seconds per kernel module of :func:`~korean_eval.engine.kernel_warmup.compile_kernels`
    into a fresh cache (numba's ``numba:compile`` events)."""
    tmp = tempfile.mkdtemp(prefix="bench-kernels-")
    os.environ.update(NUMBA_CACHE_DIR=f"{tmp}/numba", KOREAN_EVAL_CACHE_DIR=f"{tmp}/cache")
    sys.path.insert(0, str(ROOT))
    from numba.core import event

    import korean_eval  # noqa: F401  (its import sets up the cache directories)

    seconds: collections.Counter[str] = collections.Counter()
    stack: list[list] = []  # [module of the outermost kernel being compiled, CPU time when it last resumed]

    class Recorder(event.Listener):
        def on_start(self, ev) -> None:
            now = time.process_time()
            if stack:
                seconds[stack[-1][0]] += now - stack[-1][1]
            module = stack[-1][0] if stack else ev.data["dispatcher"].py_func.__module__
            stack.append([module, now])

        def on_end(self, ev) -> None:
            now = time.process_time()
            module, resumed = stack.pop()
            seconds[module] += now - resumed
            if stack:
                stack[-1][1] = now

    event.register("numba:compile", Recorder())
    from korean_eval.engine.kernel_warmup import compile_kernels

    start = time.process_time()
    done = compile_kernels()
    total = time.process_time() - start
    print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| module | compile CPU-s |\n| --- | ---: |")
    for module, value in sorted(seconds.items()):
        print(f"| {module} | {value:.1f} |")
    print(f"compilation {sum(seconds.values()):.1f} CPU-s of the warm-up's {total:.1f}; {done.functions} functions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", action="store_true", help="compile seconds per kernel module instead")
    args = parser.parse_args()
    if args.kernels:
        kernel_seconds()
        return
    print(f"load average at start {', '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    rows: list[str] = []
    notes: list[str] = []
    for name, with_human in (("6 sentences, 2 systems", False), ("with human scores", True)):
        out = scenario(name, with_human)
        rows += out[:3]
        notes += out[3:]
    print("| run | CPU-s (process tree) | wall s | target CPU-s | met |\n| --- | ---: | ---: | ---: | --- |")
    print("\n".join(rows))
    print("\n".join(notes))
    print(f"load average at end {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
