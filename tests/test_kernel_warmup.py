"""``korean-eval compile`` (:mod:`korean_eval.kernel_warmup`): it compiles every kernel, with every argument type, that
an evaluation calls.

Checked without depending on what numba's cache already holds (the tests start from a copy of the kernels
scripts/setup compiled, so a warm-up that compiled nothing would leave nothing to find there): two fresh processes,
one running :func:`~korean_eval.kernel_warmup.compile_kernels`, the other an evaluation through the CLI (the
sample's first :data:`SEGMENTS` segments, every metric at the levels the warm-up uses, a rank statistic's bootstrap
and significance tests, one worker), each list the argument types every numba kernel of :mod:`korean_eval` holds at
its end (``Dispatcher.signatures``: those compiled or loaded from the cache in that process). The evaluation's must
be a subset of the warm-up's: on an empty cache the evaluation would then compile nothing. A warm-up without its
statistics loop fails this (the statistics' kernels are then used by the run only), as does one without a metric
(EED left out: its kernel is missing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from korean_eval.kernel_warmup import WARMUP_LEVELS
from korean_eval.metrics import METRIC_NAMES
from tests.helpers import ROOT, write_head_of_sample

#: Segments of the evaluation: the sample's first 60 of 120, every system (300 pairs). They hold its longest
#: segment and 14 of the 24 the warm-up evaluates (kernel_warmup.warmup_evalset), and more than MAX_EXACT_UNITS
#: (Monte-Carlo permutations, as on the whole sample); the kernels' argument types do not depend on the count (a
#: warm-up on the 24 shortest segments passes this test on the whole sample too). The whole sample cost this test
#: 1.2 CPU-s more (11.5 against 10.3; the pure-Python metrics, NIST most).
SEGMENTS = 60

#: Run in a fresh process: ``sys.argv[1]`` is where to write the kernels' signatures; the rest is the work.
_SIGNATURES_AFTER = """
import json, sys
from numba.core.registry import CPUDispatcher

out_path, what, *argv = sys.argv[1:]
if what == "compile":
    from korean_eval.kernel_warmup import compile_kernels
    compile_kernels()
else:
    from korean_eval.cli import main
    assert main([what, *argv]) == 0
used = {}
for name, module in list(sys.modules.items()):
    if name.startswith("korean_eval"):
        for obj in vars(module).values():
            if isinstance(obj, CPUDispatcher) and obj.signatures:
                used[f"{obj.py_func.__module__}.{obj.py_func.__qualname__}"] = sorted(map(str, obj.signatures))
with open(out_path, "w") as handle:
    json.dump(used, handle)
"""


def _kernels_used(tmp_path: Path, *argv: str) -> dict[str, set[str]]:
    """Each kernel's argument types after ``argv`` ran in a fresh process (numba's cache: the session's)."""
    out = tmp_path / f"{argv[0]}.json"
    env = {**os.environ, "KOREAN_EVAL_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", _SIGNATURES_AFTER, str(out), *argv], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return {kernel: set(types) for kernel, types in json.loads(out.read_text()).items()}


def test_compile_covers_every_kernel_an_evaluation_calls(tmp_path) -> None:
    warmed = _kernels_used(tmp_path, "compile")
    data = write_head_of_sample(tmp_path / "input", SEGMENTS)
    used = _kernels_used(
        tmp_path, "run", *data, "--human", str(tmp_path / "input" / "human.tsv"),
        "--levels", ",".join(WARMUP_LEVELS), "--metrics", ",".join(METRIC_NAMES), "--statistic", "kendall",
        "--bootstrap", "20", "--spa-permutations", "20", "--jobs", "1", "--no-cache", "--quiet",
        "--out", str(tmp_path / "out"))
    for kernels in (warmed, used):  # the metrics' kernels and the statistics' (each entry point: callees inlined)
        assert any(".ter_kernels." in k for k in kernels) and any(".metaeval.kernels." in k for k in kernels)
    missing = {kernel: sorted(types - warmed.get(kernel, set())) for kernel, types in used.items()}
    assert not {kernel: types for kernel, types in missing.items() if types}
