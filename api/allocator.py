"""Handing the C heap's free pages back to the system, every ten seconds, in each API process.

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

The trim reaches pages freed inside a heap, not heaps that are mostly free. glibc gives every
thread that calls ``malloc`` an arena of its own until there are eight per core, each in
64 MiB-aligned mappings it rarely returns; an API process runs its blocking work on a pool of up
to 40 threads, so under the soak its per-thread arenas grew from 35 to 77 MB resident, 67 MB of
it free, while its main heap stayed at 30 MB. :func:`limit_arenas` caps them at :data:`ARENAS`
(``mallopt(M_ARENA_MAX)``) when the app is built, before its thread pool starts, unless the
operator chose a cap (``MALLOC_ARENA_MAX`` or ``GLIBC_TUNABLES=glibc.malloc.arena_max=N``).
Python holds the GIL around most of its allocations, so threads rarely wait on a shared arena.

Nor does the trim reach the free top of a thread's arena, which glibc keeps up to its trim
threshold; and that threshold grows. By default glibc raises its mmap threshold to the size of
any mmapped block freed (up to 32 MiB) and its trim threshold to twice that, so after one large
temporary array is freed, every buffer below its size comes from the arenas and up to twice its
size stays resident at an arena's top. Under the soak, with the arenas capped, one API process
held 34 MB of mmapped blocks and its arenas grew from 116 to 146 MB in 10 minutes while the
bytes in use stayed at 83-86 MB. :func:`fix_thresholds` sets the mmap threshold to glibc's own
default (``M_MMAP_THRESHOLD``, 128 KiB), which also stops both from moving: a buffer above it
is mapped and unmapped on its own, and a free top above 128 KiB goes back.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import os
from collections.abc import Callable
from functools import cache

TRIM_EVERY = 10.0
"""Seconds between two trims: a trim takes milliseconds, and between two of them the transient
buffers of the requests served stay resident (trimmed once a minute, one API process's samples a
minute apart under the soak lay between 311.7 and 330.8 MiB)."""

ARENAS = 2
"""The C heap's arenas an API process may have: the main one and one its threads share."""

MMAP_THRESHOLD = 128 * 1024
"""Bytes from which a block is mapped on its own (glibc's default, kept from moving)."""

_M_ARENA_MAX = -8  # from glibc's malloc.h
_M_MMAP_THRESHOLD = -3


@cache
def _libc(name: str, *argtypes: type) -> Callable[..., int] | None:
    """The C library's function ``name`` taking ``argtypes`` and returning an int, or None
    where this C library has no such function."""
    library = ctypes.util.find_library("c")
    if library is None:
        return None
    try:
        function = ctypes.CDLL(library)[name]
    except (OSError, AttributeError):
        return None
    function.argtypes = list(argtypes)
    function.restype = ctypes.c_int
    return function


def _malloc_trim() -> Callable[..., int] | None:
    return _libc("malloc_trim", ctypes.c_size_t)


def _mallopt() -> Callable[..., int] | None:
    return _libc("mallopt", ctypes.c_int, ctypes.c_int)


def _operator_chose(variables: tuple[str, ...], tunables: tuple[str, ...]) -> bool:
    """Whether the environment sets any of glibc's ``variables`` or ``GLIBC_TUNABLES`` names
    any of ``tunables`` (then the setting is the operator's and is left alone)."""
    chosen = os.environ.get("GLIBC_TUNABLES", "")
    return any(v in os.environ for v in variables) or any(t in chosen for t in tunables)


def _set_unless_chosen(
    option: int, value: int, variables: tuple[str, ...], tunables: tuple[str, ...]
) -> bool:
    """``mallopt(option, value)`` unless the operator chose the setting; True when set.
    Nothing happens without ``mallopt``."""
    function = _mallopt()
    if function is None or _operator_chose(variables, tunables):
        return False
    return function(option, value) == 1


def limit_arenas(count: int = ARENAS) -> bool:
    """Cap the arenas created from now on at ``count``; True when the cap was set.

    Arenas created before stay; call it before threads allocate. Nothing happens without
    ``mallopt`` or when the operator set a cap in the environment.
    """
    return _set_unless_chosen(
        _M_ARENA_MAX, count, ("MALLOC_ARENA_MAX",), ("glibc.malloc.arena_max",)
    )


def fix_thresholds(mmap_threshold: int = MMAP_THRESHOLD) -> bool:
    """Fix the mmap threshold (and so the trim threshold) where they are; True when set.

    Nothing happens without ``mallopt`` or when the operator set either in the environment.
    """
    return _set_unless_chosen(
        _M_MMAP_THRESHOLD,
        mmap_threshold,
        ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"),
        ("glibc.malloc.mmap_threshold", "glibc.malloc.trim_threshold"),
    )


def configure() -> None:
    """Cap the arenas and fix the thresholds: once per process, before its threads allocate."""
    limit_arenas()
    fix_thresholds()


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
