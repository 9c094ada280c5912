"""The tokenise stage: every level of a run tokenised, each yielded as soon as its tokens are there, from the token
cache, the worker processes or this process (docs/design.md §2).

With a bound on the analyzer processes (:func:`korean_eval.engine.pools.set_analyzer_processes`, the dashboard's
default), the levels whose analyzer runs in a process of its own (Kiwi, each KoNLPy analyzer) are handed out one at
a time: the next when the previous one's tokens are back, so that its process can end before the next analyzer
loads its model.

A level's texts go out in chunks of about :data:`CHUNK_SECONDS` of its analyzer's measured work
(:func:`chunk_chars`; at most :data:`korean_eval.engine.workers.TOKENISE_CHUNK_CHARS` characters), so that the
count of texts tokenised moves every few seconds at every level, the slowest analyzer (Kkma) included; until the
first chunk is back, the progress says that the analyzer is starting, and how long that takes the first time
(:func:`starting_note`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from korean_eval.engine import workers
from korean_eval.engine.cache import NullCache
from korean_eval.engine.planning import (
    HERE_CHUNK_CHARS,
    RunPlan,
    TokenisedLevel,
    TokenLookup,
    lookup_tokens,
    tokenize_texts,
)
from korean_eval.engine.pools import MAIN_ROLE, analyzer_processes, analyzers_in_workers
from korean_eval.engine.progress import Ticker
from korean_eval.engine.workers import (
    Job,
    Scheduler,
    holds_large_model,
    level_role,
    task_tokenize,
    text_chunks,
    tokenised_in_workers,
)
from korean_eval.levels.costs import level_cost, started_levels, tokenize_seconds
from korean_eval.levels.registry import TokenLevel, get_level, level_availability, level_class
from korean_eval.model.config import EvalConfig
from korean_eval.model.evalset import EvalSet


def prepare_level(name: str, evalset: EvalSet, config: EvalConfig, cache: NullCache | None = None) -> TokenLevel:
    """The level as this evaluation uses it (:meth:`~korean_eval.levels.base.TokenLevel.for_evaluation`: SentencePiece
    trained on the evaluation's references, or the given model); ``cache``: where a level keeps what it built (a
    trained model, loaded next time)."""
    ok, reason = level_availability(name)
    if not ok:
        raise ValueError(f"token level {name!r} is unavailable: {reason}")
    references = [r for stream in evalset.refs for r in stream]
    return level_class(name).for_evaluation(references, config, cache)


#: Seconds of an analyzer's measured work (:func:`korean_eval.levels.costs.level_cost`) per chunk of texts: the
#: progress of a level moves about this often once its analyzer has started.
CHUNK_SECONDS = 5.0


def chunk_chars(name: str, most: int | None = None) -> int:
    """Characters per chunk of texts at level ``name``: :data:`CHUNK_SECONDS` of its measured cost per character,
    at most ``most`` (default :data:`korean_eval.engine.workers.TOKENISE_CHUNK_CHARS`). Depends on the level only,
    so chunk boundaries still depend on the texts only, never on the workers."""
    most = workers.TOKENISE_CHUNK_CHARS if most is None else most
    per_char = level_cost(name)[1]
    return max(1, min(most, int(CHUNK_SECONDS * 1e6 / per_char)))


#: Starts shorter than this many seconds are not announced.
ANNOUNCED_START_SECONDS = 1.0


def starting_note(name: str, started: set[str] | None = None) -> str:
    """What the progress says while level ``name``'s analyzer starts (its model, dictionaries, KoNLPy's JVM):
    ``"starting its analyzer, about 34 s the first time"``; empty for a level that starts at once or, with
    ``started`` (:func:`korean_eval.levels.costs.started_levels`, when it runs in this process), has started."""
    seconds = tokenize_seconds([name], 0, started=started or ())[name]
    if level_class(name).trained_on_references or seconds < ANNOUNCED_START_SECONDS:
        return ""
    return f"starting its analyzer, about {seconds:.0f} s" + ("" if started is not None else " the first time")


@dataclass
class _WorkerTokens:
    """A level handed to the worker processes for tokenising: its cache look-up, one job per chunk of the missing
    texts (:func:`korean_eval.engine.workers.text_chunks`), and this process's seconds on it so far."""

    level: TokenLevel
    lookup: TokenLookup
    jobs: list[Job]
    sizes: list[int]  # texts per job
    seconds: float
    #: Its chunks not handed out yet, the run's size and whether the run uses the pools (a level whose analyzer
    #: waits for a process of its own: :func:`_hand_out`).
    waiting: list[list[str]] = field(default_factory=list)
    n_pairs: int = 0
    large: bool = False


def tokenise(
    run: RunPlan, evalset: EvalSet, config: EvalConfig, cache: NullCache, sched: Scheduler, ticker: Ticker
) -> Iterator[TokenisedLevel]:
    """The tokenise stage: yield every level as soon as it is tokenised, in :attr:`RunPlan.work_order`.

    When the run is large enough to start the worker processes, the distinct texts missing from the token cache of
    every level tokenised in the workers (:func:`korean_eval.engine.workers.tokenised_in_workers`) are handed to them at once, in chunks of about equal length (each worker
    loads an analyzer once and keeps it), so that every core tokenises; a level is yielded when its chunks are
    back. SentencePiece, Kiwi (on its own native threads, while the workers tokenise the other levels), and every
    level of a small run, are tokenised in this process.
    """
    n_pairs = evalset.system_pairs() if run.levels else 0
    in_workers = _start_worker_tokenising(run, cache, sched, n_pairs)
    _hand_out_waiting(in_workers, sched, ticker)
    for name in run.work_order:
        if name in in_workers:
            w = in_workers.pop(name)
            if w.waiting:
                _hand_out(name, w, sched, ticker, block=True)
            tokenised = _collect_worker_tokens(name, w, cache, sched, ticker)
            _hand_out_waiting(in_workers, sched, ticker)
            yield tokenised
        else:
            yield _tokenise_here(name, run.texts, evalset, config, cache, ticker)


def _start_worker_tokenising(run: RunPlan, cache: NullCache, sched: Scheduler, n_pairs: int) -> dict[str, _WorkerTokens]:
    """Hand the texts of every pool level missing from the token cache to the workers, chunk by chunk (Kiwi's to
    the worker of its role, :func:`korean_eval.engine.workers.level_role`); in a run too small for the pool, only
    those of the analyzers with a large model, when :func:`korean_eval.engine.pools.analyzers_in_workers` (their
    models then live only in the workers); none when the run stays in this process.

    The level's analyzer is never loaded here: a worker checks its availability when it tokenises (an unavailable
    level raises ``RuntimeError`` naming the reason).
    """
    out: dict[str, _WorkerTokens] = {}
    if not n_pairs:
        return out
    large = sched.pool(n_pairs) is not None
    for name in run.work_order:
        if not tokenised_in_workers(name) or not (
                large or holds_large_model(name) and analyzers_in_workers()):
            continue
        start = time.perf_counter()
        level = get_level(name)
        lookup = lookup_tokens(level, run.texts, cache)
        cut = text_chunks(lookup.missing, chunk_chars(name))
        w = _WorkerTokens(level, lookup, [], [len(c) for c in cut], 0.0, cut, n_pairs, large)
        if cut and (level_role(name) == MAIN_ROLE or analyzer_processes() is None):
            _hand_out(name, w, sched, None, block=True)  # a process of its own waits for none
        w.seconds = time.perf_counter() - start
        out[name] = w
    return out


def _hand_out(name: str, w: _WorkerTokens, sched: Scheduler, ticker: Ticker | None, block: bool) -> bool:
    """Submit the level's waiting chunks to the pool of its role; whether they went (not when ``block`` is False
    and its analyzer process must wait for room). While blocked the ticker says so."""
    def waiting() -> None:
        if ticker is not None:
            ticker.report(f"tokenising at level {name}: waiting for another analyzer's process to finish")
        if sched.watch is not None:
            sched.watch()

    role = level_role(name)
    pool = sched.pool(w.n_pairs, role, waiting, block) if w.large else sched.analyzer_pool(name, waiting, block)
    if pool is None and not block and sched.executor is None:
        return False
    w.jobs = [sched.submit(task_tokenize, (name, chunk), (name, ""), pool) for chunk in w.waiting]
    w.waiting = []
    return True


def _hand_out_waiting(in_workers: dict[str, _WorkerTokens], sched: Scheduler, ticker: Ticker) -> None:
    """Hand out the waiting levels, in work order, while their analyzer processes find room without waiting."""
    for name, w in in_workers.items():
        if w.waiting and not _hand_out(name, w, sched, ticker, block=False):
            return


def _tokenise_here(
    name: str, texts: Sequence[str], evalset: EvalSet, config: EvalConfig, cache: NullCache, ticker: Ticker
) -> TokenisedLevel:
    """Tokenise one level in this process, chunk by chunk (:func:`~korean_eval.engine.planning.tokenize_texts`),
    reporting the texts done."""
    label = f"tokenising at level {name}"
    note = starting_note(name, started_levels())
    ticker.report(f"{label}: {note}" if note else label)
    start = time.perf_counter()
    level = prepare_level(name, evalset, config, cache)
    tok, tok_seconds, fallbacks = tokenize_texts(level, texts, cache,
                                                 lambda done, total: ticker.part(done, total, label, "texts"),
                                                 chunk_chars(name, HERE_CHUNK_CHARS))
    ticker.advance()
    return TokenisedLevel(name, level, tok, tok_seconds, fallbacks, time.perf_counter() - start)


def _collect_worker_tokens(
    name: str, w: _WorkerTokens, cache: NullCache, sched: Scheduler, ticker: Ticker
) -> TokenisedLevel:
    """A level tokenised by the worker processes (its new tokens stored in the cache). Its seconds: this process's
    set-up and cache seconds plus the workers' tokenizer seconds."""
    label = f"tokenising at level {name}"
    start, waited = time.perf_counter(), sched.waited
    tokens, tok_seconds, fallbacks = w.lookup.tokens, 0.0, 0
    if not w.jobs:
        ticker.report(label)
    else:
        ticker.track(label, w.jobs, "texts", w.sizes, starting_note(name))
        joined: list[str] = []
        for job in w.jobs:
            chunk, seconds, chunk_fallbacks = job.result()
            joined += chunk
            tok_seconds += seconds
            fallbacks += chunk_fallbacks
        tokens = w.lookup.complete(cache, joined)
    seconds = w.seconds + (time.perf_counter() - start) - (sched.waited - waited) + tok_seconds
    ticker.advance()
    return TokenisedLevel(name, w.level, tokens, tok_seconds, fallbacks, seconds)

