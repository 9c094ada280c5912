"""The dashboard as a service shared by several users: its limits, its evaluation queue, and the housekeeping that
gives memory back when the users are gone.

* :func:`limits`: the server's :class:`korean_eval.engine.limits.ServiceLimits` (environment variables, read once),
  applied to the worker pools at the first run: idle release, the large analyzers only in worker processes; and
  the server's statistics computed with one BLAS thread, as the worker processes compute theirs
  (:func:`korean_eval.engine.blas_threads.pin_blas_threads`: the same bits on any machine, and no CPU spent by
  BLAS threads waiting on small matrix products, which cost several times the work itself on a busy server).
* :func:`warm_up`: Kiwi's worker process started while the user still chooses data (the Data page).
* :func:`queued`: runs an evaluation when the queue (:class:`korean_eval.engine.admission.EvaluationQueue`) gives it
  a turn, showing "Waiting: position 2 of 3" meanwhile.
* :func:`session_id`: the browser session a run belongs to (the queue's owner).
* :class:`Janitor`: a daemon thread that, every few seconds, drops the in-memory results no session used for
  ``result_idle_seconds`` (:meth:`ui.shared_store.SharedStore.sweep`), ends the sessions whose browser left more than
  ``server.disconnectedSessionTTL`` seconds ago together with their uploaded files (Streamlit itself only forgets
  such a session, and keeps its uploads, until another session connects), and hands the freed memory back to the
  operating system (``malloc_trim``).

Nothing here changes a number: it decides only when and where the backend runs.
"""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Callable
from typing import Protocol, TypeVar

import streamlit as st

from korean_eval.engine import pools, workers
from korean_eval.engine.admission import EvaluationQueue, QueueFull
from korean_eval.engine.blas_threads import pin_blas_threads
from korean_eval.engine.heap import trim_heap
from korean_eval.engine.limits import ServiceLimits

T = TypeVar("T")
JANITOR_STEP = 5.0  # seconds between two rounds of housekeeping, at most


class Sweepable(Protocol):
    def sweep(self) -> int: ...


@st.cache_resource(show_spinner=False)
def limits() -> ServiceLimits:
    """The server's limits (environment variables, :mod:`korean_eval.engine.limits`), applied to the worker pools
    once per process; BLAS pinned to one thread in this process (module docstring); the housekeeping thread
    started."""
    found = ServiceLimits.from_env()
    pin_blas_threads()
    pools.set_idle_release(found.pool_idle_seconds)
    pools.set_analyzers_in_workers(found.analyzers_in_workers)
    pools.set_analyzer_processes(found.analyzer_processes)
    janitor().start()
    return found


@st.cache_resource(show_spinner=False)
def evaluation_queue() -> EvaluationQueue:
    """The one queue of every session's evaluations (:func:`limits`)."""
    lim = limits()
    return EvaluationQueue(lim.max_running, lim.max_large_running, lim.session_running, lim.max_waiting)


def warm_up(levels: tuple[str, ...]) -> None:
    """Start the worker process of its own of each chosen level that declares one (Kiwi's) and its model now (in the
    background) unless it runs: the user's first evaluation then finds it ready
    (:func:`korean_eval.engine.workers.warm_up`)."""
    workers.warm_up(levels)


def session_id() -> str:
    """The id of the browser session of the current script run ("" outside one)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else ""


def large(pairs: int) -> bool:
    """Whether an evaluation of ``pairs`` pairs uses the worker pool (and counts against the large limit)."""
    return pairs >= workers.PARALLEL_MIN_PAIRS


def queued(run: Callable[[], T], pairs: int, show: Callable[[str], None]) -> T | None:
    """``run()`` once the queue gives this session a turn; meanwhile ``show(text)`` says where it waits, about twice
    a second (which is also where a session that went away stops waiting: Streamlit stops the run at its next
    message). None, after a message, when the queue is full."""
    lim = limits()
    try:
        with evaluation_queue().slot(session_id(), large(pairs), lambda p, n: show(_waiting_text(p, n, lim))):
            return run()
    except QueueFull:
        st.warning(f"The server is busy: {lim.max_waiting} evaluations are waiting already. Try again in a minute.",
                   icon=":material/hourglass_top:")
        return None


def _waiting_text(position: int, waiting: int, lim: ServiceLimits) -> str:
    if position == 0:
        return "Starting…"
    return (f"Waiting: position {position} of {waiting} in the queue — this server computes {lim.max_running} "
            f"evaluation{'s' if lim.max_running != 1 else ''} at once; yours starts when one ends.")


# -------------------------------------------------------------------------------------------- housekeeping


class Janitor:
    """Housekeeping every :data:`JANITOR_STEP` seconds in a daemon thread (see the module docstring)."""

    def __init__(self) -> None:
        self.stores: weakref.WeakSet[Sweepable] = weakref.WeakSet()
        self.rounds = 0
        self.dropped = 0
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def register(self, store: Sweepable) -> None:
        """Sweep ``store`` at every round."""
        self.stores.add(store)

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="korean-eval-janitor", daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        while True:
            time.sleep(JANITOR_STEP)
            try:
                self.round()
            except Exception:  # noqa: BLE001 - housekeeping never stops the server
                pass

    def round(self) -> int:
        """One round: sweep the stores, end expired sessions; the memory freed handed back. Returns the number of
        entries and sessions dropped."""
        dropped = sum(store.sweep() for store in list(self.stores))
        dropped += end_expired_sessions()
        self.rounds += 1
        if dropped:
            self.dropped += dropped
            gc.collect()
            trim_heap()
        return dropped


_JANITOR = Janitor()


def janitor() -> Janitor:
    """The process's one :class:`Janitor`."""
    return _JANITOR


def end_expired_sessions() -> int:
    """Shut down the sessions Streamlit keeps for a reconnect past ``server.disconnectedSessionTTL`` (with their
    uploaded files), and drop uploaded files of sessions Streamlit no longer knows; the number of sessions ended.

    Streamlit's session storage forgets an expired session only when it is next written or counted, and then never
    shuts it down, so the session's uploads would stay in memory. This reaches into Streamlit's runtime (1.67: the
    session manager's ``_session_storage._cache``, the uploaded-file manager's ``file_storage``); with another
    layout it does nothing."""
    try:
        from streamlit.runtime import Runtime

        runtime = Runtime.instance()
        manager = runtime._session_mgr
        cache = manager._session_storage._cache
        expire = cache.expire
        uploads = runtime._uploaded_file_mgr
    except (AttributeError, RuntimeError):
        return 0
    ended = 0
    with getattr(manager, "_storage_lock", threading.Lock()):
        expired = expire()
    for _key, info in expired:
        info.session.shutdown()
        ended += 1
    storage = getattr(uploads, "file_storage", None)
    if isinstance(storage, dict):
        known = {info.session.id for info in manager.list_sessions()}
        for orphan in [sid for sid in list(storage) if sid not in known]:
            uploads.remove_session_files(orphan)
            ended += 1
    return ended


