"""Worker threads for the per-configuration loops of the meta-evaluation tables."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TypeVar

from korean_eval.daemon_threads import map_on_threads

T = TypeVar("T")
R = TypeVar("R")


def map_threads(fn: Callable[[T], R], items: Sequence[T], jobs: int | None) -> list[R]:
    """``[fn(x) for x in items]``, on ``jobs`` threads when ``jobs > 1`` (``None``: one per CPU, at most 4). The
    compiled kernels release the GIL, so threads help on an idle multi-core machine; results do not depend on it.
    Daemon threads (:mod:`korean_eval.daemon_threads`): a process stopped in the middle does not finish the loop."""
    return map_on_threads(fn, items, max(1, jobs if jobs is not None else min(4, os.cpu_count() or 1)))
