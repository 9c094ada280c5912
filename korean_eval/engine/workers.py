"""Worker processes for the pipeline: a shared process pool, the tasks it runs, and their bookkeeping.

The statistics of a level are cut into chunks of :data:`CHUNK_PAIRS` pairs (ordered by reference, so each chunk
pre-processes each of its references once) and computed in a pool of *spawned* worker processes while the main
process tokenises the next level; inputs with fewer than :data:`PARALLEL_MIN_PAIRS` pairs to compute stay in the
calling process. Every task computes its numbers with sacrebleu's own code (or the registered metric's), so the
results are identical to a serial run; a worker that dies only costs time (its work is redone in the caller).

Lifetime of the workers (docs/design.md §7):

* A worker ignores SIGINT: Ctrl+C in a terminal reaches the whole process group, and the parent decides (it ends
  its workers when it exits).
* A worker ends itself as soon as its parent is gone, even when the parent was killed (SIGKILL, out of memory):
  a watch thread waits on a *lifeline*, a pipe whose only writing end the parent holds, and exits when the pipe
  closes (the parent closed it or died); it also polls ``os.getppid()`` in case the pipe's end leaked into another
  process. ``prctl(PR_SET_PDEATHSIG)`` is not used: Linux sends that signal when the *thread* that started the
  worker ends, and the dashboard starts the pool from a script-run thread that ends after every run.
* At exit the parent closes every lifeline *before* ``concurrent.futures`` joins its pool (which would otherwise
  finish every queued task first), so a stopped process does not linger.
* A run holds a *lease* on the pools while it uses them (:class:`Scheduler` as a context manager,
  :func:`pools_in_use`). With an idle release set (:func:`set_idle_release`, ``$KOREAN_EVAL_POOL_IDLE_SECONDS``),
  the pools end once no lease was held for that many seconds, and with them every analyzer model their workers
  loaded; the next run starts them again. A run that stops early (an exception, a dashboard session that went away)
  cancels its tasks still queued (:meth:`Scheduler.close`), so none of its work is left in the pool.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

import numpy as np

from korean_eval.engine.blas_threads import pin_blas_threads
from korean_eval.engine.packed_texts import PackedTexts, packable
from korean_eval.engine.progress import REPORT_SECONDS
from korean_eval.engine.stopping import EvaluationStopped, wait_watching
from korean_eval.levels.registry import get_level
from korean_eval.metrics import make_metric
from korean_eval.metrics.sacre import BleuMetric

PARALLEL_MIN_PAIRS_ENV = "KOREAN_EVAL_PARALLEL_MIN_PAIRS"
POOL_IDLE_ENV = "KOREAN_EVAL_POOL_IDLE_SECONDS"
ANALYZERS_IN_WORKERS_ENV = "KOREAN_EVAL_ANALYZERS_IN_WORKERS"
CHUNK_PAIRS = 1024  # pairs per task handed to a worker process
PARENT_POLL_SECONDS = 1.0  # how often a worker's watch thread checks os.getppid()


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


def idle_seconds_setting(raw: str | None) -> float | None:
    """Seconds of idleness after which the pools end, from a setting's text: None (never) for an empty text or
    ``"never"``; else a number ≥ 0. ``ValueError`` naming :data:`POOL_IDLE_ENV` otherwise."""
    if raw is None or not raw.strip() or raw.strip().lower() == "never":
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise ValueError(f"{POOL_IDLE_ENV} must be a number of seconds ≥ 0 or 'never', got {raw!r}")
    return value


def flag_setting(name: str, raw: str | None) -> bool:
    """A yes/no setting's text: ``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off`` (any case; empty:
    no). ``ValueError`` naming the setting otherwise."""
    text = (raw or "").strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("", "0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be 1 or 0 (yes or no), got {raw!r}")

#: The shared pools by role: ``"main"`` (every task but the Kiwi analyser's) and ``"kiwi"`` (one process that loads
#: Kiwi's model once and analyses on Kiwi's own native threads): role → (pool, workers).
_POOLS: dict[str, tuple[ProcessPoolExecutor, int]] = {}
_POOL_LOCK = threading.Lock()
_LIFELINES: dict[ProcessPoolExecutor, tuple[Connection, Connection]] = {}  # each pool's lifeline (read, write ends)


@dataclass
class _Idle:
    """The pools' idle release: runs holding a lease now, the seconds after the last one ends before the pools end
    (None: never), the timer waiting for them, its generation (a timer of an earlier generation does nothing) and
    how many times pools were released (for tests and benchmarks)."""

    seconds: float | None
    leases: int = 0
    timer: threading.Timer | None = None
    generation: int = 0
    releases: int = 0


_IDLE = _Idle(idle_seconds_setting(os.environ.get(POOL_IDLE_ENV)))
#: Whether the analyzers that load a large model (:data:`WORKER_ANALYZER_LEVELS`) always run in the worker
#: processes, however small the run (:func:`set_analyzers_in_workers`); the dashboard turns it on.
_ANALYZERS_IN_WORKERS = [flag_setting(ANALYZERS_IN_WORKERS_ENV, os.environ.get(ANALYZERS_IN_WORKERS_ENV))]


def worker_count(jobs: int | None) -> int:
    """Worker processes for ``EvalConfig.jobs`` (None or 0: one per core)."""
    return max(1, jobs or os.cpu_count() or 1)


def _end_all_pools() -> None:
    """Cancel what is queued and end every worker now (their lifelines close); runs at the start of exit."""
    with _POOL_LOCK:
        pools = list(_LIFELINES.items())
        _LIFELINES.clear()
        _POOLS.clear()
        _disarm()
    for pool, lifeline in pools:
        pool.shutdown(wait=False, cancel_futures=True)
        _close(lifeline)


def set_idle_release(seconds: float | None) -> None:
    """End the pools (and the analyzer models their workers hold) once no run has used them for ``seconds``
    (None: keep them as long as the process lives, the default unless ``$KOREAN_EVAL_POOL_IDLE_SECONDS`` is set).
    A later run starts them again."""
    if seconds is not None and not seconds >= 0:
        raise ValueError(f"idle seconds must be ≥ 0 or None, got {seconds!r}")
    with _POOL_LOCK:
        _IDLE.seconds = seconds
        _disarm()
        _arm()


def set_analyzers_in_workers(on: bool) -> None:
    """Run the analyzers of :data:`WORKER_ANALYZER_LEVELS` in the worker processes even in a run too small for the
    pool, so that their models are loaded only there and go with the pools' idle release (a long-lived process such
    as the dashboard); off by default (``$KOREAN_EVAL_ANALYZERS_IN_WORKERS``)."""
    _ANALYZERS_IN_WORKERS[0] = bool(on)


def analyzers_in_workers() -> bool:
    """Whether :func:`set_analyzers_in_workers` is on."""
    return _ANALYZERS_IN_WORKERS[0]


@contextmanager
def pools_in_use() -> Iterator[None]:
    """A lease on the pools for the duration of the block: no idle release while it is held."""
    with _POOL_LOCK:
        _IDLE.leases += 1
        _disarm()
    try:
        yield
    finally:
        with _POOL_LOCK:
            _IDLE.leases -= 1
            _arm()


def pool_state() -> dict[str, object]:
    """The pools now: ``roles`` (role → worker processes), ``leases`` (runs holding one), ``idle_seconds`` and
    ``releases`` (idle releases so far)."""
    with _POOL_LOCK:
        return {"roles": {role: workers for role, (_, workers) in _POOLS.items()}, "leases": _IDLE.leases,
                "idle_seconds": _IDLE.seconds, "releases": _IDLE.releases}


def queued_tasks() -> int:
    """Tasks waiting in the local pools that no worker has started (cancelled ones not counted): none once every
    run that handed them out has ended, however it ended (:meth:`Scheduler.close`)."""
    with _POOL_LOCK:
        pools = [pool for pool, _ in _POOLS.values()]
    waiting = 0
    for pool in pools:
        pending = getattr(pool, "_pending_work_items", {})  # concurrent.futures' own bookkeeping
        while True:
            try:
                items = list(pending.values())
                break
            except RuntimeError:  # changed by the pool's thread meanwhile
                continue
        waiting += sum(1 for item in items if not item.future.running() and not item.future.done())
    return waiting


def _disarm() -> None:
    """Stop the idle timer (``_POOL_LOCK`` held)."""
    _IDLE.generation += 1
    if _IDLE.timer is not None:
        _IDLE.timer.cancel()
        _IDLE.timer = None


def _arm() -> None:
    """Start the idle timer when pools exist, no lease is held and an idle release is set (``_POOL_LOCK`` held)."""
    if _IDLE.seconds is None or _IDLE.leases or not _POOLS or _IDLE.timer is not None:
        return
    timer = threading.Timer(_IDLE.seconds, _release_idle_pools, args=(_IDLE.generation,))
    timer.daemon = True
    timer.name = "korean-eval-pool-idle"
    _IDLE.timer = timer
    timer.start()


def _release_idle_pools(generation: int) -> None:
    """The idle timer's end: every pool ends (its workers and their analyzer models) unless a run took a lease
    since the timer started."""
    with _POOL_LOCK:
        if generation != _IDLE.generation or _IDLE.leases:
            return
        _IDLE.timer = None
        pools = [(pool, _LIFELINES.pop(pool, None)) for pool, _ in _POOLS.values()]
        _POOLS.clear()
        _IDLE.releases += 1
    for pool, lifeline in pools:
        pool.shutdown(wait=False, cancel_futures=True)
        if lifeline is not None:
            _close(lifeline)


def _close(lifeline: tuple[Connection, Connection]) -> None:
    for end in lifeline:
        end.close()


# Python joins a process pool's manager thread at exit, and that thread first waits for every queued task. This is
# the hook concurrent.futures registers that join with (threading's exit hooks run in reverse order of
# registration, before atexit's), so the workers are ended before the join instead of after it.
threading._register_atexit(_end_all_pools)


def _watch_parent(lifeline: Connection, parent_pid: int) -> None:
    """A worker's watch thread: end the process when the lifeline closes or the parent process is gone."""
    try:
        while not lifeline.poll(PARENT_POLL_SECONDS) and os.getppid() == parent_pid:
            pass
    except (OSError, EOFError):
        pass
    os._exit(0)


def _start_worker(lifeline: Connection, parent_pid: int) -> None:
    """Initializer of every worker process: ignore Ctrl+C, watch the parent (module docstring) and compute with one
    BLAS thread (:func:`korean_eval.engine.blas_threads.pin_blas_threads`: the same bits on any machine)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pin_blas_threads()
    if hasattr(signal, "pthread_sigmask"):  # blocked since the spawn (_ctrl_c_blocked); a pending Ctrl+C is dropped
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    threading.Thread(target=_watch_parent, args=(lifeline, parent_pid), name="watch-parent", daemon=True).start()


def _warm_up() -> int:
    """Runs in a new worker: import what the tasks need while the main process is still tokenising."""
    import sacrebleu.metrics  # noqa: F401

    return os.getpid()


def _executor(workers: int, role: str = "main") -> ProcessPoolExecutor | None:
    """The shared pool of ``workers`` processes for ``role`` ("spawn": safe beside a JVM and threads); None if
    unavailable.

    The pool lives as long as the process (a dashboard reuses it across evaluations) and is ended at exit.
    """
    if multiprocessing.parent_process() is not None:
        return None  # never from inside a worker (e.g. a script without a __main__ guard being re-imported)
    with _POOL_LOCK:
        current = _POOLS.get(role)
        if current is not None and current[1] == workers:
            return current[0]
        if current is not None:  # another worker count: the old pool finishes the work it has, then ends
            current[0].shutdown(wait=False, cancel_futures=False)
            del _POOLS[role]
        try:
            pool = _start_pool(workers)
        except (OSError, ValueError, NotImplementedError, RuntimeError):
            return None
        _POOLS[role] = (pool, workers)
        _arm()  # started outside any lease: released when idle too
        return pool


def _start_pool(workers: int) -> ProcessPoolExecutor:
    """A new pool of ``workers`` spawned processes, each warming up; its lifeline kept in ``_LIFELINES``.

    The parent keeps the reading end too: the pool spawns a worker when a task finds none idle, and every new worker
    receives a copy of it. Only the parent ever holds the writing end."""
    context = multiprocessing.get_context("spawn")
    lifeline = context.Pipe(duplex=False)
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker,
                                   initargs=(lifeline[0], os.getpid()))
    except BaseException:
        _close(lifeline)
        raise
    _LIFELINES[pool] = lifeline
    try:
        with _ctrl_c_blocked():
            for _ in range(workers):
                pool.submit(_warm_up)  # starts a worker each (the pool spawns one when none is idle)
    except BaseException:
        del _LIFELINES[pool]
        pool.shutdown(wait=False, cancel_futures=True)
        _close(lifeline)
        raise
    return pool


@contextmanager
def _ctrl_c_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread meanwhile: a spawned process inherits the signal mask, so a Ctrl+C that arrives
    while a worker is still starting up waits until its initializer ignores it (no KeyboardInterrupt traceback)."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _discard_pool(pool: ProcessPoolExecutor) -> None:
    with _POOL_LOCK:
        for role in [r for r, (p, _) in _POOLS.items() if p is pool]:
            del _POOLS[role]
        lifeline = _LIFELINES.pop(pool, None)
    pool.shutdown(wait=False, cancel_futures=True)
    if lifeline is not None:
        _close(lifeline)  # a broken pool's remaining workers end too


#: The role of Kiwi's tasks: one worker process (one Dask worker on a cluster) loads Kiwi's model (≈ 0.45 GB) once
#: and analyses on Kiwi's own native threads, so that the model's memory does not grow with the worker count.
KIWI_ROLE = "kiwi"
#: The analyzers that load a model of hundreds of MB into the process that runs them (Kiwi's model ≈ 0.5 GB, a JVM
#: for KoNLPy's ≈ 0.45 GB): with :func:`set_analyzers_in_workers` they run in the worker processes whatever the run's
#: size, so their memory is returned when the pools end.
WORKER_ANALYZER_LEVELS = ("kiwi", "okt", "komoran", "kkma", "hannanum")
#: The role of the Korean lens run as one task (:func:`run_in_worker`): one process of its own, beside Kiwi's.
LENS_ROLE = "lens"
TOKENISE_CHUNK_CHARS = 50_000  # characters per tokenising task, at most (unless a single text is longer)


def tokenised_in_workers(name: str) -> bool:
    """Whether level ``name`` is tokenised by the worker processes in a large run (its declared
    :attr:`~korean_eval.levels.base.TokenLevel.in_workers`; Kiwi in a worker of its own, :data:`KIWI_ROLE`)."""
    from korean_eval.levels.registry import LEVEL_CLASSES

    return LEVEL_CLASSES[name].in_workers


def level_role(name: str) -> str:
    """The pool role whose workers tokenise level ``name``."""
    return KIWI_ROLE if name == "kiwi" else "main"


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
    metric = make_metric("bleu", dict(options))
    assert isinstance(metric, BleuMetric)
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
                self.future = pool.submit(fn, *(PackedTexts(a) if packable(a) else a for a in args))
            except (BrokenProcessPool, RuntimeError):  # a broken or shut-down pool: run here when needed
                _discard_pool(pool)
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
                    _discard_pool(self.pool)
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

    def pool(self, n_pairs: int, role: str = "main"):
        """The executor of a stage with ``n_pairs`` pairs to compute: None (this process) below
        :data:`PARALLEL_MIN_PAIRS` or with one worker; else the Dask cluster, or the local pool of ``role`` (Kiwi's
        role: one process)."""
        if n_pairs < PARALLEL_MIN_PAIRS or (self.workers <= 1 and self.executor is None):
            return None
        if self.executor is not None:
            return self.executor.for_role(role) if hasattr(self.executor, "for_role") else self.executor
        return _executor(1 if role == KIWI_ROLE else self.workers, role)

    def analyzer_pool(self, level: str):
        """The local pool that tokenises ``level`` in a run too small for :meth:`pool`: that of its role when the
        level's analyzer loads a large model and :func:`analyzers_in_workers` is on; else None (this process)."""
        if self.executor is not None or level not in WORKER_ANALYZER_LEVELS or not analyzers_in_workers():
            return None
        role = level_role(level)
        return _executor(1 if role == KIWI_ROLE else self.workers, role)

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


def warm_up_kiwi() -> bool:
    """Start Kiwi's worker process and load its model there, in the background, when Kiwi analyses only in workers
    (:func:`analyzers_in_workers`) and that worker is not running: the dashboard calls it while a user is still
    choosing data, so that the first evaluation does not wait for the process and the model (seconds). Whether it
    started one. The worker is released with the other pools when idle."""
    if not analyzers_in_workers() or multiprocessing.parent_process() is not None:
        return False
    with _POOL_LOCK:
        if KIWI_ROLE in _POOLS:
            return False
    pool = _executor(1, KIWI_ROLE)
    if pool is None:
        return False
    try:
        pool.submit(task_tokenize, "kiwi", ["한국어"])
    except (BrokenProcessPool, RuntimeError):
        return False
    return True


def _task_reporting(fn: Callable, args: tuple, report: Connection | None):
    """Runs in a worker: ``fn(*args, progress=…)`` with its ``progress(fraction, message)`` calls sent on
    ``report`` (when given); the report connection is closed at the end. Once the caller has closed its end (it
    stopped waiting: :func:`run_in_worker`), the next report raises
    :class:`~korean_eval.engine.stopping.EvaluationStopped`, which ends the task."""
    if report is None:
        return fn(*args)

    def progress(fraction: float, message: str) -> None:
        try:
            if report.poll():  # the caller's end closed (or a word from it): nobody waits for this task
                raise EvaluationStopped()
            report.send((fraction, message))
        except OSError:
            raise EvaluationStopped() from None

    try:
        return fn(*args, progress=progress)
    finally:
        report.close()


def run_in_worker(fn: Callable, args: tuple, role: str, progress: Callable[[float, str], None] | None = None,
                  poll_seconds: float = 0.25):
    """``fn(*args)`` in a worker process of ``role``'s pool (one process), a lease on the pools held meanwhile, so
    that what ``fn`` loads (an analyzer's model) lives only there and ends with the pools; in this process when no
    pool can start (inside a worker, or spawning fails) or its worker died.

    With ``progress``, ``fn`` is called with a ``progress`` keyword argument too, whose calls in the worker reach
    ``progress`` here (the last one again every :data:`~korean_eval.engine.progress.REPORT_SECONDS` while no new
    one comes, so that a caller that stops in its callback is heard soon). Whatever ``progress`` raises (the dashboard's Stop button, its session gone) cancels the
    task if it has not started, else stops it at its next report in the worker (that report raises
    :class:`~korean_eval.engine.stopping.EvaluationStopped` there), and is raised again. ``fn`` and its arguments
    must be picklable (module-level functions).
    """

    def here():
        return fn(*args, progress=progress) if progress is not None else fn(*args)

    with pools_in_use():
        pool = _executor(1, role)
        if pool is None:
            return here()
        # the worker's end stays open here until the task ends: the pool pickles (duplicates) it after submit
        # returns; closing this end tells a running task to stop (_task_reporting)
        ends = multiprocessing.get_context("spawn").Pipe(duplex=True) if progress is not None else None
        try:
            try:
                future = pool.submit(_task_reporting, fn, args, ends[1] if ends else None)
            except (BrokenProcessPool, RuntimeError):
                _discard_pool(pool)
                return here()
            try:
                last, sent = None, time.monotonic()
                while not future.done():
                    if ends is None:
                        try:
                            return future.result(timeout=poll_seconds)
                        except TimeoutError:
                            continue
                    if ends[0].poll(poll_seconds):
                        last, sent = ends[0].recv(), time.monotonic()
                        progress(*last)
                    elif last is not None and time.monotonic() - sent >= REPORT_SECONDS:  # the last one again
                        sent = time.monotonic()
                        progress(*last)
                while ends is not None and ends[0].poll(0):  # what the task reported before it finished
                    fraction, message = ends[0].recv()
                    progress(fraction, message)
                return future.result()
            except (BrokenProcessPool, CancelledError):
                _discard_pool(pool)
                return here()
            except BaseException:
                future.cancel()
                raise
        finally:
            if ends is not None:
                _close(ends)
