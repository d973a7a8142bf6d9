"""An excerpt cut into pieces for display: the cited span, and within it the words to mark.

What is marked, in order of preference:

1. the binding's quotation, where it occurs in the span (case and spacing aside);
2. else the span's words that the claim also uses (content words, stop words left out), the
   words a reader compares first;
3. else, when no word is shared, nothing inside the span: a wrong highlight would send the
   reader to the wrong words, and the span itself is already set apart.

The pieces are plain strings with a kind; the template escapes each one, so no text of a
source or a claim ever becomes markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"[^\W_]+(?:[.,'\u2019][^\W_]+)*", re.UNICODE)
# fmt: off
_STOP = frozenset([
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is",
    "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "will", "with",
    "may", "can", "not", "no", "per", "than", "then", "there", "these", "those", "which", "who",
    "whom",
])
# fmt: on


@dataclass(frozen=True)
class Piece:
    """A run of excerpt text: ``before``/``after`` the span, ``span``, or ``mark`` (marked
    words inside the span)."""

    text: str
    kind: str


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP}


def _quote_range(span: str, quote: str) -> tuple[int, int] | None:
    words = quote.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(word) for word in words)
    found = re.search(pattern, span, re.IGNORECASE)
    return None if found is None else (found.start(), found.end())


def _marks(span: str, claim: str, quote: str | None) -> list[tuple[int, int]]:
    if quote:
        found = _quote_range(span, quote)
        if found is not None:
            return [found]
    shared = _words(claim)
    words = [(m.start(), m.end()) for m in _WORD.finditer(span) if m.group().lower() in shared]
    merged: list[tuple[int, int]] = []
    for low, high in words:  # words apart only by spaces read as one marked phrase
        if merged and not span[merged[-1][1] : low].strip():
            merged[-1] = (merged[-1][0], high)
        else:
            merged.append((low, high))
    return merged


def pieces(excerpt: str, highlight: tuple[int, int], claim: str, quote: str | None) -> list[Piece]:
    """``excerpt`` cut into pieces, the span at ``highlight`` (offsets into the excerpt)
    with its marked words."""
    end = max(0, min(len(excerpt), highlight[1]))
    start = max(0, min(highlight[0], end))
    span = excerpt[start:end]
    out: list[Piece] = []
    if start:
        out.append(Piece(excerpt[:start], "before"))
    cursor = 0
    for low, high in _marks(span, claim, quote):
        if low > cursor:
            out.append(Piece(span[cursor:low], "span"))
        out.append(Piece(span[low:high], "mark"))
        cursor = high
    if cursor < len(span):
        out.append(Piece(span[cursor:], "span"))
    if end < len(excerpt):
        out.append(Piece(excerpt[end:], "after"))
    return out
