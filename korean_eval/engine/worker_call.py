"""One function call in a worker process of its own role, with its progress reported back and a way to stop it
(the Korean lens runs so: what it loads lives only in that process, which ends with the pools)."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import CancelledError
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection

from korean_eval.engine import pools
from korean_eval.engine.progress import REPORT_SECONDS
from korean_eval.engine.stopping import EvaluationStopped


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

    def waiting() -> None:
        if progress is not None:
            progress(0.0, "waiting for another evaluation's analyzer process to finish")

    with pools.pools_in_use():
        pool = pools.pool_for(1, role, waiting)
        if pool is None:
            return here()
        # the worker's end stays open here until the task ends: the pool pickles (duplicates) it after submit
        # returns; closing this end tells a running task to stop (_task_reporting)
        ends = multiprocessing.get_context("spawn").Pipe(duplex=True) if progress is not None else None
        try:
            try:
                future = pools.submit(pool, _task_reporting, fn, args, ends[1] if ends else None)
            except (BrokenProcessPool, RuntimeError):
                pools.discard_pool(pool)
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
                pools.discard_pool(pool)
                return here()
            except BaseException:
                future.cancel()
                raise
        finally:
            if ends is not None:
                pools.close_connections(ends)
