"""A run's cache writes held until the run ends: made when it finishes or is stopped
(:mod:`korean_eval.engine.stopping`), dropped when it fails.

:func:`held_writes` wraps the run's cache in :class:`HeldWrites`: reads go to the cache itself, and the writes —
tokens, per-pair statistics, blobs (stored results, a trained SentencePiece model) — are kept as the calls that make
them, with the objects they were given (the run keeps those objects anyway: its tokens and statistics), and made
when the block ends without an exception. Nested runs (:func:`korean_eval.evaluate` around the pipeline) hold them
until the outermost block ends. A run never reads back what it wrote itself, so holding changes no number.

Every write is a finished unit (a level's tokens once all its texts are back, a chunk's statistics, a whole stored
result or table), so a stopped run keeps what it finished — the next run with the same data starts from it — and
never a result: that is written only when everything is computed. A run that fails (an error, a second Ctrl+C) keeps
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from korean_eval.engine.cache import NullCache
from korean_eval.engine.stopping import EvaluationStopped


class HeldWrites:
    """``base`` with its writes held until :meth:`commit` (dropped by :meth:`discard`); every other attribute is
    the base's."""

    def __init__(self, base: NullCache):
        self.base = base
        self.writes: list[tuple[str, tuple]] = []
        self.committed = 0  # writes made so far

    def put_tokens(self, level_key: str, items: Iterable[tuple[bytes, str]]) -> None:
        self.writes.append(("put_tokens", (level_key, items)))

    def put_stats(self, metric_key: str, items: Iterable[tuple[bytes, np.ndarray, float]]) -> None:
        self.writes.append(("put_stats", (metric_key, items)))

    def put_blob(self, key: str, value: bytes | Sequence[bytes], kind: str = "") -> None:
        self.writes.append(("put_blob", (key, value, kind)))

    def commit(self) -> None:
        """Make the held writes, in the order they were asked for."""
        writes, self.writes = self.writes, []
        for name, args in writes:
            getattr(self.base, name)(*args)
            self.committed += 1

    def discard(self) -> None:
        """Drop the held writes."""
        self.writes = []

    def __getattr__(self, name: str):
        if name == "base":  # not set yet (a copy being made)
            raise AttributeError(name)
        return getattr(self.base, name)


@contextmanager
def held_writes(cache: NullCache) -> Iterator[HeldWrites]:
    """``cache`` with its writes held for the block: made at its end or when the run is stopped
    (:class:`~korean_eval.engine.stopping.EvaluationStopped`: what it finished is kept), dropped when it raises
    anything else."""
    held = HeldWrites(cache)
    try:
        yield held
    except EvaluationStopped:
        held.commit()
        raise
    except BaseException:
        held.discard()
        raise
    held.commit()
