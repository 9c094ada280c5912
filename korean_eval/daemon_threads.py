"""Threads and the interpreter's exit (docs/design.md §7): work on daemon threads never holds up an exiting
process, and never crashes it.

* :func:`map_on_threads`: chunks of work on daemon threads. ``concurrent.futures.ThreadPoolExecutor`` would be
  joined at exit after running every task still queued (a stopped dashboard would go on computing); a process does
  not wait for daemon threads, and whoever waits for their results (the CLI's main thread, a Streamlit script
  thread) stops with the process.
* :func:`exit_safe`: a call into native code that may run during the exit (Kiwi's analyzer), in short pieces that
  the exit waits for. At exit, Python 3.11 ends a daemon thread that comes back from native code which released the
  GIL with ``pthread_exit``, whose forced unwinding through C++ frames aborts the process ("terminate called
  without an active exception", exit code 134).
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
