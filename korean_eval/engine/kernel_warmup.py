"""Compile the numba kernels ahead of the first evaluation (``korean-eval compile``).

korean-eval's compiled kernels (``@njit(cache=True)`` in :mod:`korean_eval.metrics` and
:mod:`korean_eval.metaeval`) are compiled the first time each is called with a new combination of argument types,
and the machine code is kept in numba's cache directory (:func:`korean_eval.engine.cache.configure_numba_cache`). On a
fresh machine that first evaluation therefore spends most of its time compiling (benchmarks/README.md).

:func:`compile_kernels` pays that cost at install time instead. It runs the pipeline itself on a part of the bundled
sample (:func:`warmup_evalset`: its systems on the :data:`WARMUP_SEGMENTS` segments with the longest references —
the kernels' argument types do not depend on the number of segments, and the longest segments reach every
length-dependent path the sample reaches) with every metric at the word, character and jamo levels (no model is
needed for them; a kernel's argument types do not depend on the level) and then the statistics stage with every correlation
statistic, so exactly the kernels and argument types a real evaluation uses are compiled and cached. Nothing else is
kept: no token, statistic or result is written to korean-eval's own cache. ``scripts/setup`` and the Dockerfile
call it; the tests copy its cache into their temporary directory (tests/conftest.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from korean_eval.model.evalset import EvalSet

#: Levels of the warm-up evaluation: no analyser model or JVM needed, and every token shape (space-joined words,
#: single characters, jamo) the metrics' kernels see.
WARMUP_LEVELS = ("word", "char", "jamo")
#: Segments of the warm-up evaluation (the sample has 120): more than
#: :data:`korean_eval.metaeval.stats.permutation.MAX_EXACT_UNITS`, so segment-level permutations are Monte-Carlo as in an
#: evaluation of the sample; the pure-Python metrics (NIST, NLTK-BLEU, GLEU: no kernel) took most of the warm-up's
#: time on all 120.
WARMUP_SEGMENTS = 24
#: Resamples of the warm-up's bootstrap and permutation tests: the kernels' argument types do not depend on the count.
WARMUP_RESAMPLES = 20


@dataclass(frozen=True)
class CompiledKernels:
    """What :func:`compile_kernels` left behind: numba's cache directory, the number of compiled functions in it
    (index files, ``*.nbi``: one per function and source file, each holding all its compiled argument types) and
    the seconds the warm-up took."""

    directory: Path
    functions: int
    seconds: float


def warmup_evalset() -> EvalSet:
    """The bundled sample on its :data:`WARMUP_SEGMENTS` segments with the longest references (in their order)."""
    from korean_eval.inputs.sample import sample_files, sample_segments

    refs = sample_files()["ref"].read_text(encoding="utf-8").splitlines()
    longest = sorted(range(len(refs)), key=lambda i: (-len(refs[i]), i))[:WARMUP_SEGMENTS]
    return sample_segments(sorted(longest))


def compile_kernels(progress: Callable[[float, str], None] | None = None) -> CompiledKernels:
    """Evaluate :func:`warmup_evalset` with every metric at :data:`WARMUP_LEVELS`, one worker, nothing stored, then its
    statistics with each correlation statistic; every kernel called on the way is compiled into numba's cache
    directory (``$NUMBA_CACHE_DIR``, set by :func:`korean_eval.engine.cache.configure_numba_cache`), or loaded from it
    when an earlier call compiled it already."""
    from korean_eval.engine.cache import NullCache, configure_numba_cache
    from korean_eval.engine.pipeline import evaluate
    from korean_eval.engine.statistics import StatisticsSettings, statistics_tables
    from korean_eval.metrics import METRIC_NAMES
    from korean_eval.model.config import EvalConfig
    from korean_eval.model.vocabulary import STATISTICS

    start = time.perf_counter()
    directory = configure_numba_cache()
    config = EvalConfig(levels=WARMUP_LEVELS, metrics=METRIC_NAMES, jobs=1, spa_permutations=WARMUP_RESAMPLES)
    results = evaluate(warmup_evalset(), config, progress=progress, cache=NullCache())
    for statistic in STATISTICS:
        if progress is not None:
            progress(1.0, f"statistics ({statistic})")
        statistics_tables(results, StatisticsSettings(resamples=WARMUP_RESAMPLES, statistic=statistic), NullCache())
    return CompiledKernels(directory, sum(1 for _ in directory.rglob("*.nbi")), time.perf_counter() - start)
