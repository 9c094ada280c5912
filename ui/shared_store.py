"""A small store shared by every session of the dashboard: a thread-safe LRU of results, or of tables derived from
them, keyed by content hash + settings, whose entries unused for a while are swept by :mod:`ui.service`'s
housekeeping thread (so that memory held for a session that left is given back)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

from ui import service


class SharedStore:
    """A small thread-safe LRU (results, or tables derived from them) keyed by content hash + settings: at most
    ``size`` entries, and none unused for more than ``idle_seconds`` (None: no such limit) once :meth:`sweep` ran
    (the housekeeping thread of :mod:`ui.service` runs it every few seconds)."""

    def __init__(self, size: int, idle_seconds: float | None = None):
        self.size = size
        self.idle_seconds = idle_seconds
        self.items: OrderedDict[str, Any] = OrderedDict()
        self.used: dict[str, float] = {}
        self.lock = threading.Lock()
        service.janitor().register(self)

    def get(self, key: str) -> Any:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                self.used[key] = time.monotonic()
                return self.items[key]
        return None

    def put(self, key: str, value: Any) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            self.used[key] = time.monotonic()
            while len(self.items) > self.size:
                old, _ = self.items.popitem(last=False)
                self.used.pop(old, None)

    def items_with_prefix(self, prefix: str) -> list[tuple[str, Any]]:
        with self.lock:
            return [(k, v) for k, v in self.items.items() if k.startswith(prefix)]

    def sweep(self, now: float | None = None) -> int:
        """Drop the entries unused for more than ``idle_seconds``; how many were dropped."""
        if self.idle_seconds is None:
            return 0
        now = time.monotonic() if now is None else now
        with self.lock:
            stale = [k for k, t in self.used.items() if now - t > self.idle_seconds]
            for key in stale:
                self.items.pop(key, None)
                self.used.pop(key, None)
        return len(stale)
