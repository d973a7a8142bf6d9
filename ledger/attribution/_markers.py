"""Citation markers in an answer: ``[1]``, ``[1, 2]`` and runs of them such as ``[1][2]``.

A marker is a bracketed list of one or more whole numbers separated by commas; each number is
a key of the answer's chunks. Offsets are ``str`` indices into the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MARKER = re.compile(r"\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]")
"""One bracketed marker; group 1 holds its comma-separated keys."""
_MARKER_WITH_SPACE = re.compile(r"\s*" + MARKER.pattern)
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Marker:
    """One marker's offsets in the answer and the keys it names, in order."""

    start: int
    end: int
    keys: tuple[str, ...]


def find_markers(text: str) -> list[Marker]:
    """Every marker in ``text``, in order; each key is the digits as written."""
    return [
        Marker(match.start(), match.end(), tuple(k.strip() for k in match.group(1).split(",")))
        for match in MARKER.finditer(text)
    ]


def mask_markers(text: str, markers: list[Marker]) -> str:
    """``text`` with every marker blanked by spaces, so offsets are unchanged.

    A sentence breaker then sees ``late.[1] Then`` as ``late.    Then`` and finds the end.
    """
    pieces: list[str] = []
    previous = 0
    for marker in markers:
        pieces.append(text[previous : marker.start])
        pieces.append(" " * (marker.end - marker.start))
        previous = marker.end
    pieces.append(text[previous:])
    return "".join(pieces)


def strip_markers(text: str) -> str:
    """``text`` without markers (and the spaces before them), whitespace runs made one space."""
    return _SPACES.sub(" ", _MARKER_WITH_SPACE.sub("", text)).strip()
