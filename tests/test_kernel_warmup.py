"""``korean-eval compile`` (:mod:`korean_eval.kernel_warmup`): after it, an evaluation compiles no kernel.

Both commands run in subprocesses with numba's cache in the test's temporary directory, started as a copy of the
session's (tests/conftest.py: itself a copy of what scripts/setup compiled, when it did; without it, ``compile``
compiles everything here, about a minute). The evaluation after ``compile`` (the sample, every metric at the levels
the warm-up uses, a rank statistic's significance tests) must load every kernel from the cache: no index or
machine-code file is added or rewritten (a warm-up without the statistics loop fails this: the Kendall tests'
kernels are then compiled by the run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from korean_eval.kernel_warmup import WARMUP_LEVELS
from korean_eval.metrics import METRIC_NAMES
from tests.helpers import ROOT

SAMPLE = ROOT / "sample_data"


def _korean_eval(numba_dir: Path, tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(numba_dir), "KOREAN_EVAL_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-m", "korean_eval", *argv], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _kernel_files(directory: Path) -> dict[str, int]:
    return {str(p.relative_to(directory)): p.stat().st_mtime_ns for p in directory.rglob("*.nb[ic]")}


def test_after_compile_an_evaluation_compiles_nothing(tmp_path) -> None:
    numba_dir = tmp_path / "numba"
    session = Path(os.environ["NUMBA_CACHE_DIR"])
    if session.is_dir():
        shutil.copytree(session, numba_dir)
    else:
        numba_dir.mkdir()
    result = _korean_eval(numba_dir, tmp_path, "compile", "--quiet")
    assert f"functions in {numba_dir}" in result.stdout
    compiled = _kernel_files(numba_dir)
    assert any(name.startswith("metrics_") and "ter_kernels." in name for name in compiled)
    assert any(name.startswith("metaeval_") for name in compiled)
    systems = [arg for path in sorted((SAMPLE / "systems").glob("*.txt")) for arg in ("--sys", f"{path.stem}={path}")]
    _korean_eval(numba_dir, tmp_path, "run", "--ref", str(SAMPLE / "ref.txt"), *systems, "--human",
                 str(SAMPLE / "human.tsv"), "--levels", ",".join(WARMUP_LEVELS), "--metrics", ",".join(METRIC_NAMES),
                 "--statistic", "kendall", "--bootstrap", "20", "--spa-permutations", "20", "--no-cache", "--quiet",
                 "--out", str(tmp_path / "out"))
    assert _kernel_files(numba_dir) == compiled
