"""Threads and the interpreter's exit (docs/design.md §7): work on daemon threads never holds up an exiting
process, and never crashes it.

* :func:`map_on_threads`: ``concurrent.futures.ThreadPoolExecutor`` joins its threads when the interpreter exits,
  after they have run every task still queued: a dashboard stopped in the middle of a TER computation (or of a
  permutation test) went on computing for as long as the remaining chunks took — 20 s and more after SIGTERM. A
  process does not wait for daemon threads, and whoever waits for their results here (the CLI's main thread, a
  Streamlit script thread, itself a daemon thread) stops with the process.
* :func:`exit_safe`: at exit, Python 3.11 ends a daemon thread that comes back from native code which released the
  GIL with ``pthread_exit``; its forced unwinding through C++ frames aborts the process ("terminate called without
  an active exception", exit code 134). Kiwi's analyzer is such code, and a Streamlit script thread is a daemon
  thread: a dashboard stopped while Kiwi tokenised crashed. Such calls run through :func:`exit_safe`, in short
  pieces; the exit waits for the pieces under way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

NATIVE_EXIT_WAIT_SECONDS = 10.0  # the longest the exit waits for native calls under way
_native = threading.Condition()
_native_calls = 0
_exiting = False


def map_on_threads(fn: Callable[[T], R], items: Sequence[T], workers: int) -> list[R]:
    """``[fn(x) for x in items]``, on ``min(workers, len(items))`` daemon threads taking the items in order (in this
    thread when that is one). The exception of the first failed item is raised once every thread has stopped; no
    item is started after a failure."""
    if workers <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    results: list = [None] * len(items)
    errors: dict[int, Exception] = {}
    lock = threading.Lock()
    order = iter(range(len(items)))

    def work() -> None:
        while not errors:
            with lock:
                i = next(order, None)
            if i is None:
                return
            try:
                results[i] = fn(items[i])
            except Exception as err:  # raised again in the calling thread
                errors[i] = err

    threads = [threading.Thread(target=work, daemon=True) for _ in range(min(workers, len(items)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[min(errors)]
    return results


def exit_safe(call: Callable[[], R]) -> R:
    """``call()``, a call into native code that releases the GIL (module docstring), never cut by the exit: once the
    interpreter began to exit, the exit waits for the calls under way (at most :data:`NATIVE_EXIT_WAIT_SECONDS`) and
    a new call waits for the process to end instead of starting. Keep each call short (a chunk of the work)."""
    global _native_calls
    with _native:
        while _exiting:
            _native.wait()
        _native_calls += 1
    try:
        return call()
    finally:
        with _native:
            _native_calls -= 1
            _native.notify_all()


def _wait_for_native_calls() -> None:
    global _exiting
    with _native:
        _exiting = True
        _native.wait_for(lambda: _native_calls == 0, NATIVE_EXIT_WAIT_SECONDS)


# Runs in the main thread when the interpreter begins to exit, before it ends the daemon threads (threading's exit
# hooks run before atexit's; concurrent.futures registers its own the same way).
threading._register_atexit(_wait_for_native_calls)
