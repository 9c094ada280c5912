"""The limits of a shared deployment (the dashboard serving several users), read from environment variables.

Every limit has a default that fits a small server (2 cores, a few GB); ``korean-eval app`` sets them from its own
options and the container from its ``ENV`` lines (docs/deployment.md, "Several users"). A value that is not a
valid setting raises ``ValueError`` naming the variable, so a misconfigured server stops at start-up with the reason.

========================================  =====================================================================
variable                                  meaning (default)
========================================  =====================================================================
``KOREAN_EVAL_MAX_RUNNING``               evaluations computing at once; the others wait in a queue (2)
``KOREAN_EVAL_MAX_LARGE_RUNNING``         of those, evaluations large enough for the worker pool (1)
``KOREAN_EVAL_MAX_WAITING``               evaluations waiting at once; one more is refused with a message (12)
``KOREAN_EVAL_SESSION_RUNNING``           evaluations of one browser session computing or waiting at once (1)
``KOREAN_EVAL_MAX_PAIR_LEVELS``           (system, segment) pairs × token levels of one evaluation (25,000)
``KOREAN_EVAL_POOL_IDLE_SECONDS``         seconds without a run after which the worker processes end (60)
``KOREAN_EVAL_RESULT_IDLE_SECONDS``       seconds a result unused stays in the server's memory (60)
``KOREAN_EVAL_ANALYZERS_IN_WORKERS``      Kiwi and KoNLPy analyse only in worker processes (1)
``KOREAN_EVAL_ANALYZER_PROCESSES``        analyzer processes (one model each) alive at once, or ``any`` (1)
========================================  =====================================================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

from korean_eval.engine.pools import (
    ANALYZER_PROCESSES_ENV,
    ANALYZERS_IN_WORKERS_ENV,
    POOL_IDLE_ENV,
    analyzer_processes_setting,
    flag_setting,
    idle_seconds_setting,
)

#: Environment variable of each field of :class:`ServiceLimits`.
ENV_NAMES: dict[str, str] = {
    "max_running": "KOREAN_EVAL_MAX_RUNNING",
    "max_large_running": "KOREAN_EVAL_MAX_LARGE_RUNNING",
    "max_waiting": "KOREAN_EVAL_MAX_WAITING",
    "session_running": "KOREAN_EVAL_SESSION_RUNNING",
    "max_pair_levels": "KOREAN_EVAL_MAX_PAIR_LEVELS",
    "pool_idle_seconds": POOL_IDLE_ENV,
    "result_idle_seconds": "KOREAN_EVAL_RESULT_IDLE_SECONDS",
    "analyzers_in_workers": ANALYZERS_IN_WORKERS_ENV,
    "analyzer_processes": ANALYZER_PROCESSES_ENV,
}


@dataclass(frozen=True)
class ServiceLimits:
    """What one server allows, so that several users share it without one of them taking it all.

    Attributes:
        max_running: evaluations computing at once (the dashboard's queue admits the next when one ends).
        max_large_running: of those, evaluations with at least ``PARALLEL_MIN_PAIRS`` pairs (they use the worker
            pool); smaller ones pass a large one waiting for this limit, so one user's full grid cannot hold up the
            others' small evaluations.
        max_waiting: evaluations waiting at once; one more is refused ("the server is busy").
        session_running: evaluations of one session computing or waiting at once.
        max_pair_levels: pairs (system outputs × segments) × token levels of one evaluation; a larger one is refused
            with a message naming both numbers.
        pool_idle_seconds: seconds without a run after which the worker processes, and the analyzer models they
            loaded, end (None: never).
        result_idle_seconds: seconds an evaluation's result, unused by any session, stays in memory (the disk cache
            keeps it, so a later visit loads it instead of computing it again).
        analyzers_in_workers: the analyzers with a large model (Kiwi, KoNLPy's JVM) run only in worker processes,
            also for a small evaluation, so that the pools' idle release returns their memory.
        analyzer_processes: analyzer processes (Kiwi's, one per KoNLPy analyzer, the Korean lens's) alive at once
            (None: any number); another waits until one has no task and ends it, so an evaluation of every level
            holds one analyzer model at a time (:func:`korean_eval.engine.pools.set_analyzer_processes`).
    """

    max_running: int = 2
    max_large_running: int = 1
    max_waiting: int = 12
    session_running: int = 1
    max_pair_levels: int = 25_000
    pool_idle_seconds: float | None = 60.0
    result_idle_seconds: float = 60.0
    analyzers_in_workers: bool = True
    analyzer_processes: int | None = 1

    def __post_init__(self) -> None:
        for name in ("max_running", "max_large_running", "session_running", "max_pair_levels"):
            if getattr(self, name) < 1:
                raise ValueError(f"{ENV_NAMES[name]} must be a whole number ≥ 1, got {getattr(self, name)}")
        if self.max_waiting < 0:
            raise ValueError(f"{ENV_NAMES['max_waiting']} must be a whole number ≥ 0, got {self.max_waiting}")
        if self.analyzer_processes is not None and self.analyzer_processes < 1:
            raise ValueError(f"{ENV_NAMES['analyzer_processes']} must be a whole number ≥ 1 or 'any', "
                             f"got {self.analyzer_processes}")
        if not self.result_idle_seconds >= 0:
            raise ValueError(f"{ENV_NAMES['result_idle_seconds']} must be ≥ 0, got {self.result_idle_seconds}")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ServiceLimits:
        """The limits set in ``env`` (default ``os.environ``), the defaults for the others."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for f in fields(cls):
            raw = env.get(ENV_NAMES[f.name])
            if raw is None or not raw.strip():
                continue
            if f.name == "pool_idle_seconds":
                values[f.name] = idle_seconds_setting(raw)
            elif f.name == "analyzer_processes":
                values[f.name] = analyzer_processes_setting(raw)
            elif f.name == "analyzers_in_workers":
                values[f.name] = flag_setting(ENV_NAMES[f.name], raw)
            elif f.name == "result_idle_seconds":
                values[f.name] = _number(ENV_NAMES[f.name], raw)
            else:
                values[f.name] = _whole(ENV_NAMES[f.name], raw)
        return cls(**values)

    def as_env(self) -> dict[str, str]:
        """The environment variables that give these limits (for a server started as a subprocess)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                text = "any" if f.name == "analyzer_processes" else "never"
            elif isinstance(value, bool):
                text = "1" if value else "0"
            else:
                text = f"{value:g}" if isinstance(value, float) else str(value)
            out[ENV_NAMES[f.name]] = text
        return out


def _whole(name: str, raw: str) -> int:
    text = raw.strip().replace("_", "").replace(",", "")
    if not text.isdigit():
        raise ValueError(f"{name} must be a whole number, got {raw!r}")
    return int(text)


def _number(name: str, raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not 0 <= value < float("inf"):
        raise ValueError(f"{name} must be a number of seconds ≥ 0, got {raw!r}")
    return value


def evaluation_size(pairs: int, levels: int) -> int:
    """What :attr:`ServiceLimits.max_pair_levels` counts: pairs × token levels (an evaluation of the user's own
    scores only, without levels, counts its pairs once)."""
    return pairs * max(1, levels)


def size_problem(pairs: int, levels: int, limits: ServiceLimits) -> str:
    """Why an evaluation of ``pairs`` pairs at ``levels`` token levels is too large for ``limits`` ("" if it is
    not), with what would make it fit."""
    size = evaluation_size(pairs, levels)
    if size <= limits.max_pair_levels:
        return ""
    fits = limits.max_pair_levels // max(1, pairs)
    hint = (f"choose at most {fits} token level{'s' if fits != 1 else ''}" if fits >= 1
            else f"load at most {limits.max_pair_levels:,} (system, segment) pairs")
    return (f"This evaluation is too large for this server: {pairs:,} (system, segment) pairs × {max(1, levels)} "
            f"token level{'s' if levels != 1 else ''} = {size:,}, and the server computes at most "
            f"{limits.max_pair_levels:,} per evaluation ({ENV_NAMES['max_pair_levels']}). To fit, {hint}, or run "
            "it with the command line (`korean-eval run`), which has no such limit.")
