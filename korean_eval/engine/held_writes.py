"""A run's cache writes held until the run finishes: a run that stops early (:mod:`korean_eval.engine.stopping`) or
fails writes nothing to the cache.

:func:`held_writes` wraps the run's cache in :class:`HeldWrites`: reads go to the cache itself, and the writes —
tokens, per-pair statistics, blobs (stored results, a trained SentencePiece model) — are kept as the calls that make
them, with the objects they were given (the run keeps those objects anyway: its tokens and statistics), and made
when the block ends without an exception. Nested runs (:func:`korean_eval.evaluate` around the pipeline) hold them
until the outermost block ends. A run never reads back what it wrote itself, so holding changes no number.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from korean_eval.engine.cache import NullCache


class HeldWrites:
    """``base`` with its writes held until :meth:`commit` (dropped by :meth:`discard`); every other attribute is
    the base's."""

    def __init__(self, base: NullCache):
        self.base = base
        self.writes: list[tuple[str, tuple]] = []

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

    def discard(self) -> None:
        """Drop the held writes."""
        self.writes = []

    def __getattr__(self, name: str):
        if name == "base":  # not set yet (a copy being made)
            raise AttributeError(name)
        return getattr(self.base, name)


@contextmanager
def held_writes(cache: NullCache) -> Iterator[HeldWrites]:
    """``cache`` with its writes held for the block: made at its end, dropped when it raises (a stopped run)."""
    held = HeldWrites(cache)
    try:
        yield held
    except BaseException:
        held.discard()
        raise
    held.commit()
