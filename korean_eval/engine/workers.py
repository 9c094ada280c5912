"""The pipeline's tasks for the worker processes, and their bookkeeping: which pool tokenises which level, the
statistics tasks, :class:`Job` and :class:`Scheduler`.

The statistics of a level are cut into chunks of :data:`CHUNK_PAIRS` pairs (ordered by reference, so each chunk
pre-processes each of its references once) and computed in a pool of *spawned* worker processes
(:mod:`korean_eval.engine.pools`) while the main process tokenises the next level; inputs with fewer than
:data:`PARALLEL_MIN_PAIRS` pairs to compute stay in the calling process. Every task computes its numbers with
sacrebleu's own code (or the registered metric's), so the results are identical to a serial run; a worker that dies
only costs time (its work is redone in the caller). A run holds a lease on the pools while it uses them
(:class:`Scheduler` as a context manager) and, however it ends, cancels its tasks still queued
(:meth:`Scheduler.close`), so none of its work is left in a pool.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Future
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack
from dataclasses import dataclass, field

import numpy as np

from korean_eval.engine import pools
from korean_eval.engine.packed_texts import PackedTexts, packable
from korean_eval.engine.pools import (
    MAIN_ROLE,
    analyzer_processes,
    analyzers_in_workers,
    discard_pool,
    pools_in_use,
    worker_count,
)
from korean_eval.engine.stopping import wait_watching
from korean_eval.levels.registry import get_level
from korean_eval.metrics import make_metric
from korean_eval.metrics.sacre import BLEU_DECLARATION, BleuMetric

PARALLEL_MIN_PAIRS_ENV = "KOREAN_EVAL_PARALLEL_MIN_PAIRS"
CHUNK_PAIRS = 1024  # pairs per task handed to a worker process

def _parallel_min_pairs(default: int = 2000) -> int:
    """Pairs from which a level is computed by the worker processes: ``default``, or the whole number ≥ 1 in
    ``$KOREAN_EVAL_PARALLEL_MIN_PAIRS`` (a knob for tests that need the pool on a small input)."""
    raw = os.environ.get(PARALLEL_MIN_PAIRS_ENV)
    if raw is None:
        return default
    if not raw.strip().isdigit() or int(raw) < 1:
        raise ValueError(f"{PARALLEL_MIN_PAIRS_ENV} must be a whole number of pairs ≥ 1, got {raw!r}")
    return int(raw)


PARALLEL_MIN_PAIRS = _parallel_min_pairs()  # a level with fewer pairs to compute runs in the calling process


#: The role of Kiwi's tasks (:attr:`KiwiLevel.pool_role <korean_eval.levels.base.TokenLevel.pool_role>`): one worker
#: process (one Dask worker on a cluster) loads Kiwi's model (≈ 0.45 GB) once and analyses on Kiwi's own native
#: threads, so that the model's memory does not grow with the worker count.
KIWI_ROLE = "kiwi"
#: The role of the Korean lens run as one task (:func:`korean_eval.engine.worker_call.run_in_worker`): one process of
#: its own.
LENS_ROLE = "lens"
TOKENISE_CHUNK_CHARS = 50_000  # characters per tokenising task, at most (unless a single text is longer)


def tokenised_in_workers(name: str) -> bool:
    """Whether level ``name`` is tokenised by the worker processes in a large run (its declared
    :attr:`~korean_eval.levels.base.TokenLevel.in_workers`; Kiwi in a worker of its own, :data:`KIWI_ROLE`)."""
    from korean_eval.levels.registry import level_class

    return level_class(name).in_workers


def holds_large_model(name: str) -> bool:
    """Whether level ``name``'s analyzer loads a model of hundreds of MB into the process that runs it (its declared
    :attr:`~korean_eval.levels.base.TokenLevel.large_model`: Kiwi's model ≈ 0.5 GB, KoNLPy's JVM ≈ 0.45 GB): with
    :func:`~korean_eval.engine.pools.set_analyzers_in_workers` it runs in the worker processes whatever the run's
    size, so that its memory is returned when the pools end."""
    from korean_eval.levels.registry import level_class

    return level_class(name).large_model


def level_role(name: str) -> str:
    """The pool role whose workers tokenise level ``name``: the process of its own the level declares
    (:attr:`~korean_eval.levels.base.TokenLevel.pool_role`, Kiwi's :data:`KIWI_ROLE`); with a bound on the analyzer
    processes (:func:`korean_eval.engine.pools.set_analyzer_processes`), a process of its own for each other
    analyzer with a large model (KoNLPy's), which ends when another analyzer needs the room; else the main pool."""
    from korean_eval.levels.registry import level_class

    cls = level_class(name)
    if cls.pool_role:
        return cls.pool_role
    if cls.large_model and analyzer_processes() is not None:
        return name
    return MAIN_ROLE


def text_chunks(texts: Sequence[str], max_chars: int | None = None) -> list[list[str]]:
    """``texts`` cut into consecutive chunks of at most ``max_chars`` characters (default
    :data:`TOKENISE_CHUNK_CHARS`; a single longer text is a chunk of its own). The boundaries depend on the texts
    only, never on the number of workers."""
    if not texts:
        return []
    target = max(1, TOKENISE_CHUNK_CHARS if max_chars is None else max_chars)
    out: list[list[str]] = [[]]
    size = 0
    for text in texts:
        if out[-1] and size + len(text) > target:
            out.append([])
            size = 0
        out[-1].append(text)
        size += len(text)
    return out


def task_tokenize(name: str, texts: list[str]):
    """Tokens (space-joined) of ``texts`` at level ``name`` (the worker's analyzer, loaded once per process), its
    tokenizer seconds and fallbacks; ``RuntimeError`` naming the reason when the level is unavailable here."""
    start = time.process_time()
    result = get_level(name).tokenize_joined(texts)
    return (result.joined, result.seconds, result.fallbacks), time.process_time() - start


def task_bleu(options: tuple, hyps: list[str], ref_index: list[int], unique_refs: list[tuple[str, ...]]):
    """BLEU statistics of a chunk (:func:`~korean_eval.metrics.ngram_statistics.bleu_statistics` with the same
    sacrebleu object as :class:`BleuMetric` uses), each distinct reference laid out once; (array, CPU seconds)."""
    from korean_eval.metrics.ngram_statistics import bleu_statistics  # numba: imported when needed

    start = time.process_time()
    metric = BleuMetric(**BLEU_DECLARATION.validate_options(dict(options)))
    out = bleu_statistics(metric._corpus, hyps, ref_index, unique_refs)
    return out, time.process_time() - start


def _chrf_object(spec: tuple):
    from sacrebleu.metrics import CHRF

    char_order, word_order, beta, lowercase, whitespace, eps_smoothing = spec
    return CHRF(char_order=char_order, word_order=word_order, beta=beta, lowercase=lowercase,
                whitespace=whitespace, eps_smoothing=eps_smoothing)


def task_chrf(spec: tuple, hyps: list[str], ref_index: list[int], unique_refs: list[tuple[str, ...]]):
    """chrF statistic blocks of a chunk for sacrebleu's ``CHRF(*spec)``
    (:func:`~korean_eval.metrics.ngram_statistics.chrf_statistics`); (array, CPU seconds)."""
    from korean_eval.metrics.ngram_statistics import chrf_statistics  # numba: imported when needed

    start = time.process_time()
    out = chrf_statistics(_chrf_object(spec), hyps, ref_index, unique_refs)
    return out, time.process_time() - start


def task_generic(
    name: str, options: tuple, runtime: tuple, hyps: list[str], refs: list[list[str]], corpus: list | None = None
):
    """Any registered metric's ``segment_statistics`` (all the pairs in one call, as the metric expects); a metric
    that depends on the reference corpus is first prepared with it (``corpus``, each segment's references once)."""
    start = time.process_time()
    metric = make_metric(name, dict(options), **dict(runtime))
    if corpus is not None:
        metric.prepare(corpus)
    out = np.asarray(metric.segment_statistics(hyps, refs), dtype=np.float64).reshape(len(hyps), -1)
    return out, time.process_time() - start


class Job:
    """One task, run by the pool (if given) or in this process when its result is first needed. Lists of texts
    among its arguments go to the pool as :class:`~korean_eval.engine.packed_texts.PackedTexts` (pickling a ``str``
    would keep a UTF-8 copy inside it in this process)."""

    def __init__(self, fn: Callable, args: tuple, owner: tuple[str, str], sched: Scheduler, pool):
        self.fn, self.args, self.owner, self.sched = fn, args, owner, sched
        self.pool = pool
        self.future: Future | None = None
        self._value: np.ndarray | None = None
        if pool is not None:
            try:
                self.future = pools.submit(pool, fn, *(PackedTexts(a) if packable(a) else a for a in args))
            except (BrokenProcessPool, RuntimeError):  # a broken or shut-down pool: run here when needed
                discard_pool(pool)
            else:
                sched.futures.append(self.future)

    @property
    def finished(self) -> bool:
        """Whether the task's result is there (computed here, or its future done)."""
        return self._value is not None or (self.future is not None and self.future.done())

    def result(self) -> np.ndarray:
        """The task's result: its future's, waited for while the scheduler's ``watch`` is called (which may stop the
        run, :func:`korean_eval.engine.stopping.wait_watching`); computed here without a pool or when its worker
        died."""
        if self._value is None:
            value = None
            watch = self.sched.watch
            if self.future is not None:
                start = time.perf_counter()
                try:
                    value, seconds = wait_watching(self.future, watch)
                except (BrokenProcessPool, CancelledError):  # a worker died (e.g. killed): recompute here
                    discard_pool(self.pool)
                self.sched.waited += time.perf_counter() - start
            if value is None:
                if watch is not None:
                    watch()
                start = time.perf_counter()
                value, seconds = self.fn(*self.args)
                self.sched.waited += time.perf_counter() - start
            self._value = value
            self.sched.seconds[self.owner] += seconds
            self.args = ()
            if watch is not None:
                watch()
        return self._value


class Rows:
    """Rows of statistics produced by jobs, addressed by a key (a pair index or a shared-content key)."""

    def __init__(self) -> None:
        self.jobs: list[Job] = []
        self.where: dict = {}

    def add(self, job: Job, keys: Sequence) -> None:
        j = len(self.jobs)
        self.jobs.append(job)
        for r, key in enumerate(keys):
            self.where[key] = (j, r)

    def gather(self, keys: Sequence, width: int) -> np.ndarray:
        out = np.zeros((len(keys), width))
        if not len(keys):
            return out
        loc = np.array([self.where[k] for k in keys], dtype=np.int64).reshape(-1, 2)
        for j in np.unique(loc[:, 0]):
            sel = loc[:, 0] == j
            out[sel] = self.jobs[int(j)].result()[loc[sel, 1]]
        return out


@dataclass
class Scheduler:
    """Hands statistics tasks to the worker pool (or runs them here) and keeps the seconds spent per owner.

    ``executor``: a remote pool used instead of the local processes (:class:`korean_eval.engine.dask_executor.DaskExecutor`),
    with the same threshold; ``workers`` is then its worker count."""

    workers: int
    seconds: dict = field(default_factory=lambda: defaultdict(float))
    waited: float = 0.0
    char_rows: Rows = field(default_factory=Rows)  # chrF character blocks, shared across levels
    executor: object | None = None
    futures: list = field(default_factory=list)  # every task handed to a pool, for :meth:`close`
    #: Called while a task is waited for and around a task computed here (progress; it raises to stop the run).
    watch: Callable[[], None] | None = None
    _lease: ExitStack | None = None

    def pool(self, n_pairs: int, role: str = MAIN_ROLE, wait: Callable[[], None] | None = None,
             block: bool = True):
        """The executor of a stage with ``n_pairs`` pairs to compute: None (this process) below
        :data:`PARALLEL_MIN_PAIRS` or with one worker; else the Dask cluster, or the local pool of ``role`` (an
        analyzer's role: one process, possibly waited for, calling ``wait``, or None at once when it must wait and not
        ``block``: :func:`korean_eval.engine.pools.pool_for`)."""
        if n_pairs < PARALLEL_MIN_PAIRS or (self.workers <= 1 and self.executor is None):
            return None
        if self.executor is not None:
            return self.executor.for_role(role) if hasattr(self.executor, "for_role") else self.executor
        return pools.pool_for(self.workers if role == MAIN_ROLE else 1, role, wait or self.watch, block)

    def analyzer_pool(self, level: str, wait: Callable[[], None] | None = None, block: bool = True):
        """The local pool that tokenises ``level`` in a run too small for :meth:`pool`: that of its role when the
        level's analyzer loads a large model and :func:`~korean_eval.engine.pools.analyzers_in_workers` is on; else
        None (this process)."""
        if self.executor is not None or not holds_large_model(level) or not analyzers_in_workers():
            return None
        role = level_role(level)
        return pools.pool_for(self.workers if role == MAIN_ROLE else 1, role, wait or self.watch, block)

    def submit(self, fn: Callable, args: tuple, owner: tuple[str, str], pool) -> Job:
        return Job(fn, args, owner, self, pool)

    def close(self) -> int:
        """Cancel this run's tasks still waiting in a pool (a task already running finishes, its result unused);
        the number cancelled. Called when the run ends, however it ends."""
        cancelled = sum(1 for future in self.futures if not future.done() and future.cancel())
        self.futures.clear()
        return cancelled

    def __enter__(self) -> Scheduler:
        """Hold a lease on the pools (:func:`pools_in_use`) for the run."""
        self._lease = ExitStack()
        self._lease.enter_context(pools_in_use())
        return self

    def __exit__(self, *exc) -> None:
        """:meth:`close`, then give the lease back."""
        try:
            self.close()
        finally:
            lease, self._lease = self._lease, None
            if lease is not None:
                lease.close()


def chunks(indices: Sequence[int], ref_ids: np.ndarray, parallel: bool) -> list[np.ndarray]:
    """``indices`` ordered by reference and cut into chunks of about :data:`CHUNK_PAIRS` (one chunk if serial)."""
    idx = np.asarray(indices, dtype=np.int64)
    if not len(idx):
        return []
    idx = idx[np.argsort(ref_ids[idx], kind="stable")]
    n_chunks = max(1, -(-len(idx) // CHUNK_PAIRS)) if parallel else 1
    return [c for c in np.array_split(idx, n_chunks) if len(c)]


def local_refs(chunk: np.ndarray, ref_ids: np.ndarray, unique_refs: Sequence[tuple[str, ...]]):
    """(reference index per pair of the chunk, the chunk's distinct references)."""
    local: dict[int, int] = {}
    ref_index = [local.setdefault(int(ref_ids[i]), len(local)) for i in chunk]
    return ref_index, [unique_refs[g] for g in local]




def make_scheduler(config) -> Scheduler:
    """The task scheduler of a run: the local worker processes (``config.jobs``), or the Dask cluster at
    ``config.scheduler`` (:mod:`korean_eval.engine.dask_executor`, imported only then)."""
    if config.scheduler is None:
        return Scheduler(worker_count(config.jobs))
    from korean_eval.engine.dask_executor import connect

    executor = connect(config.scheduler)
    return Scheduler(executor.workers, executor=executor)


def warm_up(levels: Sequence[str]) -> bool:
    """Start the worker process of its own of each of ``levels`` that declares one
    (:attr:`~korean_eval.levels.base.TokenLevel.pool_role`: Kiwi's) and load its model there, in the background,
    when such analyzers run only in workers (:func:`analyzers_in_workers`) and that worker is not running: the
    dashboard calls it while a user is still choosing data, so that the first evaluation does not wait for the
    process and the model (seconds). Whether it started one. The worker is released with the other pools when idle."""
    from korean_eval.levels.registry import level_class, level_names

    if not analyzers_in_workers():
        return False
    started = False
    for name in (n for n in levels if n in level_names() and level_class(n).pool_role):
        role = level_class(name).pool_role
        if role in pools.pool_state()["roles"]:
            continue
        pool = pools.pool_for(1, role, block=False)
        if pool is None:
            continue
        try:
            pools.submit(pool, task_tokenize, name, ["한국어"])
        except (BrokenProcessPool, RuntimeError):
            continue
        started = True
    return started



