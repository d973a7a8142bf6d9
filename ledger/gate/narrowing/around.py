"""What stands right around a matched figure or year and qualifies it (the alignment's
checks at a matched pair): a bound after a figure (``5% or more``, ``$5 million at most``),
which a claim that states the figure exactly may not drop, and a part of the year next to a
year (``Q3 2023``, ``December 2023``, ``early 2023``), which a claim with a figure may not
widen to the year (the figure is that part's). Both fail ``anchor_misaligned``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.gate.alignment.words import Kind, Word
from ledger.gate.lexicon.words import word_set
from ledger.gate.narrowing.qualifiers import BOUNDS

_BOUNDS_AFTER = (
    ("or", "more"), ("or", "less"), ("or", "fewer"), ("or", "higher"), ("or", "lower"),
    ("or", "greater"), ("or", "above"), ("or", "below"), ("or", "over"), ("or", "under"),
    ("at", "most"), ("at", "least"), ("and", "above"), ("and", "up"),
)  # fmt: skip
"""Bounds that follow the figure they bound (``5% or more``, ``$5 million at most``)."""
_UNIT_KINDS = frozenset({Kind.UNIT, Kind.SCALE})


def past_units(figure_at: int, words: Sequence[Word]) -> int:
    """The position right after the figure at ``figure_at`` of ``words`` and its units and
    scale words (``5 %``, ``$5 million``)."""
    at = figure_at + 1
    while at < len(words) and words[at].kind in _UNIT_KINDS:
        at += 1
    return at


def bound_after(figure_at: int, words: Sequence[Word]) -> tuple[str, str] | None:
    """The bound right after the figure at ``figure_at`` of ``words`` and its units (``5% or
    more``, ``5 percent at the most``), as its two words, or ``None``."""
    at = past_units(figure_at, words)
    following = [w.text for w in words[at : at + 4] if w.text != "the"]
    pair = tuple(following[:2])
    if len(pair) == 2 and pair in _BOUNDS_AFTER and following[2:3] != ["than"]:
        # Not ``5%, or more than analysts expected``: a comparison of its own.
        return pair[0], pair[1]
    return None


def dropped_bound_after(
    clause: Sequence[Word], c: int, found: Sequence[Word], s: int
) -> tuple[str, str] | None:
    """The span's bound right after the figure it matched at ``s`` (``rose 5% or more``) when
    the claim's figure at ``c`` has no bound after it and none of its own before it (``at
    least 5%``); else ``None``."""
    if found[s].kind is not Kind.NUMBER:
        return None
    bound = bound_after(s, found)
    if bound is None or bound_after(c, clause) is not None:
        return None
    if any(w.text in BOUNDS for w in clause[max(0, c - 2) : c]):
        return None
    return bound


_YEAR_PARTS = word_set(
    """
    quarter quarters half halves early late mid summer winter spring autumn season seasons
    holiday holidays week weeks month months semester trimester
    """
)
"""Words that name part of a year next to it (``the third quarter of 2023``, ``early 2023``,
``the 2023 holiday season``); quarters, halves and months are told by their kind too."""
_PART_KINDS = frozenset({Kind.PERIOD, Kind.MONTH})


_BASIS_LINKS = word_set("on over to by after")
"""Links of a comparison basis (``quarter-on-quarter``, ``month over month``): a part of the
year written twice around one of them is a basis, not a date."""


def _basis(words: Sequence[Word], j: int) -> bool:
    """Whether the part word at ``j`` is one side of a comparison basis (``quarter-on-quarter``)."""
    text = words[j].text
    after = j + 2 < len(words) and words[j + 1].text in _BASIS_LINKS and words[j + 2].text == text
    before = j >= 2 and words[j - 1].text in _BASIS_LINKS and words[j - 2].text == text
    return after or before


def _names_part(words: Sequence[Word], at: int) -> Word | None:
    """The word naming part of the year at ``at`` among the three words before it and the two
    after it, not a comparison basis (:func:`_basis`) nor the part of the year after it, or
    ``None``."""
    places: list[int] = [*range(max(0, at - 3), at), *range(at + 1, min(len(words), at + 3))]
    for j in places:
        word: Word = words[j]
        if (word.kind in _PART_KINDS or word.text in _YEAR_PARTS) and not _basis(words, j):
            if j > at and j + 1 < len(words) and words[j + 1].kind is Kind.YEAR:
                # The part of another year (``in 2019 over Q4 2018``).
                continue
            return word
    return None


def dropped_part_of_year(
    clause: Sequence[Word], c: int, found: Sequence[Word], s: int
) -> Word | None:
    """The span's word that dates the year it matched at ``s`` to part of it (``Q3 2023``,
    ``December 2023``, ``early 2023``) when the claim states a figure and dates it by the year
    alone: the figure is that part's, not the year's. ``None`` otherwise, and for a claim
    without a figure (an event: ``released in 2005`` over ``... in December 2005``)."""
    if found[s].kind is not Kind.YEAR or not any(w.kind is Kind.NUMBER for w in clause):
        return None
    part = _names_part(found, s)
    if part is None or _names_part(clause, c) is not None:
        return None
    return part
