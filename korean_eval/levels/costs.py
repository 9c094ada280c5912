"""What tokenising costs at each token level, measured: the basis of the estimates shown before slow work starts.

Definition of the estimate: a level costs its *start* (its analyzer's model or dictionary loaded, once per process;
KoNLPy's JVM once for all four KoNLPy levels; SentencePiece's training, per reference character) plus its cost per
character of distinct text times the characters it tokenises. Levels already started in this process
(:func:`started_levels`) cost no start. Tokens found in the cache cost nothing, so an estimate is an upper bound.

Each level declares its measured cost (:attr:`~korean_eval.levels.base.TokenLevel.tokenize_cost`,
:attr:`~korean_eval.levels.base.TokenLevel.train_cost_per_ref_char`, :attr:`~korean_eval.levels.base.TokenLevel.shared_runtime`),
measured by ``benchmarks/bench_costs.py`` (300 distinct references and 1,200 distinct system outputs, 65,481
characters, built from KoNLPy's corpora; one process, no cache) on the project's shared machine: 2 cores (AMD EPYC),
load average ≈ 12 from other work at the time, so a quiet machine is faster.
"""

from __future__ import annotations

from collections.abc import Iterable

from korean_eval.levels.konlpy import KkmaLevel

#: KoNLPy's JVM, started once per process before its first level.
JVM_START_SECONDS = 0.96
#: A level that declares no cost (:attr:`~korean_eval.levels.base.TokenLevel.tokenize_cost`) is estimated as
#: the slowest known (Kkma's).
UNKNOWN: tuple[float, float] = KkmaLevel.tokenize_cost


def level_cost(name: str) -> tuple[float, float]:
    """The declared (start seconds, microseconds per character) of level ``name``; :data:`UNKNOWN` when it declares
    none or is not registered."""
    from korean_eval.levels.registry import LEVEL_CLASSES

    cls = LEVEL_CLASSES.get(name)
    return cls.tokenize_cost if cls is not None and cls.tokenize_cost is not None else UNKNOWN


def __getattr__(name: str) -> object:
    """``TOKENIZE_COSTS``: every registered level's declared cost, by name; ``KONLPY_LEVELS``: the levels that
    share KoNLPy's JVM; ``SPM_TRAIN_US_PER_REF_CHAR``: SentencePiece's training cost per reference character."""
    from korean_eval.levels.registry import LEVEL_CLASSES

    if name == "TOKENIZE_COSTS":
        return {n: cls.tokenize_cost for n, cls in LEVEL_CLASSES.items() if cls.tokenize_cost is not None}
    if name == "KONLPY_LEVELS":
        return tuple(n for n, cls in LEVEL_CLASSES.items() if cls.shared_runtime == "jvm")
    if name == "SPM_TRAIN_US_PER_REF_CHAR":
        from korean_eval.levels.sentencepiece import SpmLevel

        return SpmLevel.train_cost_per_ref_char
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def started_levels() -> set[str]:
    """The levels whose analyzer this process has loaded already (Kiwi's model, KoNLPy's analyzers); the others'
    start counts in an estimate."""
    from korean_eval.levels.konlpy import _konlpy_tagger
    from korean_eval.levels.registry import KiwiLevel, kiwi_analyzer

    started = {KiwiLevel.name} if kiwi_analyzer.cache_info().currsize else set()
    if _konlpy_tagger.cache_info().currsize:
        try:
            import jpype

            if jpype.isJVMStarted():
                started |= {"jvm"}
        except ImportError:
            pass
    return started


def tokenize_seconds(levels: Iterable[str], chars: int, ref_chars: int = 0,
                     started: Iterable[str] = ()) -> dict[str, float]:
    """Estimated seconds per level to tokenise ``chars`` characters of distinct text (module docstring);
    ``ref_chars``: the references' characters (SentencePiece trains on them); ``started``: levels (and ``"jvm"``)
    that cost no start here."""
    from korean_eval.levels.registry import LEVEL_CLASSES, TokenLevel

    started = set(started)
    out: dict[str, float] = {}
    jvm = "jvm" in started
    for level in levels:
        start, per_char = level_cost(level)
        cls = LEVEL_CLASSES.get(level, TokenLevel)
        seconds = (0.0 if level in started else start) + per_char * chars / 1e6
        seconds += cls.train_cost_per_ref_char * ref_chars / 1e6
        if cls.shared_runtime == "jvm" and not jvm:
            seconds += JVM_START_SECONDS
            jvm = True
        out[level] = seconds
    return out
