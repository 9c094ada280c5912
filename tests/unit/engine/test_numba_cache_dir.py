"""Compiled numba kernels go to the korean-eval cache directory (``$KOREAN_EVAL_CACHE_DIR``, ``run --cache-dir``,
else the user's cache directory) or to a ``$NUMBA_CACHE_DIR`` the user set, never into the installed package, even
when numba was imported before korean_eval."""

import subprocess
import sys

import pytest

from tests.support.helpers import ROOT

KERNEL_RUN = """
import json, sys
import numpy as np
{before}
import korean_eval
import numba
from korean_eval.metrics.kernels import levenshtein
peq = levenshtein.match_masks(np.array([0, 1, 1], dtype=np.int64), 2)
print(json.dumps({{"config": numba.config.CACHE_DIR, "kernel": levenshtein.match_masks._cache._cache_path}}))
"""


def _run_kernel(tmp_path, env_extra: dict[str, str], before: str = "") -> dict:
    import json
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "KOREAN_EVAL_CACHE_DIR")}
    env.update(env_extra)
    result = subprocess.run(
        [sys.executable, "-c", KERNEL_RUN.format(before=before)], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def _package_kernel_files() -> set:
    return {(p, p.stat().st_mtime_ns) for p in (ROOT / "korean_eval").rglob("*.nb[ic]")}


def test_kernels_are_cached_under_korean_eval_cache_dir(tmp_path) -> None:
    in_package = _package_kernel_files()
    got = _run_kernel(tmp_path, {"KOREAN_EVAL_CACHE_DIR": str(tmp_path / "kc")})
    assert got["config"] == str(tmp_path / "kc" / "numba")
    assert got["kernel"].startswith(str(tmp_path / "kc" / "numba"))
    assert any((tmp_path / "kc" / "numba").rglob("levenshtein.match_masks-*.nbi"))
    assert any((tmp_path / "kc" / "numba").rglob("*.nbc"))
    assert _package_kernel_files() == in_package  # nothing new or rewritten inside the package


def test_users_numba_cache_dir_is_respected(tmp_path) -> None:
    got = _run_kernel(tmp_path, {"KOREAN_EVAL_CACHE_DIR": str(tmp_path / "kc"), "NUMBA_CACHE_DIR": str(tmp_path / "nb")})
    assert got["config"] == str(tmp_path / "nb") and got["kernel"].startswith(str(tmp_path / "nb"))
    assert any((tmp_path / "nb").rglob("*.nbi")) and not (tmp_path / "kc" / "numba").exists()


def test_numba_imported_before_korean_eval_still_uses_the_cache_dir(tmp_path) -> None:
    got = _run_kernel(tmp_path, {"KOREAN_EVAL_CACHE_DIR": str(tmp_path / "kc")}, before="import numba")
    assert got["config"] == str(tmp_path / "kc" / "numba")
    assert got["kernel"].startswith(str(tmp_path / "kc" / "numba"))
    assert any((tmp_path / "kc" / "numba").rglob("*.nbi"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="platformdirs follows XDG_CACHE_HOME on Linux")
def test_default_is_the_user_cache_dir(tmp_path) -> None:
    got = _run_kernel(tmp_path, {"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert got["config"] == str(tmp_path / "xdg" / "korean-eval" / "numba")
    assert any((tmp_path / "xdg" / "korean-eval" / "numba").rglob("*.nbi"))


CLI_RUN = """
import sys
from korean_eval.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_run_cache_dir_moves_the_kernels_too(tmp_path) -> None:
    import os

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "ref.txt").write_text("가나다 라마\n바사 아자차\n", encoding="utf-8")
    (folder / "a.txt").write_text("가나 라마\n바사 아자\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "KOREAN_EVAL_CACHE_DIR")}
    env["KOREAN_EVAL_CACHE_DIR"] = str(tmp_path / "env-cache")
    argv = ["run", "--ref", str(folder / "ref.txt"), "--sys", str(folder / "a.txt"), "--levels", "char",
            "--metrics", "eed", "--bootstrap", "0", "--spa-permutations", "0", "--quiet", "--jobs", "1",
            "--cache-dir", str(tmp_path / "cli-cache"), "--out", str(tmp_path / "out")]
    result = subprocess.run([sys.executable, "-c", CLI_RUN, *argv], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    kernels = tmp_path / "cli-cache" / "numba"
    assert any(kernels.rglob("eed.*.nbi")) and any(kernels.rglob("*.nbc"))
    assert (tmp_path / "cli-cache").glob("*.sqlite*")
    # no kernel and no cache file at the old place (numba creates its directories when the kernels are decorated)
    assert not [p for p in (tmp_path / "env-cache").rglob("*") if p.is_file()]
