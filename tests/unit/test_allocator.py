"""Trimming the C heap returns pages freed in its middle; the periodic trim runs and stops."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

import pytest

from api import allocator

needs_trim = pytest.mark.skipif(not allocator.can_trim(), reason="no malloc_trim in this libc")

# In a fresh interpreter: 64 MB of 64 KB blocks from the C heap (under glibc's mmap threshold),
# every one but the last 1 in 16 freed, so the heap's top stays in use and its freed middle
# stays resident; then the resident anonymous memory before and after one trim.
_FRAGMENT = textwrap.dedent(
    """
    import ctypes, sys
    from api import allocator

    def anon_kib():
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])

    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    blocks = [libc.malloc(64 * 1024) for _ in range(1024)]
    for block in blocks:
        ctypes.memset(block, 1, 64 * 1024)
    for i, block in enumerate(blocks):
        if i % 16 != 15:
            libc.free(block)
    before = anon_kib()
    allocator.trim()
    print(before, anon_kib())
    """
)


@needs_trim
def test_a_trim_returns_the_pages_freed_in_the_middle_of_the_heap() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _FRAGMENT], check=True, capture_output=True, text=True
    ).stdout
    before, after = (int(n) for n in out.split())
    assert before - after > 32 * 1024  # KiB: over half of the 60 MB freed goes back


@needs_trim
def test_the_periodic_trim_trims_until_cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(allocator, "trim", lambda: calls.append(1) or True)

    async def run() -> None:
        task = asyncio.create_task(allocator.trim_periodically(every=0.001))
        while len(calls) < 3:
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    assert len(calls) >= 3


def test_without_malloc_trim_nothing_is_trimmed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(allocator, "_malloc_trim", lambda: None)
    assert allocator.trim() is False
    asyncio.run(asyncio.wait_for(allocator.trim_periodically(every=3600), timeout=5))
