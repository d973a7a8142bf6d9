"""Polarity at the aligned positions of one claim clause: the first disagreement there.

:mod:`ledger.gate.factual` matches a claim clause to a span clause; :func:`clause_conflict`
walks the match: at each matched pair (a negation on one side only, a part of the year or a
bound right after the figure dropped: :mod:`ledger.gate.narrowing.around`), then each stretch
between two matches, the first (the claim's words before its first match over the span's
leading words, :func:`ledger.gate.alignment.reach.leading`) and the last
(:func:`ledger.gate.alignment.reach.trailing`), each compared by
:func:`ledger.gate.polarity.stretch.stretch_conflict`. A claim is hedged only by a hedge of its
own, not one it shares with the span.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ledger.gate.alignment.clauses import SpanClause, lead_start, parenthetical
from ledger.gate.alignment.reach import leading, trailing
from ledger.gate.alignment.words import Kind, Word
from ledger.gate.lexicon.cues import HEDGED, MODALS, PLAIN, PLANNED
from ledger.gate.model import CheckResult
from ledger.gate.narrowing.around import dropped_bound_after, dropped_part_of_year
from ledger.gate.narrowing.qualifiers import qualifier_conflict, qualifier_dropped
from ledger.gate.polarity.stretch import Disagreement, polarity_failure, stretch_conflict


def _shown(span: SpanClause, pairs: list[tuple[int, int]]) -> str:
    """The span text a clause aligns to, for people: from its leading stretch to its end
    (worked out once per span clause and stretch)."""
    where = (pairs[0][1], pairs[-1][1])
    text = span.shown.get(where)
    if text is None:
        first = lead_start(span, where[0])
        text = span.shown[where] = " ".join(w.text for w in span.words[first : where[1] + 1])
    return text


class Shown:
    """:func:`_shown`, worked out only when a detail needs it."""

    __slots__ = ("pairs", "span")

    def __init__(self, span: SpanClause, pairs: list[tuple[int, int]]) -> None:
        self.span, self.pairs = span, pairs

    def __repr__(self) -> str:
        return repr(_shown(self.span, self.pairs))


class ClauseReading(NamedTuple):
    """What :func:`clause_conflict` found in one matched clause: its first disagreement
    (``None``: none) with the claim positions of the words that say otherwise there, and the
    first qualifier of the span the claim drops
    (:func:`ledger.gate.narrowing.qualifiers.qualifier_conflict`)."""

    conflict: Disagreement | None
    culprits: frozenset[int] = frozenset()
    qualifier: CheckResult | None = None

    def established(self, unmatched: Sequence[int]) -> bool:
        """Whether the disagreement is a contradiction, given the claim words of the clause
        that must align and do not (``unmatched``): every one of them is a word that says
        otherwise. Where other words of the clause do not align, the claim may be saying
        something else than the span clause, so what differs proves nothing."""
        return all(i in self.culprits for i in unmatched)


_NOTHING = ClauseReading(None)


# Over 60 lines on purpose: one walk over the matched pairs and then the stretches, in the
# order the clause reads, stopping at the first disagreement.
def clause_conflict(
    clause: list[Word],
    span: SpanClause,
    pairs: list[tuple[int, int]],
    moved: set[int],
    *,
    floor: int = -1,
    governed: Word | None = None,
) -> ClauseReading:
    """The first disagreement at the aligned positions and the first qualifier dropped: at
    each matched pair, then in each stretch (see
    :func:`ledger.gate.polarity.stretch.stretch_conflict`). The leading stretch is the claim's
    words before its first match over the span's leading words
    (:func:`ledger.gate.alignment.reach.leading`), the trailing one its words after its last
    match over the span words they reach (:func:`ledger.gate.alignment.reach.trailing`). Words
    of a moved time phrase are left out."""
    shown = Shown(span, pairs)
    found = span.words
    qualifier: CheckResult | None = None
    # The stretches between two matches are noted in the same pass (few pairs have one).
    gaps: list[tuple[int, int, int, int]] = []
    shared: set[int] = set()
    c1, s1 = pairs[0]
    for c, s in pairs:
        if c > c1 + 1 or s > s1 + 1:
            gaps.append((c1, s1, c, s))
        c1, s1 = c, s
        mine, theirs = clause[c], found[s]
        if mine.hedge:
            shared.add(c)
        if qualifier is None and (theirs.kind is Kind.NUMBER or theirs.kind is Kind.YEAR):
            qualifier = _around(clause, c, found, s, shown)
        if mine.negation != theirs.negation or (
            mine.key == "only"
            and s > 0
            and found[s - 1].text == "notonly"
            and (c == 0 or clause[c - 1].text != "notonly")
        ):
            not_only = s > 0 and found[s - 1].text == "notonly"
            has, lacks = ("claim", "span") if mine.negation else ("span", "claim")
            result = polarity_failure(
                "negation_mismatch",
                f"the {has} is negated where the {lacks} is not: {mine.text!r} over "
                f"{'not ' if not_only else ''}{theirs.text!r}; span text: {shown!r}",
            )
            return ClauseReading(Disagreement(result), qualifier=qualifier)
    hedged = _hedged(clause, shared, found)
    first_c, first_s = pairs[0]
    last_c, last_s = pairs[-1]
    # Each stretch: the claim positions in it, the span words it stands over, and the matched
    # pair after it (none after the last match).
    head = [i for i in range(first_c) if i not in moved]
    lead = leading([clause[i] for i in head], span, first_s, moved, floor, governed)
    stretches: list[tuple[list[int], Sequence[Word], tuple[int, int] | None]] = [
        (head, lead, pairs[0])
    ]
    for a, sa, b, sb in gaps:
        stretches.append((list(range(a + 1, b)), _said(clause, span, a, sa, b, sb), (b, sb)))
    tail = [i for i in range(last_c + 1, len(clause)) if i not in moved]
    if tail or last_s + 1 < len(found):
        stretches.append((tail, trailing([clause[i] for i in tail], span, last_s, moved), None))
    for places, said, after in stretches:
        words = [clause[i] for i in places]
        next_word = clause[after[0]] if after is not None else None
        next_span = found[after[1]] if after is not None else None
        conflict = stretch_conflict(words, said, next_word, next_span, hedged, shown)
        if conflict is not None:
            culprit = conflict.culprit
            culprits = frozenset(i for i in places if clause[i] is culprit)
            return ClauseReading(conflict, culprits, qualifier)
        if qualifier is None and said:
            qualifier = qualifier_conflict(words, said, next_word, next_span, shown)
    return ClauseReading(None, qualifier=qualifier) if qualifier is not None else _NOTHING


def _around(
    clause: list[Word], c: int, found: Sequence[Word], s: int, shown: Shown
) -> CheckResult | None:
    """A qualifier right around the matched pair ``(c, s)`` that the claim drops: the part of
    the year a figure is of, or a bound after the figure
    (:mod:`ledger.gate.narrowing.around`)."""
    mine, theirs = clause[c], found[s]
    part = dropped_part_of_year(clause, c, found, s)
    if part is not None:
        return qualifier_dropped(
            f"the span dates the figure to part of the year ({part.text!r} {theirs.text!r}) "
            f"where the claim dates it to the year ({mine.text!r}); span text: {shown!r}"
        )
    after = dropped_bound_after(clause, c, found, s)
    if after is not None:
        return qualifier_dropped(
            f"the span bounds the figure ({theirs.text!r} {' '.join(after)!r}) where the "
            f"claim states it exactly ({mine.text!r}); span text: {shown!r}"
        )
    return None


def _hedged(clause: list[Word], shared: set[int], found: Sequence[Word]) -> int:
    """How far the claim clause is hedged by a hedge of its own: not one it shares with the
    span at a matched pair (``will rise`` does not cover the ``probably`` of ``will probably
    rise``) nor one the span clause writes too, matched or not (the ``whether`` of ``if you
    distribute copies, whether gratis or for a fee, you must ...`` does not cover its
    ``if``); a modal of its own covers only the span's modals (``would sell`` over ``will
    sell``, but not ``will increase`` over ``may increase``): see
    :data:`ledger.gate.lexicon.cues.HEDGED`."""
    hedged = PLAIN
    for i, w in enumerate(clause):
        if w.hedge and i not in shared and not _written(w.text, found):
            if w.text not in MODALS:
                return HEDGED
            hedged = PLANNED
    return hedged


def _written(text: str, found: Sequence[Word]) -> bool:
    """Whether the span clause writes the word ``text`` (a hedge the claim repeats)."""
    return any(w.text == text for w in found)


def _said(
    clause: list[Word], span: SpanClause, c1: int, s1: int, c2: int, s2: int
) -> Sequence[Word]:
    """The span words of the stretch between two matches, less a phrase set off by commas
    that the claim leaves out whole, not a word of it in the claim's stretch
    (:func:`ledger.gate.alignment.clauses.parenthetical`): its negation is its own (``The company
    reported record profits.`` over ``The company, which has never paid a dividend, reported
    record profits.``)."""
    found = span.words
    aside = parenthetical(span, s1, s2) if span.commas else None
    if aside is None:
        return found[s1 + 1 : s2]
    first, after = aside
    mine = {w.text for w in clause[c1 + 1 : c2]}
    if any(w.text in mine for w in found[first:after]):
        return found[s1 + 1 : s2]
    return found[s1 + 1 : first] + found[after:s2]
