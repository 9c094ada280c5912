"""Tests write nothing into the user's home directory (issue: a 31 MB ``~/.cache/korean-eval`` appeared).

tests/conftest.py points korean-eval's cache, numba's compiled kernels, ``XDG_CACHE_HOME`` and the Hypothesis
database at a temporary directory. Here a pipeline that touches every kind of library that could write a cache —
Kiwi's model, KoNLPy's JVM (Hannanum, when Java is there), SentencePiece training, numba's TER kernels, the
persistent cache — runs in a subprocess with the tests' environment and ``HOME`` pointed at an empty directory,
which must stay empty. The second test shows that the check can fail: without the tests' settings the same CLI
writes its cache under ``HOME`` (platformdirs' user cache directory).

Both runs read the first :data:`LINES` lines of two of the sample's systems (:func:`tests.helpers.write_head_of_sample`): every library
is loaded and used whatever the number of lines, and what a library writes does not depend on it. Of KoNLPy's
analyzers Hannanum is the one whose JVM start and dictionaries cost least (1.2 s of CPU for a process analysing one
sentence, Okt 3.0 s, Komoran 2.7 s): the JVM, which all four share, is what could write. The second run keeps
numba's kernel directory (``NUMBA_CACHE_DIR``): without it numba compiles its kernels again, into ``HOME`` too
(2 s of CPU), which the check there does not look at — it reads korean-eval's own cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from korean_eval.levels.registry import available_levels
from tests.helpers import write_head_of_sample

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = ("sys_weak", "sys_strong")
LINES = 20  # segments of the runs (module docstring)


def _run_cli(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    argv = ["run", *write_head_of_sample(tmp_path / "input", LINES, SYSTEMS), "--quiet", "--out", str(tmp_path / "out"), *args]
    env = {**env, "PYTHONPATH": str(ROOT)}  # the checkout's package, run from tmp_path (relative writes land there)
    return subprocess.run([sys.executable, "-m", "korean_eval", *argv], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=900)


def _files_under(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


@pytest.mark.slow
def test_a_pipeline_with_the_test_settings_writes_nothing_under_home(tmp_path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    levels = [lv for lv in ("word", "kiwi", "hannanum", "spm", "jamo") if lv in available_levels()]
    env = {**os.environ, "HOME": str(home)}
    result = _run_cli(tmp_path, env, "--levels", ",".join(levels), "--metrics", "bleu,chrf,ter",
                      "--bootstrap", "10", "--spa-permutations", "0")
    assert result.returncode == 0, result.stderr[-3000:]
    assert _files_under(home) == []
    # where the writes went instead (tests/conftest.py)
    assert (Path(os.environ["KOREAN_EVAL_CACHE_DIR"]) / "cache-v1.sqlite").is_file()
    assert any(Path(os.environ["NUMBA_CACHE_DIR"]).rglob("ter_shift.*.nbi"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="platformdirs follows HOME/XDG_CACHE_HOME on Linux")
def test_without_the_test_settings_the_cache_goes_under_home(tmp_path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("KOREAN_EVAL_CACHE_DIR", "XDG_CACHE_HOME")}
    env["HOME"] = str(home)
    result = _run_cli(tmp_path, env, "--levels", "word", "--metrics", "bleu", "--bootstrap", "0",
                      "--spa-permutations", "0")
    assert result.returncode == 0, result.stderr[-3000:]
    assert ".cache/korean-eval/cache-v1.sqlite" in _files_under(home)
