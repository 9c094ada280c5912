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
from collections.abc import Callable, Sequence
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


#: The module of the statistics stage's kernel every run with human scores calls (the tie-calibrated accuracy).
STATISTICS_KERNELS = ("korean_eval.metaeval.stats.tie_calibrated",)
#: The module of the kernels of the bootstrap intervals and permutation tests (weighted correlations): called when
#: the statistics resample (``--bootstrap`` > 0).
RESAMPLING_KERNELS = ("korean_eval.metaeval.stats.kernels", "korean_eval.metaeval.stats.accuracy_resampling")
#: The module of the kernels the ranking check calls (resampled system scores): with bootstrap resamples and two
#: systems or more, human scores or not.
RANKING_KERNELS = ("korean_eval.metaeval.stats.kernels",)
#: CPU seconds numba took to compile each module's kernels into an empty cache, measured by
#: ``python benchmarks/bench_first_run.py --kernels`` (the warm-up of :func:`compile_kernels`; a kernel compiled while
#: another one is, such as the Levenshtein kernels TER's shift search calls, is counted with the outermost one; 2
#: shared cores, benchmarks/README.md). A run compiles about this much per module it needs that is not cached yet
#: (:func:`first_run_notice`); a module not listed is compiled only inside the listed ones.
KERNEL_COMPILE_SECONDS: dict[str, float] = {
    "korean_eval.metrics.kernels.ngram": 1.5,
    "korean_eval.metrics.kernels.ter_shift": 15.0,
    "korean_eval.metrics.kernels.character": 19.0,
    "korean_eval.metrics.eed": 0.5,
    "korean_eval.metrics.ribes": 1.0,
    "korean_eval.metaeval.stats.kernels": 5.0,
    "korean_eval.metaeval.stats.tie_calibrated": 0.5,
    "korean_eval.metaeval.stats.accuracy_resampling": 0.8,
    "korean_eval.metaeval.stats.accuracy_permutation": 0.5,
}


def kernels_needed(
    metrics: Sequence[str], ter_implementation: str = "fast", statistics: bool = True, resampling: bool = True,
    ranking: bool = True,
) -> tuple[str, ...]:
    """The modules whose numba kernels an evaluation with ``metrics`` calls: those the metrics declare
    (:meth:`~korean_eval.metrics.declaration.MetricDeclaration.kernels_for` the run's implementation),
    with ``statistics`` (human scores to correlate with) :data:`STATISTICS_KERNELS`, and with ``resampling`` too
    (bootstrap resamples) :data:`RESAMPLING_KERNELS`; with ``resampling`` and ``ranking`` (two systems or more: the
    ranking check) :data:`RANKING_KERNELS`. Nothing else is compiled: numba compiles a kernel when it is
    first called (tests/test_kernel_notice.py reads back what runs compiled)."""
    from korean_eval.metrics import declaration

    modules: list[str] = []
    for name in metrics:
        declared = declaration(name)
        modules += declared.kernels_for(declared.run_arguments(ter_implementation, None))
    if statistics:
        modules += STATISTICS_KERNELS
        if resampling:
            modules += RESAMPLING_KERNELS
    if resampling and ranking:
        modules += RANKING_KERNELS
    return tuple(dict.fromkeys(modules))


def uncached_kernels(modules: Sequence[str]) -> tuple[str, ...]:
    """The modules of ``modules`` none of whose kernels numba's cache holds for their current source (imports them).

    A kernel counts as cached when its index file in numba's cache directory is there and matches the source file
    and numba version (numba's ``IndexDataCacheFile._load_index``, which returns nothing otherwise). A module with one
    cached kernel counts as compiled: the run may still compile a kernel or an argument type no earlier run used,
    which takes a fraction of the module's time. Where numba's internals differ from the pinned version's, every
    module counts as cached (no notice rather than a wrong one).
    """
    import importlib

    from numba.core.dispatcher import Dispatcher

    missing = []
    for module_name in modules:
        module = importlib.import_module(module_name)
        kernels = [obj for obj in vars(module).values()
                   if isinstance(obj, Dispatcher) and getattr(obj.py_func, "__module__", None) == module_name]
        try:
            cached = any(k._cache._cache_file._load_index() for k in kernels)
        except (AttributeError, OSError, EOFError, ValueError):
            cached = True
        if kernels and not cached:
            missing.append(module_name)
    return tuple(missing)


def first_run_notice(
    metrics: Sequence[str], ter_implementation: str = "fast", statistics: bool = True, resampling: bool = True,
    ranking: bool = True,
) -> str | None:
    """The line a run prints before numba compiles kernels that are not cached yet (None when every module it needs
    has cached kernels): ``compiling the numba kernels once (about N s); later runs load them``, with N the
    :data:`KERNEL_COMPILE_SECONDS` of the modules missing."""
    missing = uncached_kernels(kernels_needed(metrics, ter_implementation, statistics, resampling, ranking))
    if not missing:
        return None
    seconds = max(1, round(sum(KERNEL_COMPILE_SECONDS.get(m, 0.0) for m in missing)))
    return f"compiling the numba kernels once (about {seconds} s); later runs load them"


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
    from korean_eval.metrics import metric_names
    from korean_eval.model.config import EvalConfig
    from korean_eval.model.vocabulary import STATISTICS

    start = time.perf_counter()
    directory = configure_numba_cache()
    config = EvalConfig(levels=WARMUP_LEVELS, metrics=metric_names(), jobs=1, spa_permutations=WARMUP_RESAMPLES)
    results = evaluate(warmup_evalset(), config, progress=progress, cache=NullCache())
    for statistic in STATISTICS:
        if progress is not None:
            progress(1.0, f"statistics ({statistic})")
        statistics_tables(results, StatisticsSettings(resamples=WARMUP_RESAMPLES, statistic=statistic), NullCache())
    return CompiledKernels(directory, sum(1 for _ in directory.rglob("*.nbi")), time.perf_counter() - start)
