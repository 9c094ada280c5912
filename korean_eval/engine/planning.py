"""The plan stage of the pipeline (docs/design.md §2): what each run and each token level has to compute.

* :func:`plan_run`: the levels in table order and in work order, every text to tokenise and the progress steps;
* :func:`lookup_tokens` / :func:`tokenize_texts`: a level's tokens, read from the token cache in bulk, the missing
  texts tokenised (keys: level options + SHA-1 of the text, :mod:`korean_eval.engine.cache`);
* :func:`level_pairs` and :func:`plan_level`: a level's (system, segment) pairs as tokens and, per metric, the
  cached statistics rows and the pairs still to compute (the first pair of every missing pair key, so pairs with
  equal tokens are computed once).

Nothing here computes a statistic or starts a worker: :func:`korean_eval.engine.scoring.dispatch_level` starts the work a
:class:`LevelPlan` lists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from korean_eval.engine.cache import NullCache, pair_key, text_key
from korean_eval.levels.registry import LEVEL_CLASSES, TokenLevel
from korean_eval.metrics import Metric, declaration, make_metric
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet


@dataclass(frozen=True)
class RunPlan:
    """What one evaluation tokenises, in which order, and how many progress steps it reports.

    Attributes:
        levels: token levels in the configured order (the order of every table); empty without references.
        work_order: the same levels in the order they are tokenised (:func:`work_order`).
        texts: every reference, then every present hypothesis (repeats kept: token counts are over all of them).
        words: whitespace-separated words in ``texts``.
        steps: one per level tokenised, one per level × metric scored, one for the meta-evaluation.
    """

    levels: list[str]
    work_order: list[str]
    texts: list[str]
    words: int
    steps: int


def work_order(levels: Sequence[str]) -> list[str]:
    """The levels by their declared :attr:`~korean_eval.levels.base.TokenLevel.work_priority` (jamo, then
    characters: the longest token sequences, whose statistics take longest), the rest in the given order."""
    return sorted(levels, key=lambda name: LEVEL_CLASSES[name].work_priority)


def plan_run(evalset: EvalSet, config: EvalConfig) -> RunPlan:
    """The run's levels, texts and progress steps (no levels when the evaluation set has no reference text)."""
    levels = list(config.levels) if evalset.refs else []
    texts = [r for stream in evalset.refs for r in stream]
    texts += [h for hyps in evalset.systems.values() for h in hyps if h is not None]
    words = sum(len(t.split()) for t in texts)
    steps = len(levels) * (1 + len(config.metrics)) + 1
    return RunPlan(levels, work_order(levels), texts, words, steps)


@dataclass
class TokenLookup:
    """A level's cached tokens and what is still to tokenise.

    Attributes:
        level_key: the level's cache key (:meth:`TokenLevel.options_key`).
        tokens: distinct text → its tokens joined by single spaces (the cached ones until :meth:`complete`).
        missing: distinct texts not in the cache; missing_keys: their cache keys.
    """

    level_key: str
    tokens: dict[str, str]
    missing: list[str]
    missing_keys: list[bytes]

    def complete(self, cache: NullCache, joined: Sequence[str]) -> dict[str, str]:
        """Add the tokens of the missing texts (``joined``, in order) here and to the cache; return all tokens."""
        self.tokens.update(zip(self.missing, joined, strict=True))
        cache.put_tokens(self.level_key, zip(self.missing_keys, joined, strict=True))
        return self.tokens


def lookup_tokens(level: TokenLevel, texts: Sequence[str], cache: NullCache) -> TokenLookup:
    """Read the tokens of the distinct ``texts`` at ``level`` from the cache (one bulk read)."""
    unique = list(dict.fromkeys(texts))
    keys = [text_key(t) for t in unique]
    level_key = level.options_key()
    hit = cache.get_tokens(level_key, keys)
    lookup = TokenLookup(level_key, {}, [], [])
    for text, key in zip(unique, keys, strict=True):
        if key in hit:
            lookup.tokens[text] = hit[key]
        else:
            lookup.missing.append(text)
            lookup.missing_keys.append(key)
    return lookup


#: Characters per piece of the texts a level tokenises in this process, at most: the pieces are analysed one after
#: the other (each text's tokens do not depend on the others, so the pieces change no token) and progress is
#: reported between them; a slow analyzer's pieces are smaller (:func:`korean_eval.engine.tokenise_stage.chunk_chars`).
HERE_CHUNK_CHARS = 5_000


def tokenize_texts(
    level: TokenLevel, texts: Sequence[str], cache: NullCache, progress: Callable[[int, int], None] | None = None,
    piece_chars: int = HERE_CHUNK_CHARS,
) -> tuple[dict[str, str], float, int]:
    """Map each distinct text to its space-joined tokens; return (map, tokenizer seconds, fallbacks). The texts
    missing from the cache are tokenised in pieces of ``piece_chars`` characters (default
    :data:`HERE_CHUNK_CHARS`), ``progress(done, total)`` called with the texts done after each piece but the
    last."""
    from korean_eval.engine.workers import text_chunks

    lookup = lookup_tokens(level, texts, cache)
    if not lookup.missing:
        return lookup.tokens, 0.0, 0
    joined: list[str] = []
    seconds, fallbacks = 0.0, 0
    pieces = text_chunks(lookup.missing, piece_chars)
    for i, piece in enumerate(pieces):
        result = level.tokenize_joined(piece)
        joined += result.joined
        seconds += result.seconds
        fallbacks += result.fallbacks
        if progress is not None and i + 1 < len(pieces):
            progress(len(joined), len(lookup.missing))
    return lookup.complete(cache, joined), seconds, fallbacks


@dataclass
class TokenisedLevel:
    """One level after the tokenise stage.

    Attributes:
        name: registry name; level: the instantiated level; tokens: distinct text → space-joined tokens.
        tokenizer_seconds: the tokenizer's own seconds on the texts missing from the cache; fallbacks: sentences
            the analyzer could not analyse (split on whitespace instead).
        seconds: wall seconds of the tokenise stage for this level (for a level tokenised by a worker process:
            its set-up and cache seconds here plus the worker's tokenizer seconds).
    """

    name: str
    level: TokenLevel
    tokens: dict[str, str]
    tokenizer_seconds: float
    fallbacks: int
    seconds: float

    @property
    def fallback_note(self) -> str:
        """The note on the sentences the analyzer could not analyse (when ``fallbacks``)."""
        what = "could not be analysed and were split on whitespace instead"
        return f"{self.level.label}: {self.fallbacks} sentence(s) {what}"


def level_pairs(
    evalset: EvalSet, tok: Mapping[str, str]
) -> tuple[list[tuple[int, int]], list[str], list[list[str]]]:
    """(positions (system index, segment index), hypotheses, reference streams) of every present pair, as tokens."""
    positions: list[tuple[int, int]] = []
    hyps: list[str] = []
    refs: list[list[str]] = [[] for _ in evalset.refs]
    ref_tokens = [[tok[r] for r in stream] for stream in evalset.refs]
    for s, name in enumerate(evalset.systems):
        for i, hyp in enumerate(evalset.systems[name]):
            if hyp is None:
                continue
            positions.append((s, i))
            hyps.append(tok[hyp])
            for j, stream in enumerate(ref_tokens):
                refs[j].append(stream[i])
    return positions, hyps, refs


@dataclass
class MetricPlan:
    """One level × metric: its cached rows and the pairs whose statistics are still to compute.

    Attributes:
        name: metric registry name; metric: the instance (prepared with the reference corpus when it needs it).
        key: the statistics cache key (level options | metric | metric options [| reference-corpus key]).
        found, stats, scores: per pair, whether the cache held its row, and the cached statistics and score
            (zero where not found).
        todo: the first pair of every pair key not found (pairs with equal tokens share a key).
        corpus_key: non-empty when the statistics depend on the reference corpus (:meth:`Metric.prepare`).
    """

    name: str
    metric: Metric
    key: str
    found: np.ndarray
    stats: np.ndarray
    scores: np.ndarray
    todo: list[int]
    corpus_key: str = ""


@dataclass
class LevelPlan:
    """One level's pairs as tokens and its metric plans.

    Attributes:
        positions: ``(pairs, 2)`` int array of (system index, segment index); hyps, refs: the pairs' hypothesis
            tokens and reference streams (:func:`level_pairs`); keys: each pair's cache key.
        ref_ids: per pair, the index of its references in ``unique_refs`` (the distinct reference tuples).
        corpus: each segment's reference tokens, once per segment (for metrics that depend on the corpus).
        metrics: one plan per configured metric, in the configured order.
    """

    name: str
    level: TokenLevel
    positions: np.ndarray
    hyps: list[str]
    refs: list[list[str]]
    keys: list[bytes]
    ref_ids: np.ndarray
    unique_refs: list[tuple[str, ...]]
    corpus: list[tuple[str, ...]]
    metrics: list[MetricPlan]


def first_missing(keys: Sequence[bytes], found: np.ndarray) -> list[int]:
    """The first pair index of every pair key that was not found."""
    first: dict[bytes, int] = {}
    for i in np.flatnonzero(~found):
        first.setdefault(keys[i], int(i))
    return list(first.values())


def plan_metric(
    level: TokenLevel, level_name: str, metric_name: str, keys: Sequence[bytes], corpus: list, config: EvalConfig,
    cache: NullCache,
) -> MetricPlan:
    """Instantiate the metric with the level's options and look its rows up in the statistics cache."""
    runtime = declaration(metric_name).run_arguments(config.ter_implementation, config.jobs)
    metric = make_metric(metric_name, config.options_for(level_name, metric_name), **runtime)
    corpus_key = metric.prepare(corpus)
    metric_key = f"{level.options_key()}|{metric_name}|{metric.options_key()}" + (f"|{corpus_key}" if corpus_key else "")
    found, stats, scores = cache.get_stats_block(metric_key, keys)
    return MetricPlan(metric_name, metric, metric_key, found, stats, scores, first_missing(keys, found), corpus_key)


def plan_level(
    level_name: str,
    level: TokenLevel,
    tok: Mapping[str, str],
    evalset: EvalSet,
    config: EvalConfig,
    cache: NullCache,
) -> LevelPlan:
    """The level's pairs as tokens and, per configured metric, the cached rows and the pairs to compute."""
    positions, hyps, refs = level_pairs(evalset, tok)
    n = len(hyps)
    ref_tuples = list(zip(*refs, strict=True)) if refs else [()] * n
    keys = [pair_key(h, r) for h, r in zip(hyps, ref_tuples, strict=True)]
    group: dict[tuple[str, ...], int] = {}
    ref_ids = np.fromiter((group.setdefault(t, len(group)) for t in ref_tuples), dtype=np.int64, count=n)
    corpus = [tuple(tok[stream[i]] for stream in evalset.refs) for i in range(evalset.n_segments)]
    metrics = [plan_metric(level, level_name, name, keys, corpus, config, cache) for name in config.metrics]
    return LevelPlan(
        level_name, level, np.array(positions, dtype=int).reshape(-1, 2), hyps, refs, keys, ref_ids, list(group),
        corpus, metrics,
    )
