"""A stretch of a claim clause over the span words it stands for: what the two say differently.

:mod:`ledger.gate.polarity.aligned` hands each stretch of a matched clause here (the words
between two matched pairs, before the first or after the last), with the matched words after
it. A stretch disagrees on a negation on one side only, a hedge of the span the claim does not
share, a predicate governing the next matched word that the claim states as done
(:mod:`ledger.gate.polarity.governors`), a word whose opposite stands on the other side, an
anchor of the same role with another value, or a gendered pronoun swapped. Each disagreement
comes with the claim word that says otherwise (:class:`Disagreement`): whether it is a
contradiction depends on whether the rest of the clause aligns. ``shown`` is the span text a
detail shows (its ``repr`` is worked out only when a detail needs it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ledger.gate.alignment.clauses import EXCEPTIONS
from ledger.gate.alignment.words import GRAMMAR, Kind, Word
from ledger.gate.lexicon.cues import DIRECTIONS, HEDGED, MODALS, PLAIN, STRICT_HEDGES
from ledger.gate.lexicon.opposites import are_opposites, opposable
from ledger.gate.lexicon.words import stem
from ledger.gate.model import CheckResult, Outcome
from ledger.gate.polarity.governors import governing


class Disagreement(NamedTuple):
    """What a claim and its span say differently at the aligned positions: the failed result
    it gives when it is established, and the claim word that says otherwise (``None`` where
    the claim only lacks the span's cue, or at a matched pair)."""

    result: CheckResult
    culprit: Word | None = None


def polarity_failure(reason: str, detail: str) -> CheckResult:
    """A failed polarity result of the alignment."""
    return CheckResult("polarity", Outcome.FAIL, reason, detail)


def anchor_misaligned(detail: str) -> CheckResult:
    """A failed anchors result of the alignment (``anchor_misaligned``)."""
    return CheckResult("anchors", Outcome.FAIL, "anchor_misaligned", detail)


_DIRECTION_STEMS = {stem(w): axis for w, axis in DIRECTIONS.items()}


def _skips_anchor(claim_part: list[Word], span_part: Sequence[Word], word: Word) -> Word | None:
    """A span anchor of ``word``'s role, with another value, that the match of ``word``
    passes over (``for the 2019`` over ``for the 2018 and 2019``), unless the claim has an
    anchor of that role there too, or the claim's words there are the last of the span's (a
    dropped phrase: ``rose to 4.5`` over ``rose from 4.0 to 4.5``)."""
    if word.kind is Kind.WORD or any(w.kind is word.kind for w in claim_part):
        return None
    skipped = [w for w in span_part if w.kind is word.kind and w.key != word.key]
    if not skipped:
        return None
    tail = [w.key for w in claim_part]
    if tail and [w.key for w in span_part[len(span_part) - len(tail) :]] == tail:
        return None
    return skipped[0]


def stretch_conflict(
    claim_part: list[Word],
    span_part: Sequence[Word],
    next_word: Word | None,
    next_span: Word | None,
    hedged: int,
    shown: object,
) -> Disagreement | None:
    """The first disagreement between the claim's and the span's words of one stretch, as
    the module docstring lists them; ``next_word`` is the matched claim word after it and
    ``next_span`` the span word it matches."""
    if not claim_part and not span_part:
        return None
    if next_word is not None and span_part:
        skipped = _skips_anchor(claim_part, span_part, next_word)
        if skipped is not None:
            return Disagreement(_misaligned(next_word, skipped, shown))
    # Plain loops rather than comprehensions: a stretch is one or two words, and most hold no
    # cue at all.
    c_neg: Word | None = None
    s_neg = s_hedge = None
    # An exception (``except``, ``excluding``) narrows what it stands in, it does not deny
    # it: a qualifier (ledger.gate.narrowing.qualifiers), not a negation.
    for w in claim_part:
        if w.negation and w.text not in EXCEPTIONS:
            c_neg = w
            break
    for w in span_part:
        if w.negation and s_neg is None and w.text not in EXCEPTIONS:
            s_neg = w.text
        if w.hedge and s_hedge is None:
            if w.text in STRICT_HEDGES and not any(c.text == w.text for c in claim_part):
                # A hedge that negates (``unlikely``) is not covered by one of the claim's.
                hedged = PLAIN
            if hedged == PLAIN or w.text not in MODALS:
                s_hedge = w.text
    if (c_neg is None) != (s_neg is None):
        has, lacks = ("claim", "span") if c_neg is not None else ("span", "claim")
        cue = c_neg.text if c_neg is not None else s_neg
        detail = f"the {has} is negated ({cue!r}) where the {lacks} is not; span text: {shown!r}"
        return Disagreement(polarity_failure("negation_mismatch", detail), c_neg)
    if hedged != HEDGED and s_hedge is not None:
        return Disagreement(
            polarity_failure(
                "hedge_mismatch",
                f"the span is hedged ({s_hedge!r}) where the claim states it as fact; "
                f"span text: {shown!r}",
            )
        )
    if not span_part:
        return None
    if hedged != HEDGED and next_word is not None and next_span is not None:
        governor = governing(claim_part, span_part, next_word, next_span)
        if governor is not None:
            return Disagreement(
                polarity_failure(
                    "hedge_mismatch",
                    f"the span says {governor.text!r} to {next_span.text!r} where the claim "
                    f"states {next_word.text!r} as done; span text: {shown!r}",
                )
            )
    has_opposite = opposable()
    for mine in claim_part:
        if mine.kind is Kind.WORD:
            if mine.key not in has_opposite:
                continue
            # A grammar word (``to``, ``or``) stands for its opposite only where neither side
            # puts a word of its own around the two (``moved to the office`` over ``moved from
            # the office``; not ``graduated from`` over ``transferred to``, nor ``from HR or
            # submitting`` over ``from HR and she said you can either submit``): otherwise
            # each side's word joins or directs words of its own.
            grammar = mine.text in GRAMMAR
            if grammar and any(w.must for w in claim_part):
                continue
            for theirs in span_part:
                # A side says both (``here, there's``; ``to 4.5`` over ``from 4.0 to 4.5``):
                # the stretch takes neither's side.
                if (
                    are_opposites(mine.key, theirs.key)
                    and not (grammar and any(w.must and w is not theirs for w in span_part))
                    and not any(w.key == theirs.key for w in claim_part)
                    and not any(w.key == mine.key for w in span_part)
                ):
                    detail = (
                        f"the claim says {mine.text!r} where the span says {theirs.text!r}; "
                        f"span text: {shown!r}"
                    )
                    if mine.key in _DIRECTION_STEMS or mine.text in DIRECTIONS:
                        return Disagreement(polarity_failure("direction_mismatch", detail), mine)
                    return Disagreement(polarity_failure("antonym_mismatch", detail), mine)
        elif mine.kind is Kind.PERSON:
            swapped = _persons_swapped(claim_part, span_part)
            if swapped is not None:
                return Disagreement(_misaligned(*swapped, shown), swapped[0])
        else:
            for theirs in span_part:
                if (
                    theirs.kind is mine.kind
                    and theirs.key != mine.key
                    and not any(w.key == theirs.key for w in claim_part)
                ):
                    return Disagreement(_misaligned(mine, theirs, shown), mine)
    return None


def _persons_swapped(claim_part: list[Word], span_part: Sequence[Word]) -> tuple[Word, Word] | None:
    """Gendered pronouns that differ between the claim's and the span's stretch, or ``None``.

    When both hold as many, they are compared in order (``she is her boyfriend`` over ``he is
    her boyfriend``); otherwise a claim pronoun of a gender the span's stretch has none of
    differs (``she ... his`` over ``he``). Counts may differ (``she ... she`` over ``she``): a
    paraphrase repeats or drops a pronoun, it does not change one's gender. A span stretch
    without any has nothing to differ from."""
    theirs = [w for w in span_part if w.kind is Kind.PERSON]
    if not theirs:
        return None
    mine = [w for w in claim_part if w.kind is Kind.PERSON]
    if len(mine) == len(theirs):
        for a, b in zip(mine, theirs, strict=True):
            if a.key != b.key:
                return a, b
        return None
    keys = {w.key for w in theirs}
    for w in mine:
        if w.key not in keys:
            return w, theirs[0]
    return None


def _misaligned(mine: Word, theirs: Word, shown: object) -> CheckResult:
    return anchor_misaligned(
        f"the claim has {mine.text!r} where the span has {theirs.text!r} ({mine.kind.value}); "
        f"span text: {shown!r}"
    )
