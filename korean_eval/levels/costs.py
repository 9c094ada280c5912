"""What tokenising costs at each token level, measured: the basis of the estimates shown before slow work starts.

Definition of the estimate: a level costs its *start* (its analyzer's model or dictionary loaded, once per process;
KoNLPy's JVM once for all four KoNLPy levels; SentencePiece's training, per reference character) plus its cost per
character of distinct text times the characters it tokenises. Levels already started in this process
(:func:`started_levels`) cost no start. Tokens found in the cache cost nothing, so an estimate is an upper bound.

Measured by ``benchmarks/bench_costs.py`` (300 distinct references and 1,200 distinct system outputs, 65,481
characters, built from KoNLPy's corpora; one process, no cache) on the project's shared machine: 2 cores (AMD EPYC),
load average ≈ 12 from other work at the time, so a quiet machine is faster.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Per level: (start seconds, microseconds per character of distinct text).
TOKENIZE_COSTS: dict[str, tuple[float, float]] = {
    "word": (0.0, 0.82),
    "mecab": (0.0, 4.16),
    "kiwi": (5.81, 18.77),
    "okt": (8.67, 235.86),
    "komoran": (15.11, 149.46),
    "kkma": (32.75, 2093.63),
    "hannanum": (1.65, 347.96),
    "spm": (0.0, 1.29),
    "char": (0.0, 0.43),
    "jamo": (0.19, 1.26),
}
#: KoNLPy's JVM, started once per process before its first level.
JVM_START_SECONDS = 0.96
KONLPY_LEVELS = ("okt", "komoran", "kkma", "hannanum")
#: SentencePiece's training on the references, microseconds per reference character.
SPM_TRAIN_US_PER_REF_CHAR = 10.6
#: A level missing from :data:`TOKENIZE_COSTS` (e.g. a new one) is estimated as the slowest known.
UNKNOWN = max(TOKENIZE_COSTS.values(), key=lambda cost: cost[1])


def started_levels() -> set[str]:
    """The levels whose analyzer this process has loaded already (Kiwi's model, KoNLPy's analyzers); the others'
    start counts in an estimate."""
    from korean_eval.levels.konlpy import _konlpy_tagger
    from korean_eval.levels.registry import kiwi_analyzer

    started = {"kiwi"} if kiwi_analyzer.cache_info().currsize else set()
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
    started = set(started)
    out: dict[str, float] = {}
    jvm = "jvm" in started
    for level in levels:
        start, per_char = TOKENIZE_COSTS.get(level, UNKNOWN)
        seconds = (0.0 if level in started else start) + per_char * chars / 1e6
        if level == "spm":
            seconds += SPM_TRAIN_US_PER_REF_CHAR * ref_chars / 1e6
        if level in KONLPY_LEVELS and not jvm:
            seconds += JVM_START_SECONDS
            jvm = True
        out[level] = seconds
    return out
