"""A run says once that it compiles numba kernels, and compiles only the kernels its metrics and statistics call.

The runs start ``python -m korean_eval run`` with an empty numba cache of their own (``$NUMBA_CACHE_DIR`` in
``tmp_path``), as on a new user's machine; the kernels compiled are read back from that cache (numba's index files,
``<module>.<kernel>-<line>.py3XX.nbi``).
"""

from __future__ import annotations

import os
import subprocess
import sys

from korean_eval.engine.kernel_warmup import (
    KERNEL_COMPILE_SECONDS,
    RANKING_KERNELS,
    RESAMPLING_KERNELS,
    STATISTICS_KERNELS,
    first_run_notice,
    kernels_needed,
)
from korean_eval.metrics import METRIC_NAMES, declaration
from tests.support.helpers import ROOT, write_head_of_sample

NOTICE = "compiling the numba kernels once (about {} s); later runs load them"


def _run(args: list[str], tmp_path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "KOREAN_EVAL_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "korean_eval", "run", *args, "--quiet"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def _compiled_modules(tmp_path) -> set[str]:
    """The last part of the module name of every kernel in the run's numba cache (``ngram``, ``kernels``, …)."""
    return {p.name.split(".")[0] for p in (tmp_path / "numba").rglob("*.nbi")}


def test_a_bleu_and_chrf_run_compiles_their_kernels_and_the_statistics_only_and_says_so_once(tmp_path):
    args = write_head_of_sample(tmp_path / "data", 6, ("sys_strong", "sys_weak"))
    args += ["--levels", "word,char", "--metrics", "bleu,chrf", "--bootstrap", "20", "--spa-permutations", "0"]
    first = _run(args, tmp_path)
    expected = round(KERNEL_COMPILE_SECONDS["korean_eval.metrics.kernels.ngram"]
                     + sum(KERNEL_COMPILE_SECONDS[m] for m in (*STATISTICS_KERNELS, *RESAMPLING_KERNELS)))
    said = [line for line in first.stderr.splitlines() if "numba" in line]
    assert said == [NOTICE.format(expected)]
    # no TER, CharacTER, EED, RIBES; the accuracies' bootstrap (acc_eq's intervals) with the statistics' kernels
    assert _compiled_modules(tmp_path) == {"ngram", "kernels", "tie_calibrated", "accuracy_resampling"}
    again = _run([*args, "--no-cache"], tmp_path)  # everything computed again but the kernels
    assert "numba" not in again.stderr


def test_a_run_without_resamples_compiles_the_tie_calibrated_accuracy_only_of_the_statistics(tmp_path):
    args = write_head_of_sample(tmp_path / "data", 3, ("sys_strong",))
    args += ["--levels", "char", "--metrics", "bleu", "--bootstrap", "0"]
    first = _run(args, tmp_path)
    assert [line for line in first.stderr.splitlines() if "numba" in line] == [NOTICE.format(2)]
    assert _compiled_modules(tmp_path) == {"ngram", "tie_calibrated"}
    assert "numba" not in _run([*args, "--no-cache"], tmp_path).stderr


def test_a_run_without_human_scores_compiles_only_the_ranking_check_s_statistics_kernel(tmp_path):
    args = write_head_of_sample(tmp_path / "data", 2, ("sys_strong", "sys_weak"))
    args = args[: args.index("--human")] + ["--levels", "char", "--metrics", "chrf"]
    first = _run(args, tmp_path)
    expected = round(KERNEL_COMPILE_SECONDS["korean_eval.metrics.kernels.ngram"]
                     + sum(KERNEL_COMPILE_SECONDS[m] for m in RANKING_KERNELS))
    assert [line for line in first.stderr.splitlines() if "numba" in line] == [NOTICE.format(expected)]
    assert _compiled_modules(tmp_path) == {"ngram", "kernels"}


def test_kernels_needed():
    ngram, stats = "korean_eval.metrics.kernels.ngram", (*STATISTICS_KERNELS, *RESAMPLING_KERNELS)
    assert kernels_needed(["bleu", "chrf", "chrf++"], statistics=False, ranking=False) == (ngram,)
    assert kernels_needed(["bleu", "chrf"], statistics=False) == (ngram, *RANKING_KERNELS)
    assert kernels_needed(["bleu", "ter"], "sacrebleu", statistics=True) == (ngram, *stats)
    assert kernels_needed(["bleu"], statistics=True, resampling=False) == (ngram, *STATISTICS_KERNELS)
    assert kernels_needed(["nltk-bleu", "gleu", "nist"], statistics=False, ranking=False) == ()
    ter = kernels_needed(["ter"], statistics=False, ranking=False)
    assert ter[0] == "korean_eval.metrics.kernels.ter_shift" and "korean_eval.metrics.kernels.levenshtein" in ter


def test_every_declared_kernel_module_has_a_measured_compile_time():
    """Each metric with kernels (and the statistics) has its outermost module's seconds measured."""
    for name in METRIC_NAMES:
        kernels = declaration(name).kernels
        assert not kernels or kernels[0] in KERNEL_COMPILE_SECONDS, name
    assert all(m in KERNEL_COMPILE_SECONDS for m in (*STATISTICS_KERNELS, *RESAMPLING_KERNELS))


def test_no_notice_when_the_kernels_are_cached():
    """The test session's numba cache holds the kernels ``korean-eval compile`` compiled (tests/conftest.py)."""
    from tests.conftest import KERNELS_FROM_SETUP

    if KERNELS_FROM_SETUP.is_dir():
        assert first_run_notice(["bleu", "chrf", "ter"], statistics=True) is None
