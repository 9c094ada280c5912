"""The worker pool's tasks on a Dask distributed cluster instead of local processes (``--scheduler ADDRESS``,
``EvalConfig.scheduler``; docs/usage.md, "On a Dask cluster").

The engine hands every task — tokenising chunks of texts, each metric's statistics in chunks, each cell's
meta-evaluation, the statistics stage in chunks — to an executor with ``submit(fn, *args)`` returning a future.
Locally that is a process pool; here it is ``dask.distributed.Client(ADDRESS).submit(fn, *args, pure=False)`` on an
existing cluster (started with ``dask scheduler`` and ``dask worker ADDRESS``; Dask's scheduler, none of ours). The
tasks are the same functions with the same arguments, so the numbers are identical to a local run. Each worker
process keeps the analyzers it loads (MeCab, a JVM for KoNLPy) in :mod:`korean_eval.levels.registry`'s per-process
caches; Kiwi's tasks prefer one worker (:meth:`DaskExecutor.for_role`), so one worker of the cluster loads Kiwi's
model.

Requirements: the workers run the same korean-eval and library versions as the client (the package must be
importable there); a task of a worker that dies is retried by Dask on another worker and, if the cluster gives
up (``KilledWorker``), recomputed in the calling process like a task of a dead local worker; a failure of the
cluster itself (a result that cannot be fetched, a worker that cannot load korean-eval's tasks) ends the run with a
``RuntimeError`` naming the scheduler's address. As with the local pool, inputs with fewer than
:data:`korean_eval.engine.workers.PARALLEL_MIN_PAIRS` pairs to compute stay in the calling process.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError

CONNECT_TIMEOUT = 20  # seconds to reach the scheduler and to wait for a first worker
#: Seconds between two looks at whether a task finished while a caller waits for it with a timeout.
POLL_SECONDS = 0.01

_CLIENTS: dict[str, DaskExecutor] = {}
_LOCK = threading.Lock()


class DaskFuture:
    """A Dask task's future with the interface of :class:`concurrent.futures.Future` that the engine waits on.

    ``result(timeout)`` waits here, looking at ``done()`` every :data:`POLL_SECONDS`, and fetches the value only once
    the task finished: ``distributed.Future.result(timeout=…)`` is never called, because its timeout cancels the
    client's fetch of results, which concurrent fetches share, and one of those then fails with an
    ``UnboundLocalError`` from ``distributed.utils.sync`` instead of a value. A task the cluster gave up on
    (``KilledWorker``, cancelled) is reported as :class:`concurrent.futures.CancelledError`, which makes
    :class:`korean_eval.engine.workers.Job` recompute it here; a failure of the cluster itself as a
    ``RuntimeError`` naming the scheduler's address; an exception the task raised, as it is.
    """

    def __init__(self, future, lost: tuple[type[BaseException], ...], address: str):
        self._future, self._lost, self._address = future, lost, address

    def result(self, timeout: float | None = None):
        """The task's value, waited for; with ``timeout``, :class:`TimeoutError` when the task has not finished
        within ``timeout`` seconds (it keeps running)."""
        if timeout is not None and not self._finished_within(timeout):
            raise TimeoutError(f"the Dask task has not finished within {timeout} s")
        try:
            return self._future.result()
        except self._lost as err:
            raise CancelledError(f"the Dask cluster lost the task: {err}") from err
        except Exception as err:
            if self._future.status != "error":  # the task finished, its value could not be fetched
                raise RuntimeError(f"the Dask cluster at {self._address} did not return a task's result: "
                                   f"{type(err).__name__}: {err}") from err
            if isinstance(err, ImportError):  # the task could not be loaded on the worker
                raise RuntimeError(f"a worker of the Dask cluster at {self._address} cannot run korean-eval's "
                                   f"tasks (it needs the same korean-eval and libraries as here): {err}") from err
            raise

    def _finished_within(self, timeout: float) -> bool:
        """Whether the task finished (or failed) within ``timeout`` seconds, looking every :data:`POLL_SECONDS`."""
        deadline = time.monotonic() + timeout
        while not self._future.done():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(POLL_SECONDS, left))
        return True

    def done(self) -> bool:
        """Whether the task finished (or failed)."""
        return self._future.done()

    def cancel(self) -> bool:
        """Cancel the task on the cluster; True (Dask cancels queued and running tasks alike)."""
        self._future.cancel()
        return True


class DaskExecutor:
    """The pool interface the pipeline uses (``submit``, ``shutdown``), on a ``distributed.Client``.

    Attributes:
        address: the scheduler's address; workers: the cluster's worker threads when connected (chunk counts).
    """

    def __init__(self, client, address: str):
        from distributed.scheduler import KilledWorker

        self.client, self.address = client, address
        self.workers = max(1, sum(client.nthreads().values()))
        self._lost = (KilledWorker, asyncio.CancelledError, CancelledError)

    def submit(self, fn: Callable, *args) -> DaskFuture:
        return DaskFuture(self.client.submit(fn, *args, pure=False), self._lost, self.address)

    def for_role(self, role: str) -> DaskExecutor | PinnedExecutor:
        """The executor of a task role: the tasks of a level's process of its own
        (:attr:`~korean_eval.levels.base.TokenLevel.pool_role`, Kiwi's :data:`korean_eval.engine.workers.KIWI_ROLE`)
        prefer one worker (the first by address), so that one worker loads its model; every other role, the whole
        cluster."""
        from korean_eval.levels.registry import LEVEL_CLASSES

        if role not in {cls.pool_role for cls in LEVEL_CLASSES.values() if cls.pool_role}:
            return self
        addresses = sorted(self.client.scheduler_info()["workers"])
        return PinnedExecutor(self, addresses[:1]) if addresses else self

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Nothing: the connection is kept for the process's later evaluations (closed at exit)."""


class PinnedExecutor:
    """Tasks preferring the given Dask workers; when those are lost, the scheduler runs them on any other."""

    def __init__(self, base: DaskExecutor, workers: list[str]):
        self.base, self.pinned = base, workers

    def submit(self, fn: Callable, *args) -> DaskFuture:
        future = self.base.client.submit(fn, *args, pure=False, workers=self.pinned, allow_other_workers=True)
        return DaskFuture(future, self.base._lost, self.base.address)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Nothing: the base executor's connection is kept."""


def connect(address: str) -> DaskExecutor:
    """The executor on the Dask scheduler at ``address`` (one connection per address and process, kept);
    ``RuntimeError`` naming the address when Dask is not installed, the scheduler cannot be reached or has no
    worker."""
    with _LOCK:
        if address in _CLIENTS and _CLIENTS[address].client.status == "running":
            return _CLIENTS[address]
        try:
            from distributed import Client
        except ImportError as err:
            raise RuntimeError(f"--scheduler needs the 'distributed' package (requirements.txt): {err}") from None
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as err:
            raise RuntimeError(f"cannot reach the Dask scheduler at {address}: {err}") from None
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as err:
            client.close()
            raise RuntimeError(f"the Dask scheduler at {address} has no worker: {err}") from None
        _CLIENTS[address] = DaskExecutor(client, address)
        return _CLIENTS[address]


def disconnect(address: str | None = None) -> None:
    """Close the connection to the scheduler at ``address`` (None: every connection); the next :func:`connect`
    opens a new one. Called at exit."""
    with _LOCK:
        for key in [a for a in _CLIENTS if address is None or a == address]:
            _CLIENTS.pop(key).client.close()


atexit.register(disconnect)
