"""Waiting for tasks on a Dask cluster: every wait gets its task's value, however busy the client's event loop, and a
stop is still heard while a task runs.

A ``LocalCluster`` in this process (``processes=False``: threads, so it starts in about a second and the tasks can
wait on an event of this module) stands in for a real cluster; the executor is reached as the engine reaches it
(:func:`korean_eval.engine.dask_executor.connect`), and the tasks are waited for as the engine waits for them
(:class:`korean_eval.engine.workers.Job`, :func:`korean_eval.engine.stopping.wait_watching`).
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Iterator
from concurrent.futures import CancelledError, ThreadPoolExecutor

import pytest

import korean_eval.engine.dask_executor as db
from korean_eval.engine.stopping import EvaluationStopped, check_stop, wait_watching
from korean_eval.engine.workers import Scheduler

distributed = pytest.importorskip("distributed")

OWNER = ("test", "dask polling")
WAITERS = 12  # threads waiting at once (evaluations of a dashboard sharing the connection to the cluster)
TASKS = 25  # per waiting thread
_RELEASE = threading.Event()  # ends the tasks of :func:`_held_value`


def _slow_value(value: int, seconds: float) -> tuple[int, float]:
    """A statistics task's shape: (its value, seconds), after ``seconds``."""
    time.sleep(seconds)
    return value, seconds


def _held_value(value: int) -> tuple[int, float]:
    """``(value, 0.0)`` once :data:`_RELEASE` is set (at most 30 s)."""
    _RELEASE.wait(30)
    return value, 0.0


def _raising(kind: type[Exception], message: str) -> None:
    raise kind(message)


@pytest.fixture(scope="module")
def executor() -> Iterator[db.DaskExecutor]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=4, processes=False, dashboard_address=None,
                                  silence_logs=40) as cluster:
        try:
            yield db.connect(cluster.scheduler_address)
        finally:
            _RELEASE.set()
            db.disconnect(cluster.scheduler_address)  # before the cluster closes: no reconnection attempts


@pytest.fixture
def busy_event_loop(executor: db.DaskExecutor) -> Iterator[None]:
    """The client's event loop blocked 90 ms of every 100 ms, as under load (its other work runs in between)."""
    done = threading.Event()

    async def hog() -> None:
        while not done.is_set():
            time.sleep(0.09)
            await asyncio.sleep(0.01)

    executor.client.loop.add_callback(hog)
    yield
    done.set()


def test_the_engine_never_polls_a_dask_future_with_a_timeout(executor, monkeypatch):
    """A Job's wait (a watch every :data:`~korean_eval.engine.stopping.WAIT_SLICE`) fetches a Dask task's value
    once, without a timeout: ``distributed.Future.result(timeout=…)`` cancels the client's shared fetch of results
    when it times out, which fails a concurrent fetch."""
    timeouts: list[float | None] = []
    real_result = distributed.Future.result

    def result(self, timeout=None):
        timeouts.append(timeout)
        return real_result(self, timeout=timeout)

    monkeypatch.setattr(distributed.Future, "result", result)
    watched: list[float] = []
    with Scheduler(executor.workers, executor=executor, watch=lambda: watched.append(time.monotonic())) as sched:
        jobs = [sched.submit(_slow_value, (i, 0.4), OWNER, executor) for i in range(4)]
        assert [job.result() for job in jobs] == [0, 1, 2, 3]
    assert timeouts == [None] * 4
    assert len(watched) >= 4  # watched while the first task ran, not only once it finished


def test_many_waits_under_a_busy_event_loop_each_get_their_value(executor, busy_event_loop):
    def waits(first: int) -> list[int]:
        futures = [executor.submit(_slow_value, first + i, 0.02 * (i % 5)) for i in range(TASKS)]
        return [wait_watching(future, lambda: None)[0] for future in futures]

    with ThreadPoolExecutor(WAITERS) as threads:
        got = list(threads.map(waits, range(0, WAITERS * TASKS, TASKS)))
    assert got == [list(range(first, first + TASKS)) for first in range(0, WAITERS * TASKS, TASKS)]


def test_a_stop_is_heard_while_a_dask_task_runs(executor):
    stop = threading.Event()
    timer = threading.Timer(0.3, stop.set)
    timer.start()
    start = time.monotonic()
    with pytest.raises(EvaluationStopped), Scheduler(executor.workers, executor=executor,
                                                     watch=lambda: check_stop(stop)) as sched:
        job = sched.submit(_held_value, (1,), OWNER, executor)
        job.result()
    assert time.monotonic() - start < 2  # heard within a few watches of the stop, the task still running
    deadline = time.monotonic() + 5
    while not job.future.done() and time.monotonic() < deadline:  # the run's end cancelled the task
        time.sleep(0.05)
    assert job.future.done()
    with pytest.raises(CancelledError):  # a cancelled task is one the cluster gave up on: recomputed here
        job.future.result()


def test_a_wait_with_a_timeout_ends_at_the_timeout_and_the_task_goes_on(executor):
    future = executor.submit(_slow_value, 7, 1.5)
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        future.result(timeout=0.1)
    assert time.monotonic() - start < 1.0
    assert future.result(timeout=10) == (7, 1.5)


def test_a_task_s_own_error_is_raised_as_it_is(executor):
    with pytest.raises(ValueError, match="bad option"):
        executor.submit(_raising, ValueError, "bad option").result(timeout=10)


def test_a_task_that_a_worker_cannot_load_is_a_clear_error(executor):
    message = f"a worker of the Dask cluster at {re.escape(executor.address)} cannot run korean-eval's tasks"
    with pytest.raises(RuntimeError, match=message):
        executor.submit(_raising, ModuleNotFoundError, "No module named 'korean_eval'").result()
