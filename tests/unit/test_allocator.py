"""Trimming the C heap returns pages freed in its middle; the periodic trim runs and stops."""

from __future__ import annotations

import asyncio
import os
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


needs_mallopt = pytest.mark.skipif(allocator._mallopt() is None, reason="no mallopt in this libc")

# In a fresh interpreter: six threads each hold a 100 KB block from the C heap (under the mmap
# threshold) at the same moment; then the count of arenas glibc's malloc_info reports.
_THREADS = textwrap.dedent(
    """
    import ctypes, os, sys, tempfile, threading
    from api import allocator

    if sys.argv[1] == "limit":
        assert allocator.limit_arenas()
    all_hold = threading.Barrier(6)

    def hold():
        block = bytearray(100_000)
        all_hold.wait()
        del block

    threads = [threading.Thread(target=hold) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    libc = ctypes.CDLL(None)
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    path = os.path.join(tempfile.mkdtemp(), "info.xml")
    stream = libc.fopen(path.encode(), b"w")
    libc.malloc_info(0, stream)
    libc.fclose(stream)
    print(open(path).read().count("<heap nr="))
    """
)


def _fresh(script: str, mode: str) -> int:
    """The number ``script`` prints in a fresh interpreter with none of glibc's allocator
    settings in its environment."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("MALLOC_", "GLIBC_TUNABLES"))
    }
    return int(
        subprocess.run(
            [sys.executable, "-c", script, mode],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        ).stdout
    )


@needs_mallopt
def test_capped_arenas_stay_at_the_cap_however_many_threads_allocate() -> None:
    assert _fresh(_THREADS, "free") > allocator.ARENAS  # each thread took an arena of its own
    assert _fresh(_THREADS, "limit") <= allocator.ARENAS


# In a fresh interpreter: a 16 MB block mapped and freed (glibc then raises its mmap threshold
# to 16 MB unless it is fixed), then whether a 1 MB block is mapped on its own: the count of
# mapped blocks mallinfo2 reports, before and after.
_THRESHOLD = textwrap.dedent(
    """
    import ctypes, sys
    from api import allocator

    class Info(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
            "uordblks", "fordblks", "keepcost")]

    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = Info
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    if sys.argv[1] == "fixed":
        assert allocator.fix_thresholds()
    libc.free(libc.malloc(16 * 1024 * 1024))
    before = libc.mallinfo2().hblks
    block = libc.malloc(1024 * 1024)
    print(libc.mallinfo2().hblks - before)
    libc.free(block)
    """
)


@needs_mallopt
def test_a_fixed_threshold_maps_large_blocks_after_a_larger_one_was_freed() -> None:
    # glibc raised its threshold: the 1 MB block is in a heap
    assert _fresh(_THRESHOLD, "moving") == 0
    assert _fresh(_THRESHOLD, "fixed") == 1  # mapped on its own, so freeing it hands it back


@pytest.mark.parametrize(
    ("setting", "variable", "value"),
    [
        ("limit_arenas", "MALLOC_ARENA_MAX", "4"),
        ("limit_arenas", "GLIBC_TUNABLES", "glibc.malloc.arena_max=4"),
        ("fix_thresholds", "MALLOC_MMAP_THRESHOLD_", "65536"),
        ("fix_thresholds", "MALLOC_TRIM_THRESHOLD_", "65536"),
        ("fix_thresholds", "GLIBC_TUNABLES", "glibc.malloc.trim_threshold=65536"),
        ("fix_thresholds", "GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=65536"),
    ],
)
def test_a_setting_the_operator_chose_is_left_alone(
    monkeypatch: pytest.MonkeyPatch, setting: str, variable: str, value: str
) -> None:
    for name in ("MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, value)
    assert getattr(allocator, setting)() is False
