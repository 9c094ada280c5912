"""``korean-eval compile`` (:mod:`korean_eval.engine.kernel_warmup`): it compiles every kernel, with every argument type, that
an evaluation calls.

Checked without depending on what numba's cache already holds (the tests start from a copy of the kernels
scripts/setup compiled, so a warm-up that compiled nothing would leave nothing to find there): a fresh process runs
:func:`~korean_eval.engine.kernel_warmup.compile_kernels` and lists the argument types every numba kernel of
:mod:`korean_eval` then holds (``Dispatcher.signatures``: those compiled or loaded from the cache in that process);
then it forgets them (every kernel as in a new process, which loads each argument type from the cache or compiles
it) and runs an evaluation through the CLI (the sample's first :data:`SEGMENTS` segments, every metric at the levels
the warm-up uses, a rank statistic's bootstrap and significance tests, one worker), and lists them again. The
evaluation's must be a subset of the warm-up's: on an empty cache the evaluation would then compile nothing. A
warm-up without its statistics loop fails this (the statistics' kernels are then used by the run only), as does one
without a metric (EED left out: its kernel is missing). One process instead of one for each saves the second one's
start and imports (10.3-11.0 CPU-s for this test with two, 8.3-8.7 with one, on a quiet machine).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from korean_eval.engine.kernel_warmup import WARMUP_LEVELS
from korean_eval.metrics import METRIC_NAMES
from tests.support.helpers import ROOT, write_head_of_sample

#: Segments of the evaluation: the sample's first 60 of 120, every system (300 pairs). They hold its longest
#: segment and 14 of the 24 the warm-up evaluates (kernel_warmup.warmup_evalset), and more than MAX_EXACT_UNITS
#: (Monte-Carlo permutations, as on the whole sample); the kernels' argument types do not depend on the count (a
#: warm-up on the 24 shortest segments passes this test on the whole sample too). The whole sample cost the
#: evaluation's process 1.2 CPU-s more (the pure-Python metrics, NIST most).
SEGMENTS = 60

#: Run in a fresh process: the warm-up, then the evaluation ``sys.argv[2:]`` (the CLI's arguments) with every kernel
#: as a fresh process has it (``Dispatcher._reset_overloads``: no compiled argument types in memory, each call loads
#: its types from numba's cache or compiles them, exactly as in a new process); writes to ``sys.argv[1]`` the
#: argument types every numba kernel of korean_eval holds after each of the two.
_SIGNATURES_AFTER = """
import json, sys
from numba.core.registry import CPUDispatcher
from korean_eval.cli.main import main
from korean_eval.engine.kernel_warmup import compile_kernels

def kernels():
    for name, module in list(sys.modules.items()):
        if name.startswith("korean_eval"):
            for obj in vars(module).values():
                if isinstance(obj, CPUDispatcher):
                    yield f"{obj.py_func.__module__}.{obj.py_func.__qualname__}", obj

def signatures():
    return {name: sorted(map(str, obj.signatures)) for name, obj in kernels() if obj.signatures}

out_path, *argv = sys.argv[1:]
compile_kernels()
warmed = signatures()
for _, kernel in kernels():
    kernel._reset_overloads()
assert not signatures()
assert main(argv) == 0
with open(out_path, "w") as handle:
    json.dump({"compile": warmed, "run": signatures()}, handle)
"""


def _kernels_used(tmp_path: Path, *argv: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Each kernel's argument types after the warm-up and after the evaluation ``argv`` (numba's cache: the
    session's)."""
    out = tmp_path / "kernels.json"
    env = {**os.environ, "KOREAN_EVAL_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", _SIGNATURES_AFTER, str(out), *argv], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(out.read_text())
    return tuple({kernel: set(types) for kernel, types in found[part].items()} for part in ("compile", "run"))


def test_compile_covers_every_kernel_an_evaluation_calls(tmp_path) -> None:
    data = write_head_of_sample(tmp_path / "input", SEGMENTS)
    warmed, used = _kernels_used(
        tmp_path, "run", *data, "--human", str(tmp_path / "input" / "human.tsv"),
        "--levels", ",".join(WARMUP_LEVELS), "--metrics", ",".join(METRIC_NAMES), "--statistic", "kendall",
        "--bootstrap", "20", "--spa-permutations", "20", "--jobs", "1", "--no-cache", "--quiet",
        "--out", str(tmp_path / "out"))
    for kernels in (warmed, used):  # the metrics' kernels and the statistics' (each entry point: callees inlined)
        assert any(".kernels.ter_shift." in k for k in kernels) and any(".metaeval.stats.kernels." in k for k in kernels)
    missing = {kernel: sorted(types - warmed.get(kernel, set())) for kernel, types in used.items()}
    assert not {kernel: types for kernel, types in missing.items() if types}
