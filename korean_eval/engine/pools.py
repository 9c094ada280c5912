"""The shared worker processes: one pool per *role*, their lifetimes, their idle release and the bound on the
processes that hold an analyzer's model.

Roles: :data:`MAIN_ROLE` (``jobs`` processes: every statistics task, and the tokenising of the levels that load no
large model), and one-process roles, each holding one analyzer's model (Kiwi's, a JVM with one of KoNLPy's
analyzers, the Korean lens's). With a bound on those (:func:`set_analyzer_processes`,
``$KOREAN_EVAL_ANALYZER_PROCESSES``; the dashboard's default is one), starting an analyzer process first ends the
least recently used ones that have no task left, and waits while every one of them is busy: the memory of a run
that ticks every level is that of its largest analyzer, not the sum of them.

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
* A run holds a *lease* on the pools while it uses them (:func:`pools_in_use`). With an idle release set
  (:func:`set_idle_release`, ``$KOREAN_EVAL_POOL_IDLE_SECONDS``), the pools end once no lease was held for that
  many seconds, and with them every analyzer model their workers loaded; the next run starts them again.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection

from korean_eval.engine.blas_threads import pin_blas_threads

POOL_IDLE_ENV = "KOREAN_EVAL_POOL_IDLE_SECONDS"
ANALYZERS_IN_WORKERS_ENV = "KOREAN_EVAL_ANALYZERS_IN_WORKERS"
ANALYZER_PROCESSES_ENV = "KOREAN_EVAL_ANALYZER_PROCESSES"
PARENT_POLL_SECONDS = 1.0  # how often a worker's watch thread checks os.getppid()
WAIT_POLL_SECONDS = 0.25  # how often a run waiting for an analyzer process calls its ``wait``
#: The role of the statistics tasks and of the levels without a large model: ``jobs`` processes.
MAIN_ROLE = "main"


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


def analyzer_processes_setting(raw: str | None) -> int | None:
    """How many analyzer processes may live at once, from a setting's text: None (no bound) for an empty text or
    ``"any"``; else a whole number ≥ 1. ``ValueError`` naming :data:`ANALYZER_PROCESSES_ENV` otherwise."""
    if raw is None or not raw.strip() or raw.strip().lower() == "any":
        return None
    text = raw.strip()
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{ANALYZER_PROCESSES_ENV} must be a whole number ≥ 1 or 'any', got {raw!r}")
    return int(text)


#: The shared pools by role (module docstring): role → (pool, workers).
_POOLS: dict[str, tuple[ProcessPoolExecutor, int]] = {}
_POOL_LOCK = threading.Lock()
#: Notified whenever a task ends or a pool ends (a run waiting for an analyzer process looks again).
_CHANGED = threading.Condition(_POOL_LOCK)
_LIFELINES: dict[ProcessPoolExecutor, tuple[Connection, Connection]] = {}  # each pool's lifeline (read, write ends)
_IN_FLIGHT: dict[ProcessPoolExecutor, set[Future]] = {}  # tasks handed to each pool (by :func:`submit`), not done
_LAST_USED: dict[str, float] = {}  # role → when a run last asked for its pool (monotonic seconds)
_ANALYZER_PROCESSES = [analyzer_processes_setting(os.environ.get(ANALYZER_PROCESSES_ENV))]


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
#: Whether the analyzers that load a large model (:func:`korean_eval.engine.workers.holds_large_model`) always run in the worker
#: processes, however small the run (:func:`set_analyzers_in_workers`); the dashboard turns it on.
_ANALYZERS_IN_WORKERS = [flag_setting(ANALYZERS_IN_WORKERS_ENV, os.environ.get(ANALYZERS_IN_WORKERS_ENV))]


def set_analyzer_processes(limit: int | None) -> None:
    """Let at most ``limit`` analyzer processes (the one-process roles) live at once (None: no bound, the default
    unless ``$KOREAN_EVAL_ANALYZER_PROCESSES`` is set); the processes beyond it end once they have no task."""
    if limit is not None and (not isinstance(limit, int) or limit < 1):
        raise ValueError(f"analyzer processes must be a whole number ≥ 1 or None, got {limit!r}")
    with _CHANGED:
        _ANALYZER_PROCESSES[0] = limit
        _CHANGED.notify_all()


def analyzer_processes() -> int | None:
    """The bound of :func:`set_analyzer_processes`."""
    return _ANALYZER_PROCESSES[0]


def submit(pool, fn: Callable, *args) -> Future:
    """``pool.submit(fn, *args)``; for one of these pools, counted among its tasks in flight until it is done (an
    analyzer process with a task in flight is never ended to make room for another)."""
    future = pool.submit(fn, *args)
    if not isinstance(pool, ProcessPoolExecutor):  # a Dask cluster's: not one of these pools
        return future
    with _CHANGED:
        _IN_FLIGHT.setdefault(pool, set()).add(future)
    future.add_done_callback(lambda done: _task_done(pool, done))  # at once if it is done already
    return future


def _task_done(pool, future: Future) -> None:
    with _CHANGED:
        tasks = _IN_FLIGHT.get(pool)
        if tasks is not None:
            tasks.discard(future)
            if not tasks:
                del _IN_FLIGHT[pool]
        _CHANGED.notify_all()


def worker_count(jobs: int | None) -> int:
    """Worker processes for ``EvalConfig.jobs`` (None or 0: one per core)."""
    return max(1, jobs or os.cpu_count() or 1)


def _end_all_pools() -> None:
    """Cancel what is queued and end every worker now (their lifelines close); runs at the start of exit."""
    with _POOL_LOCK:
        pools = list(_LIFELINES)
        _POOLS.clear()
        _disarm()
    for pool in pools:
        _shut(pool)


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
    """Run the analyzers of :func:`korean_eval.engine.workers.holds_large_model` in the worker processes even in a run too small for the
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


def _tracked_tasks() -> list[Future]:
    """The tasks handed to the local pools by :func:`submit` and not done."""
    with _CHANGED:
        return [future for tasks in _IN_FLIGHT.values() for future in tasks]


def tasks_in_flight() -> int:
    """Tasks handed to the local pools by :func:`submit` that have not finished (running or waiting)."""
    return sum(1 for future in _tracked_tasks() if not future.done())


def queued_tasks() -> int:
    """Tasks handed to the local pools by :func:`submit` that no worker has started (cancelled ones not counted):
    none once every run that handed them out has ended, however it ended (:meth:`Scheduler.close`)."""
    return sum(1 for future in _tracked_tasks() if not future.running() and not future.done())


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
        pools = [pool for pool, _ in _POOLS.values()]
        _POOLS.clear()
        _IDLE.releases += 1
    for pool in pools:
        _shut(pool)


def close_connections(lifeline: tuple[Connection, Connection]) -> None:
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


def pool_for(workers: int, role: str = MAIN_ROLE, wait: Callable[[], None] | None = None,
              block: bool = True) -> ProcessPoolExecutor | None:
    """The shared pool of ``workers`` processes for ``role`` ("spawn": safe beside a JVM and threads); None if
    unavailable.

    The pool lives as long as the process (a dashboard reuses it across evaluations) and is ended at exit or by the
    idle release. Starting an analyzer process (any role but :data:`MAIN_ROLE`) while the bound of
    :func:`set_analyzer_processes` is reached first ends the least recently used analyzer processes without a task
    in flight; while every one has a task, it waits (calling ``wait`` every :data:`WAIT_POLL_SECONDS`, which may
    raise to give up), or returns None at once when not ``block``.
    """
    if multiprocessing.parent_process() is not None:
        return None  # never from inside a worker (e.g. a script without a __main__ guard being re-imported)
    while True:
        ended: list[ProcessPoolExecutor] = []
        with _CHANGED:
            found, ended = _pool_or_room(workers, role)
        for pool in ended:
            _shut(pool)
        if found is not None:
            return found if isinstance(found, ProcessPoolExecutor) else None
        if not block:
            return None
        if wait is not None:
            wait()
        with _CHANGED:
            _CHANGED.wait(WAIT_POLL_SECONDS)


def _pool_or_room(workers: int, role: str) -> tuple[ProcessPoolExecutor | bool | None, list[ProcessPoolExecutor]]:
    """With ``_POOL_LOCK`` held: ``role``'s pool (started if needed; False when it cannot start), or None when an
    analyzer process must end first and every one is busy; with the pools taken out of ``_POOLS`` to make room
    (the caller ends them outside the lock)."""
    _LAST_USED[role] = time.monotonic()
    current = _POOLS.get(role)
    if current is not None and current[1] == workers:
        return current[0], []
    ended: list[ProcessPoolExecutor] = []
    if current is not None:  # another worker count: the old pool finishes the work it has, then ends
        current[0].shutdown(wait=False, cancel_futures=False)
        del _POOLS[role]
    limit = _ANALYZER_PROCESSES[0]
    if role != MAIN_ROLE and limit is not None:
        others = sorted((r for r in _POOLS if r not in (MAIN_ROLE, role)), key=lambda r: _LAST_USED.get(r, 0.0))
        idle = [r for r in others if not _IN_FLIGHT.get(_POOLS[r][0])]
        while len(others) >= limit and idle:
            victim = idle.pop(0)
            others.remove(victim)
            ended.append(_POOLS.pop(victim)[0])
        if len(others) >= limit:
            return None, ended
    try:
        pool = _start_pool(workers)
    except (OSError, ValueError, NotImplementedError, RuntimeError):
        return False, ended
    _POOLS[role] = (pool, workers)
    _arm()  # started outside any lease: released when idle too
    return pool, ended


def _shut(pool: ProcessPoolExecutor) -> None:
    """End a pool taken out of ``_POOLS``: cancel what it has queued, close its lifeline (its workers end)."""
    with _CHANGED:
        lifeline = _LIFELINES.pop(pool, None)
        _IN_FLIGHT.pop(pool, None)
        _CHANGED.notify_all()
    pool.shutdown(wait=False, cancel_futures=True)
    if lifeline is not None:
        close_connections(lifeline)


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
        close_connections(lifeline)
        raise
    _LIFELINES[pool] = lifeline
    try:
        with _ctrl_c_blocked():
            for _ in range(workers):
                pool.submit(_warm_up)  # starts a worker each (the pool spawns one when none is idle)
    except BaseException:
        del _LIFELINES[pool]
        pool.shutdown(wait=False, cancel_futures=True)
        close_connections(lifeline)
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


def discard_pool(pool: ProcessPoolExecutor) -> None:
    """Take a broken or shut-down pool out of use; its remaining workers end too."""
    with _POOL_LOCK:
        for role in [r for r, (p, _) in _POOLS.items() if p is pool]:
            del _POOLS[role]
    _shut(pool)

