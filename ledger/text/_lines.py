"""Line-level rules shared by normalisation and segmentation.

A newline is a *hard boundary* (nothing may span it) when the next line is blank, is a list
item, or is a Markdown ATX heading, or when the previous line is a list item and the next line
is not indented (the list has ended). Any other single newline is a wrapped line inside a
paragraph and is not a boundary.
"""

from __future__ import annotations

import re
from typing import NamedTuple

LIST_ITEM = re.compile(
    r"[ \t]*(?:[-*+\u2022\u2023\u25e6\u2043]"  # bullets, hyphen-minus to hyphen bullet
    r"|\d{1,3}[.)]"  # 1. 1)
    r"|[a-z][.)]|[A-Z]\)"  # a. a) A) -- not "A." which is usually an initial
    r"|\((?:\d{1,3}|[A-Za-z]|[ivxlcdm]{1,6}|[IVXLCDM]{1,6})\)"  # (1) (a) (iv)
    r"|[ivxlcdm]{1,6}[.)]|[IVXLCDM]{1,6}\)"  # iv. iv) IV)
    r")[ \t]+\S"
)
"""A line that starts with a list marker followed by a blank and some text."""

ATX_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
"""A Markdown ATX heading line (``#`` to ``######``)."""


_PLAIN, _BLANK, _ITEM, _HEADING = range(4)
_MARKED = re.compile(f"(?:(?P<item>{LIST_ITEM.pattern})|(?P<heading>{ATX_HEADING.pattern}))")


def _kind(line: str) -> int:
    """Classify a line as plain text, blank, list item or ATX heading."""
    if not line or line.isspace():
        return _BLANK
    marked = _MARKED.match(line)
    if marked is None:
        return _PLAIN
    return _ITEM if marked.group("item") is not None else _HEADING


def _breaks(previous: int, kind: int, line: str) -> bool:
    """The hard-boundary rule on classified lines (see the module docstring)."""
    if kind != _PLAIN or previous in (_BLANK, _HEADING):
        return True
    return previous == _ITEM and not line[:1].isspace()


def is_hard_break(previous: str, line: str) -> bool:
    """Return whether the newline between ``previous`` and ``line`` is a hard boundary."""
    return _breaks(_kind(previous), _kind(line), line)


class MarkedLine(NamedTuple):
    """One output line of a format converter; ``level`` is 1-6 for a heading line, else 0."""

    text: str
    level: int = 0


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``text[start:end]`` past whitespace at both ends; an empty result has start == end."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def blocks(
    text: str, start: int, end: int, heading_starts: frozenset[int] = frozenset()
) -> list[tuple[int, int]]:
    """Split ``text[start:end]`` into trimmed blocks of non-blank text.

    A block ends at every hard boundary (see :func:`is_hard_break`), at every form feed and
    around every line that starts at one of ``heading_starts``. The blocks are ascending,
    non-overlapping and cover every non-whitespace character of the range.
    """
    segment = text[start:end]
    if "\n" not in segment and "\f" not in segment:
        first, last = trim(text, start, end)
        return [(first, last)] if first < last else []
    found: list[tuple[int, int]] = []
    open_start = -1
    open_end = -1
    previous = _BLANK
    line_start = start
    for line in segment.split("\n"):
        is_heading = line_start in heading_starts
        kind = _HEADING if is_heading else _kind(line)
        if _breaks(previous, kind, line):
            if open_start >= 0:
                found.append((open_start, open_end))
            open_start = -1
        previous = kind
        piece_start = line_start
        for number, piece in enumerate(line.split("\f")):
            if number and open_start >= 0:
                found.append((open_start, open_end))
                open_start = -1
            first, last = trim(text, piece_start, piece_start + len(piece))
            if first < last:
                open_start = first if open_start < 0 else open_start
                open_end = last
            piece_start += len(piece) + 1
        if is_heading and open_start >= 0:
            found.append((open_start, open_end))
            open_start = -1
        line_start += len(line) + 1
    if open_start >= 0:
        found.append((open_start, open_end))
    return found
