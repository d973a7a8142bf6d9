"""Sentence ends from BlingFire's finite-state sentence breaker, as code point offsets.

BlingFire (https://github.com/microsoft/BlingFire) works on UTF-8 bytes and reports inclusive
byte offsets. Its own Python helper maps them back with a per-byte Python loop; this module
calls the same native entry point (``TextToSentencesWithOffsets``) and maps only the sentence
ends, which is all segmentation needs.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

import blingfire  # type: ignore[import-untyped]

_NATIVE: Any = blingfire.blingfire
_MIN_CAPACITY = 4096


class _Buffers(threading.local):
    """Output buffers reused between calls (one set per thread); grown on demand."""

    def __init__(self) -> None:
        self.resize(_MIN_CAPACITY)

    def resize(self, capacity: int) -> None:
        self.capacity = capacity
        self.text = ctypes.create_string_buffer(capacity)
        self.starts = (ctypes.c_int32 * capacity)()
        self.ends = (ctypes.c_int32 * capacity)()


_BUFFERS = _Buffers()


def sentence_ends(chunk: str) -> list[int]:
    """Return the code point offsets in ``chunk`` just after each sentence BlingFire finds.

    The last sentence's end is included. An empty list means BlingFire found nothing or failed;
    callers treat the chunk as one sentence then.
    """
    data = chunk.encode("utf-8", "surrogatepass")
    size = len(data)
    if size == 0:
        return []
    buffers = _BUFFERS
    if buffers.capacity < size * 2 + 16:
        buffers.resize(size * 2 + 16)
    capacity = buffers.capacity
    written = _NATIVE.TextToSentencesWithOffsets(
        data, size, buffers.text, buffers.starts, buffers.ends, capacity
    )
    if written <= 0 or written > capacity:
        return []
    count = min(ctypes.string_at(buffers.text, written).count(b"\n") + 1, capacity)
    byte_ends = [end + 1 for end in buffers.ends[:count]]
    if chunk.isascii():
        return byte_ends
    return [_code_points(data[:end]) for end in byte_ends if 0 < end <= size]


def _code_points(prefix: bytes) -> int:
    """Count the code points in a UTF-8 prefix; a cut inside a character drops that character."""
    try:
        return len(prefix.decode("utf-8", "surrogatepass"))
    except UnicodeDecodeError:
        return len(prefix.decode("utf-8", "ignore"))
