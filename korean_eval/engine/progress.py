"""Progress of a run: ``progress(fraction, message)`` reports through a run's steps, moving within a step as its
chunks and tasks finish.

A run has a number of steps (tokenising a level, scoring a level × metric, …). :class:`Ticker` reports each step's
start at the fraction of the steps done; within a step it reports counts as the work advances — chunks of texts
tokenised here (:meth:`Ticker.part`), or tasks of the executor finished (:meth:`Ticker.track`, followed by
:meth:`Ticker.watch` while the run waits for them) — e.g. ``tokenising at level komoran: 3,400 of 8,800 texts``;
until the first task finishes, a step that starts something slow first (an analyzer loading its model) says so,
with the seconds passed (``tokenising at level kkma: starting its analyzer, about 34 s the first time — 12 s so
far``). The fraction reported never decreases over a run. While the run waits, the last report is repeated every
:data:`REPORT_SECONDS` (a heartbeat: a terminal's elapsed time moves on, and a dashboard's script gets the chance to
stop). Every report checks the run's stop signal first (:mod:`korean_eval.engine.stopping`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from korean_eval.engine.stopping import StopSignal, check_stop

Progress = Callable[[float, str], None]

#: Seconds between two reports of unchanged progress while the run waits, and between two reports of chunks
#: tokenised in this process.
REPORT_SECONDS = 0.5
#: Share of the whole work of :func:`korean_eval.evaluate` and the CLI's ``run`` given to the statistics stage
#: (bootstrap intervals, significance) when it computes; the pipeline has the rest.
STATISTICS_SHARE = 0.2


class Finishing(Protocol):
    """A task whose ``finished`` says whether its result is there (:class:`korean_eval.engine.workers.Job`)."""

    @property
    def finished(self) -> bool: ...


@dataclass
class _Tracked:
    """Tasks of the current step being followed: what they do, the tasks, each one's weight and the unit counted."""

    label: str
    jobs: Sequence[Finishing]
    weights: Sequence[int]
    unit: str
    total: int
    reported: int = -1
    starting: str = ""  # said until the first task finishes, with the seconds since ``since``
    since: float = 0.0

    def count(self) -> int:
        return sum(w for job, w in zip(self.jobs, self.weights, strict=True) if job.finished)


@dataclass
class Ticker:
    """Progress through the run's steps: :meth:`report` a message at the fraction done so far, :meth:`advance`
    after each step; within a step :meth:`part` and :meth:`track` (module docstring). ``stop``: the run's stop
    signal, checked at every report."""

    progress: Progress | None
    steps: int
    stop: StopSignal | None = None
    done: int = 0
    fraction: float = 0.0  # the last fraction reported (reports never go below it)
    message: str = ""
    _sent: float = field(default=float("-inf"), repr=False)
    _tracked: _Tracked | None = field(default=None, repr=False)

    def report(self, message: str, fraction: float | None = None) -> None:
        """``message`` at ``fraction`` (default: the steps done so far); work followed by :meth:`track` is
        forgotten."""
        check_stop(self.stop)
        self._tracked = None
        self._send(self.done / self.steps if fraction is None else fraction, message)

    def advance(self) -> None:
        """One step done."""
        self.done += 1
        self._tracked = None

    def part(self, done: int, total: int, label: str, unit: str) -> None:
        """``done`` of ``total`` units of the current step finished: ``label: done of total unit`` at the fraction
        within the step (reported when :data:`REPORT_SECONDS` passed since the last report)."""
        check_stop(self.stop)
        if total and time.monotonic() - self._sent >= REPORT_SECONDS:
            self._send((self.done + done / total) / self.steps, f"{label}: {done:,} of {total:,} {unit}")

    def track(self, label: str, jobs: Sequence[Finishing], unit: str, weights: Sequence[int] | None = None,
              starting: str = "") -> None:
        """Report ``label: n of m unit`` for ``jobs``, the tasks of the current step (``weights``: each task's
        units, default 1), now and, from :meth:`watch`, whenever the count of finished ones changes; until the
        first one finishes, ``label: starting — s so far`` when ``starting`` says what comes first."""
        weights = [1] * len(jobs) if weights is None else list(weights)
        self._tracked = _Tracked(label, jobs, weights, unit, sum(weights), starting=starting, since=time.monotonic())
        self.watch()

    def watch(self) -> None:
        """Called while the run waits: check the stop signal; report the followed tasks when their count changed
        (before the first finishes, what starts, with the seconds passed, every :data:`REPORT_SECONDS`), else
        repeat the last report every :data:`REPORT_SECONDS`."""
        check_stop(self.stop)
        tracked = self._tracked
        if tracked is not None and tracked.total:
            count = tracked.count()
            if count == 0 and tracked.starting:
                if tracked.reported != 0 or time.monotonic() - self._sent >= REPORT_SECONDS:
                    tracked.reported = 0
                    passed = time.monotonic() - tracked.since
                    self._send(self.done / self.steps, f"{tracked.label}: {tracked.starting} — {passed:.0f} s so far")
                return
            if count != tracked.reported:
                tracked.reported = count
                self._send((self.done + count / tracked.total) / self.steps,
                           f"{tracked.label}: {count:,} of {tracked.total:,} {tracked.unit}")
                return
        if self.message and time.monotonic() - self._sent >= REPORT_SECONDS:
            self._send(self.fraction, self.message)

    def _send(self, fraction: float, message: str) -> None:
        self.fraction = min(max(fraction, self.fraction, 0.0), 1.0)
        self.message = message
        self._sent = time.monotonic()
        if self.progress is not None:
            self.progress(self.fraction, message)


def pipeline_share(resamples: int, evalset) -> float:
    """The pipeline's share of a run that computes its statistics afterwards (:data:`STATISTICS_SHARE` left for
    them when there are resamples and human scores)."""
    return 1.0 - STATISTICS_SHARE if resamples > 0 and evalset.human is not None else 1.0


def scaled(progress: Progress | None, low: float, high: float) -> Progress | None:
    """``progress`` for a stage that covers ``low`` … ``high`` of the whole work."""
    if progress is None:
        return None
    return lambda fraction, message: progress(low + (high - low) * fraction, message)
