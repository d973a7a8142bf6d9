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
        changes.extend(_replaced(old[i1:i2], new[j1:j2]))
    return changes


def _replaced(old: list[str], new: list[str]) -> list[Change]:
    """A replaced run: each old span paired, in order, with the next new span at least half
    like it (a rewrite); the rest removed or added where they stand."""
    out: list[Change] = []
    j = 0
    for text in old:
        match = next(
            (
                k
                for k in range(j, len(new))
                if difflib.SequenceMatcher(None, text, new[k], autojunk=False).ratio() >= 0.5
            ),
            None,
        )
        if match is None:
            out.append(Change("removed", old=((text, True),)))
            continue
        out.extend(Change("added", new=((added, True),)) for added in new[j:match])
        left, right = _words(text, new[match])
        out.append(Change("rewritten", left, right))
        j = match + 1
    out.extend(Change("added", new=((added, True),)) for added in new[j:])
    return out
