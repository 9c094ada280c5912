"""What a run would cost before it starts: the seconds of each token level on an evaluation set, from the measured
costs (:mod:`korean_eval.levels.costs`, :mod:`korean_eval.metrics.costs`) and the token cache.

Definition: a level costs its start (its analyzer's model or dictionary loaded; KoNLPy's JVM once for the four
KoNLPy levels; SentencePiece's training on the references) plus its cost per character times the characters of the
distinct texts whose tokens the cache does not hold (:func:`korean_eval.levels.costs.tokenize_seconds`); a level
whose every token is cached costs nothing, its analyzer is then never started. Scoring costs each metric's
microseconds per hypothesis character at every level tokenised anew (:func:`korean_eval.metrics.costs.score_seconds`).
SentencePiece's tokens depend on the model trained on the references, so its cache is not consulted: it is counted
in full. An estimate says how long to expect on the machine the costs were measured on, not a promise.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from korean_eval.engine.cache import NullCache
from korean_eval.engine.planning import lookup_tokens
from korean_eval.levels.costs import tokenize_seconds
from korean_eval.levels.registry import get_level, level_class
from korean_eval.metrics.costs import score_seconds
from korean_eval.model.evalset import EvalSet


@dataclass(frozen=True)
class LevelEstimate:
    """The estimate of one level: ``seconds`` in all, of which ``start`` to start its analyzer (0 when nothing is
    left to tokenise), for ``texts`` distinct texts (``chars`` characters) not in the cache."""

    level: str
    seconds: float
    start: float
    texts: int
    chars: int


def distinct_texts(evalset: EvalSet) -> list[str]:
    """Every distinct reference and hypothesis of ``evalset``, in first-seen order (what a run tokenises)."""
    texts = [r for stream in evalset.refs for r in stream]
    texts += [h for hyps in evalset.systems.values() for h in hyps if h is not None]
    return list(dict.fromkeys(texts))


def level_estimates(evalset: EvalSet, levels: Sequence[str], cache: NullCache | None = None,
                    started: Iterable[str] = ()) -> dict[str, LevelEstimate]:
    """The :class:`LevelEstimate` of each of ``levels`` on ``evalset`` (module docstring); ``cache``: the token
    cache to consult (None: nothing cached); ``started``: levels (and ``"jvm"``) whose start costs nothing here.
    KoNLPy's JVM is counted once, with the first KoNLPy level that has texts to tokenise."""
    cache = cache or NullCache()
    texts = distinct_texts(evalset)
    ref_chars = sum(len(r) for r in dict.fromkeys(r for stream in evalset.refs for r in stream))
    started = set(started)
    out: dict[str, LevelEstimate] = {}
    for name in levels:
        cls = level_class(name)
        missing = (texts if cls.trained_on_references or not cache.enabled
                   else lookup_tokens(get_level(name), texts, cache).missing)
        chars = sum(len(t) for t in missing)
        if not missing:
            out[name] = LevelEstimate(name, 0.0, 0.0, 0, 0)
            continue
        start = tokenize_seconds([name], 0, ref_chars, started)[name]
        seconds = tokenize_seconds([name], chars, ref_chars, started)[name]
        if cls.shared_runtime:
            started.add(cls.shared_runtime)
        out[name] = LevelEstimate(name, seconds, start, len(missing), chars)
    return out


def run_seconds(evalset: EvalSet, estimates: dict[str, LevelEstimate], metrics: Sequence[str]) -> float:
    """The estimated seconds of a run that tokenises as ``estimates`` say and scores every level with something
    to tokenise with ``metrics`` (the hypotheses' characters at each)."""
    hyp_chars = sum(len(h) for hyps in evalset.systems.values() for h in hyps if h is not None)
    new_levels = sum(1 for e in estimates.values() if e.texts)
    return sum(e.seconds for e in estimates.values()) + score_seconds(metrics, new_levels, hyp_chars)
