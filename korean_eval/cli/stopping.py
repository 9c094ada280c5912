"""Ctrl+C during ``korean-eval run``: the run stops at its next check and says, in one line on stderr, what was and
was not written.

While the run computes (:meth:`RunStop.computing`), the first Ctrl+C (SIGINT) sets the run's stop signal, which the
engine checks between its tasks and chunks (:mod:`korean_eval.engine.stopping`): the run cancels its queued tasks
and raises :class:`~korean_eval.engine.stopping.EvaluationStopped`. A second Ctrl+C raises ``KeyboardInterrupt`` at
once, as does a Ctrl+C while the tables are written. Either way the command ends with exit status 130 and one line,
e.g. ``stopped after 12.3 s; the tokens and statistics finished so far kept in the cache (a new run starts from
them); no tables in out/``; the worker processes end with it (docs/design.md §7). A stopped run keeps in the cache
what it finished, never a result (:mod:`korean_eval.engine.held_writes`).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: Exit status of a run stopped by Ctrl+C (128 + SIGINT, as shells report it).
STOPPED_STATUS = 130


class RunStop:
    """The stop signal of one ``run`` and what it wrote so far (for the line :meth:`message`)."""

    def __init__(self, out: str | None, exports: bool, cache_enabled: bool) -> None:
        self.event = threading.Event()
        self.start = time.perf_counter()
        self.out, self.exports, self.cache_enabled = out, exports, cache_enabled
        self.cache_written = False  # the run's cache writes made
        self.held = None  # the run's held cache writes (HeldWrites), once it has them
        self.out_state = ""  # "", "writing" or "written"
        self.exports_state = ""

    @contextmanager
    def computing(self) -> Iterator[threading.Event]:
        """While the block runs, the first Ctrl+C sets the stop signal (yielded) and the next raises
        ``KeyboardInterrupt``; outside it, Ctrl+C raises ``KeyboardInterrupt``. Only in the main thread (signal
        handlers live there); elsewhere the block runs as it is."""
        if threading.current_thread() is not threading.main_thread():
            yield self.event
            return

        def first_ctrl_c(signum, frame) -> None:
            self.event.set()
            signal.signal(signal.SIGINT, signal.default_int_handler)  # a second one stops at once

        previous = signal.signal(signal.SIGINT, first_ctrl_c)
        try:
            yield self.event
        finally:
            signal.signal(signal.SIGINT, previous)

    def message(self) -> str:
        """One line: how long the run ran, and what it wrote and did not write."""
        done, missing = [], []
        if self.cache_enabled:
            if self.cache_written:
                done.append("the results stored in the cache")
            elif self.held is not None and self.held.committed:
                done.append("the tokens and statistics finished so far kept in the cache (a new run starts from them)")
            else:
                missing.append("nothing stored in the cache")
        if self.out:
            if self.out_state == "written":
                done.append(f"the tables written to {self.out}")
            elif self.out_state == "writing":
                done.append(f"the tables in {self.out} incomplete")
            else:
                missing.append(f"no tables in {self.out}")
        if self.exports:
            if self.exports_state == "written":
                done.append("the LaTeX tables or HTML report written")
            elif self.exports_state == "writing":
                done.append("the LaTeX tables or HTML report incomplete")
            else:
                missing.append("no LaTeX tables or HTML report")
        head = f"stopped after {time.perf_counter() - self.start:.1f} s; "
        if not done:
            return head + "nothing written" + (f" ({', '.join(missing)})" if missing else "")
        return head + "; ".join(done + missing)
