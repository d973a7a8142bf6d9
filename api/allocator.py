"""Handing the C heap's free pages back to the system, once a minute, in each API process.

CPython keeps its small objects in pools of its own, but every larger block (request and
response bodies, JSON documents, numpy arrays below the mmap threshold) comes from the C
library's ``malloc``. glibc gives memory back from the top of its heap only; pages freed in
the middle stay resident until ``malloc_trim`` releases them (``madvise(MADV_DONTNEED)`` on
every whole free page, since glibc 2.8). So a burst of large transient buffers (an audit
bundle of a long receipt, a big checkpoint page) raises an API process's resident set to the
heap's high-water mark and leaves it there, in pages nothing uses: under the soak, after every
bounded cache had filled and the count of live Python objects had stopped growing, an API
process's heap held 61-80 MB free, and its resident set stepped up by 14-26 MB in a minute
(``docs/scaling.md``, "Memory").

:func:`trim_periodically` runs :func:`trim` every :data:`TRIM_EVERY` seconds in a thread (it
walks the heap under the allocator's lock: milliseconds). Where the C library has no
``malloc_trim`` (musl, macOS) it does nothing.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
from collections.abc import Callable
from functools import cache

TRIM_EVERY = 60.0
"""Seconds between two trims."""


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        function = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_size_t]
    function.restype = ctypes.c_int
    return function


def can_trim() -> bool:
    """Whether this C library has ``malloc_trim``."""
    return _malloc_trim() is not None


def trim() -> bool:
    """Give the heap's free pages back to the system; True when some memory was released."""
    function = _malloc_trim()
    return bool(function(0)) if function is not None else False


async def trim_periodically(every: float = TRIM_EVERY) -> None:
    """Trim every ``every`` seconds until cancelled (nothing to do without ``malloc_trim``)."""
    if not can_trim():
        return
    while True:
        await asyncio.sleep(every)
        await asyncio.to_thread(trim)
