"""Stopping a running evaluation: the stop signal a caller hands in, the exception that ends the run, and waiting
for a task while watching for the stop.

A caller passes ``stop`` — a :class:`threading.Event`, or any object with ``is_set()`` — to
:func:`korean_eval.evaluate`, :func:`korean_eval.engine.pipeline.evaluate` or
:func:`korean_eval.engine.statistics.evaluation_tables`. The engine checks it between tasks and chunks, and every
:data:`WAIT_SLICE` seconds while it waits for a task of the executor (:func:`wait_watching`); once it is set, the run
raises :class:`EvaluationStopped`. A progress callback may end the run the same way, by raising (the dashboard's
Stop button interrupts its script inside the callback). On the way out the run's
:class:`~korean_eval.engine.workers.Scheduler` cancels its tasks still queued (a task already running on a worker
finishes there, its result unused), and the cache gets what the run finished — a level's tokens, a chunk's
statistics — but no result (:mod:`korean_eval.engine.held_writes`): a stopped run leaves no work queued, and the
next run with the same data starts from what it finished.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")

#: Seconds between two checks of the stop signal (and of the progress of the tasks under way) while the run waits
#: for a task of the executor.
WAIT_SLICE = 0.1


class StopSignal(Protocol):
    """What ``stop=`` accepts: a :class:`threading.Event`, or any object whose ``is_set()`` says whether to stop."""

    def is_set(self) -> bool: ...


class EvaluationStopped(Exception):
    """An evaluation ended early because its stop signal was set; nothing of it was stored."""

    def __init__(self, message: str = "the evaluation was stopped; nothing of it was stored") -> None:
        super().__init__(message)


def check_stop(stop: StopSignal | None) -> None:
    """Raise :class:`EvaluationStopped` when ``stop`` is set (nothing when it is None or not set)."""
    if stop is not None and stop.is_set():
        raise EvaluationStopped()


class _Waitable(Protocol[T]):
    def result(self, timeout: float | None = None) -> T: ...

    def done(self) -> bool: ...


def wait_watching(future: _Waitable[T], watch: Callable[[], None] | None) -> T:
    """``future.result()``; with ``watch``, it is called first and then every :data:`WAIT_SLICE` seconds while the
    task runs (it reports progress and raises to stop the run: the future is left to the caller's clean-up)."""
    if watch is None:
        return future.result()
    watch()
    while True:
        try:
            return future.result(timeout=WAIT_SLICE)
        except TimeoutError:
            if future.done():  # finished meanwhile, or the task itself raised a TimeoutError
                return future.result()
            watch()
