"""Span words that qualify the matched word after a stretch, which a claim may not drop.

:mod:`ledger.gate.factual` compares a claim's and a span's words between two matched words.
Most span words a claim leaves out there are modifiers it may drop (``net product revenue``
cited for ``net revenue``). Three kinds change what the next matched word says, so a claim that
drops them states something the span does not:

- a bound on a figure (``over $5 million``, ``at least 200``, ``up to 5%``): the span bounds
  the figure, a claim without a bound of its own states it exactly (:func:`dropped_bound`);
- a part of it (``sold half its stake``, ``sold part of its stake``): a claim without a part
  of its own says the whole (:func:`dropped_part`);
- a predicate governing an infinitive (``tried to approve``, ``plans to merge``, ``agreed to
  sell``): the span says it was attempted, intended or agreed, a claim that says ``approved``
  states it as done (:func:`governing`). A governor that negates (``failed to``) is a negation
  cue of :mod:`ledger.gate.alignment.words` and fails as one.

Each is a pure reading of the two stretches and the words after them;
:func:`qualifier_conflict` turns the first found into the failed result the alignment gives.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ledger.gate.alignment.clauses import EXCEPTIONS
from ledger.gate.alignment.words import Kind, Word
from ledger.gate.lexicon.cues import PARTITIVES
from ledger.gate.lexicon.words import word_set
from ledger.gate.model import CheckResult, Outcome

BOUNDS = word_set(
    """
    over under above below least most nearly almost approximately about around roughly
    exceeding more less fewer up upwards excess close
    """
)
"""Words that bound a figure they stand before (``at least``, ``more than``, ``up to``)."""
_LINKED = {"more": "than", "less": "than", "fewer": "than", "up": "to", "close": "to"}
_LINKED |= {"upwards": "of", "excess": "of"}
_LINKED |= dict.fromkeys(("much", "many", "high", "little", "few", "low"), "as")
"""Bound words that bound a figure only through a link word (``more than 5``; ``up 5%`` is a
change, not a bound)."""

MULTIPLES = word_set(
    """
    double doubled doubles doubling triple tripled triples tripling quadruple quadrupled
    quadruples halve halved halves halving
    """
)
"""Verbs that state a figure (``costs doubled``): a bound may stand before them as before
a number (``more than doubled``)."""


_TIMES = re.compile(r"\d+(?:[.,]\d+)?x")
"""A multiple written as one word with its figure (``17x``, ``1.5x``): a figure too."""


def dropped_bound(claim_part: list[Word], span_part: Sequence[Word], figure: Word) -> Word | None:
    """The span's bound on ``figure`` (a matched number or year, ``around 1850``, or a
    multiple, ``more than doubled``, ``around 17x``), the last word of its stretch or linked
    to it (``more than``, ``up to``), when the claim's stretch has no bound of its own; else
    ``None``."""
    if (
        figure.kind is not Kind.NUMBER
        and figure.kind is not Kind.YEAR
        and figure.text not in MULTIPLES
        and _TIMES.fullmatch(figure.text) is None
    ) or not span_part:
        return None
    last = span_part[-1]
    word = last
    if last.text in ("than", "to", "of", "as") and len(span_part) > 1:
        word = span_part[-2]
        if _LINKED.get(word.text) != last.text:
            return None
        if last.text == "as" and (len(span_part) < 3 or span_part[-3].text != "as"):
            # ``as much as 5%``; not ``twice as much as`` read from its second ``as`` on.
            return None
    elif last.text in _LINKED or last.text not in BOUNDS:
        return None
    for mine in claim_part:
        if mine.text in BOUNDS:
            return None
    return word


WEEKDAYS = word_set("monday tuesday wednesday thursday friday saturday sunday")
_MOMENTS = WEEKDAYS | word_set("end close start beginning middle tomorrow noon midnight")
"""Time words a bound may stand before besides months, years and quarters (``by
Friday``, ``by the end of June``)."""


_TIME_BOUNDS = word_set("by since after before")
"""Words that bound a time rather than place something in it (``by Friday``, ``since
2019``, ``after 2020``)."""
_CLAIM_BOUNDS = _TIME_BOUNDS | word_set("until till")


def dropped_time_bound(
    claim_part: list[Word], span_part: Sequence[Word], moment: Word
) -> Word | None:
    """The span's bound on ``moment`` (a matched month, year, quarter or :data:`_MOMENTS`
    word): a :data:`_TIME_BOUNDS` word (``due by March 31``, ``since 2019``, ``by the end of
    June``), with only grammar or such words between them (``in June`` over ``by the end of
    June``), when the claim's stretch bounds the time by none of its own (``due on March 31``
    says when, not by when; ``improved in 2019`` says when, not since when); else
    ``None``."""
    if (
        moment.kind is not Kind.MONTH
        and moment.kind is not Kind.YEAR
        and moment.kind is not Kind.PERIOD
        and moment.text not in _MOMENTS
    ):
        return None
    for i in range(len(span_part) - 1, -1, -1):
        word = span_part[i]
        if word.text in _TIME_BOUNDS:
            break
        if word.must and word.text not in _MOMENTS:
            return None
    else:
        return None
    for mine in claim_part:
        if mine.text in _CLAIM_BOUNDS:
            return None
    return word


FORMER = word_set("former formerly previously onetime")
"""Words that put what follows them in the past (``the former CEO``, ``was formerly the
largest``): a claim without them says it holds now."""
_RANKS = word_set("most best worst least top leading")


_MARKS = PARTITIVES | FORMER


def _marked(span_part: Sequence[Word]) -> bool:
    """Whether the stretch holds a word of :data:`PARTITIVES` or :data:`FORMER` at all (most
    hold none, and are not read further)."""
    for word in span_part:  # noqa: SIM110 (a loop: it runs for every stretch)
        if word.text in _MARKS:
            return True
    return False


def dropped_part(claim_part: list[Word], span_part: Sequence[Word]) -> Word | None:
    """A span word of the stretch saying a part (``half``, ``part of``) or a past
    (:data:`FORMER`) where the claim's stretch says none, or ``None``; ``as part of`` says
    where, not how much."""
    for i, word in enumerate(span_part):
        if word.text in FORMER:
            for mine in claim_part:
                if mine.text in FORMER:
                    return None
            return word
        if word.text in PARTITIVES and not (i and span_part[i - 1].text == "as"):
            for mine in claim_part:
                if mine.text in PARTITIVES:
                    return None
            return word
    return None


def dropped_exception(claim_part: list[Word], span_part: Sequence[Word]) -> Word | None:
    """A span word of the stretch that makes an exception (``except``, ``excluding``: ``Sales
    rose, except in Europe``) where the claim's stretch makes none, or ``None``: the claim
    says of all what the span says of all but some."""
    for word in span_part:
        if word.text in EXCEPTIONS:
            if any(mine.text in EXCEPTIONS for mine in claim_part):
                return None
            return word
    return None


def dropped_rank(claim_part: list[Word], span_part: Sequence[Word], top: Word) -> Word | None:
    """A span word ranking the next matched superlative (``second largest``, ``one of the
    largest``, ``among the largest``) where the claim's stretch has no rank of its own, or
    ``None``: an ordinal in the last two words of the stretch, or ``one of`` or ``among``
    anywhere in it."""
    if not (top.text in _RANKS or (top.text.endswith("est") and len(top.text) > 4)):
        return None
    found = None
    for i, word in enumerate(span_part):
        if (
            (word.kind is Kind.ORDINAL and i >= len(span_part) - 2)
            or word.text == "among"
            or (word.text == "one" and i + 1 < len(span_part) and span_part[i + 1].text == "of")
        ):
            found = word
            break
    if found is None:
        return None
    for mine in claim_part:
        if mine.kind is Kind.ORDINAL or mine.text in ("among", "one"):
            return None
    return found


def qualifier_conflict(
    claim_part: list[Word],
    span_part: Sequence[Word],
    mine: Word | None,
    theirs: Word | None,
    shown: object,
) -> CheckResult | None:
    """The first span qualifier the claim's stretch drops, as a failed result, or ``None``:
    an exception, a part or a past, a rank of the next matched superlative, a bound on the
    next matched figure or time (all ``support_qualifier_dropped``). ``mine`` and ``theirs``
    are the claim's and the span's next matched words (``None`` after the last match);
    ``shown`` the span text a detail shows."""
    exception = dropped_exception(claim_part, span_part)
    if exception is not None:
        return qualifier_dropped(
            f"the span makes an exception ({exception.text!r}) where the claim says it without "
            f"one; span text: {shown!r}"
        )
    part = dropped_part(claim_part, span_part) if _marked(span_part) else None
    if part is not None:
        said = "a past" if part.text in FORMER else "a part"
        whole = "it holds now" if part.text in FORMER else "the whole"
        return qualifier_dropped(
            f"the span says {said} ({part.text!r}) where the claim says {whole}; "
            f"span text: {shown!r}"
        )
    if mine is None or theirs is None:
        return None
    rank = dropped_rank(claim_part, span_part, mine)
    if rank is not None:
        return qualifier_dropped(
            f"the span ranks {theirs.text!r} ({rank.text!r}) where the claim says it is first; "
            f"span text: {shown!r}"
        )
    bound = dropped_bound(claim_part, span_part, mine)
    if bound is not None:
        return qualifier_dropped(
            f"the span bounds the figure ({bound.text!r} {theirs.text!r}) where the claim "
            f"states it exactly ({mine.text!r}); span text: {shown!r}"
        )
    time_bound = dropped_time_bound(claim_part, span_part, mine)
    if time_bound is not None:
        return qualifier_dropped(
            f"the span bounds the time ({time_bound.text!r} {theirs.text!r}) where the claim "
            f"says when ({mine.text!r}); span text: {shown!r}"
        )
    return None


def qualifier_dropped(detail: str) -> CheckResult:
    """A failed support result for a qualifier of the span the claim drops
    (``support_qualifier_dropped``)."""
    return CheckResult("support", Outcome.FAIL, "support_qualifier_dropped", detail)
