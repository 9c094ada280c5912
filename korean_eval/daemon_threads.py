"""Daemon threads for the chunked loops of the compiled kernels: they never hold up the interpreter's exit.

``concurrent.futures.ThreadPoolExecutor`` joins its threads when the interpreter exits, after they have run every
task still queued: a dashboard stopped in the middle of a TER computation (or of a permutation test) went on
computing for as long as the remaining chunks took — 20 s and more after SIGTERM (docs/design.md §7). A process
does not wait for daemon threads, and whoever waits for their results here (the CLI's main thread, a Streamlit
script thread, itself a daemon thread) stops with the process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


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
