"""Giving the C heap's free memory back to the operating system, after a server drops large results."""

from __future__ import annotations

import ctypes
import ctypes.util


def trim_heap() -> None:
    """Give the C heap's free memory back to the operating system (glibc's ``malloc_trim(0)``; elsewhere nothing).

    CPython returns freed objects' memory to the C allocator, which keeps it mapped; ``malloc_trim`` releases the
    free pages at the top and in the middle of glibc's arenas, so a server's resident memory falls after it drops a
    result."""
    name = ctypes.util.find_library("c")
    if not name:
        return
    try:
        ctypes.CDLL(name).malloc_trim(0)
    except (OSError, AttributeError):
        pass
