"""What changed between two versions of a source, span by span.

Spans are compared by their text in reading order (``difflib`` over the two lists of span
texts), so a reader sees which sentences and cells were removed, added or rewritten; a
rewritten span is shown old beside new with the changed words marked.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_TOKENS = re.compile(r"\s+|[^\s]+")


@dataclass(frozen=True)
class Change:
    """One run of the diff: ``equal`` (how many spans), ``removed``, ``added`` or
    ``rewritten`` (old and new as word pieces, ``(text, changed)``)."""

    kind: str
    old: tuple[tuple[str, bool], ...] = ()
    new: tuple[tuple[str, bool], ...] = ()
    count: int = 0


def _words(old: str, new: str) -> tuple[tuple[tuple[str, bool], ...], tuple[tuple[str, bool], ...]]:
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    left: list[tuple[str, bool]] = []
    right: list[tuple[str, bool]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        same = tag == "equal"
        if i2 > i1:
            left.append(("".join(a[i1:i2]), not same))
        if j2 > j1:
            right.append(("".join(b[j1:j2]), not same))
    return tuple(left), tuple(right)


def span_diff(old: list[str], new: list[str]) -> list[Change]:
    """The changes that take the span texts ``old`` to ``new``."""
    changes: list[Change] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            changes.append(Change("equal", count=i2 - i1))
            continue
        pairs = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(pairs):
            left, right = _words(old[i1 + k], new[j1 + k])
            changes.append(Change("rewritten", left, right))
        changes.extend(Change("removed", old=((text, True),)) for text in old[i1 + pairs : i2])
        changes.extend(Change("added", new=((text, True),)) for text in new[j1 + pairs : j2])
    return changes
