"""How far a claim clause's first and last stretches reach into the span clause it aligns to.

:mod:`ledger.gate.factual` compares the claim's and the span's words between two matched
words. Before the first match and after the last, what the span says is only what the claim's
own words there stand over: its opening words walked back over the span (past the margin of
:func:`ledger.gate.alignment.clauses.lead_start` when they reach further), its closing words walked
forward, passing at most :data:`MAX_PASSED` span words they do not have (a dropped ``not``), a
negation that ends the span clause, and a condition (``if``, ``unless``) on what the claim
says. Everything here is a pure reading of one span clause and the claim's words.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.gate.alignment.clauses import (
    CONJUNCTIONS,
    EXCEPTIONS,
    LEAD_STOPS,
    SpanClause,
    lead_start,
)
from ledger.gate.alignment.words import Kind, Word
from ledger.gate.lexicon.cues import CONDITIONS, PARTITIVES
from ledger.gate.lexicon.opposites import are_opposites
from ledger.gate.lexicon.words import stem

MAX_PASSED = 2
"""Span words the claim's tail may pass over (:func:`trailing`): a dropped cue, one or two
words long (``not``, ``no longer``)."""


_BE = frozenset(["am", "is", "are", "was", "were", "be", "been", "being"])


def _stands_for(theirs: Word, mine: Word) -> bool:
    """Whether span word ``theirs``, of another key, stands where the claim has ``mine`` as a
    walk over a head or tail sees it: a gendered pronoun for one, a form of ``be`` for one (the
    stretch then compares them: ``he was`` over ``he would be``). Callers test the key first."""
    return theirs.kind is mine.kind is Kind.PERSON or (theirs.text in _BE and mine.text in _BE)


def _head_start(head: list[Word], found: Sequence[Word], first: int, moved: set[int]) -> int:
    """Where the span words the claim's ``head`` (its words before the first match, at
    ``first``) cover begin: the head walked back from the first match as :func:`trailing`
    walks a tail forward (``but "he" or`` over ``but not "he" or`` covers the ``not``, past
    the conjunction that ends :func:`lead_start`); ``first`` when no head word is found."""
    start = first
    at = len(head) - 1
    passed = 0
    for j in range(first - 1, -1, -1):
        if at < 0:
            break
        if -j - 1 in moved:
            continue
        word = found[j]
        mine = head[at]
        if word.key == mine.key or _stands_for(word, mine):
            at -= 1
            start = j
        else:
            passed += 1
            if passed > MAX_PASSED:
                break
    return start


def trailing(tail: list[Word], span: SpanClause, last: int, moved: set[int]) -> list[Word]:
    """The span words after the last match (at ``last``) that the claim's ``tail`` covers.

    The tail is walked in step with the span (:func:`_stands_for`): a span word that is not
    the tail's next word is passed over and kept (what the claim dropped: ``warned him to do``
    over ``warned him not to do``), at most :data:`MAX_PASSED` of them, up to the last tail
    word found; once the whole tail is found, negations right after it are kept too (an
    elided predicate: ``... is.`` over ``... is not.``), and so are parts (``cut the times in``
    over ``cut the times in half``). With no tail, only negations that end
    the span clause are covered (``but apparently`` over ``but apparently not``; ``approved``
    over ``approved, not rejected`` covers nothing). What follows is not what the claim says,
    nor are span words passed over for a tail word that never comes, except a condition on
    what it says (:func:`_condition`). A tail word the span replaced (the next tail word
    follows the words passed over: ``during them`` over ``before them``) counts as found, so
    the words it was replaced by are compared with it; so is the last tail word, with the span
    word after the last found (``was likely`` over ``was unlikely``). Span words of a moved
    time phrase are left out.
    """
    found = span.words
    if not tail:
        if last + 1 == len(found):
            return []
        rest = found[last + 1 :]
        if all(w.negation for w in rest):
            return list(rest)
        if not _limited(span):
            return []
        condition = _condition(span, last + 1, len(found), trailing=True)
        return [condition] if condition is not None else []
    out: list[Word] = []
    at = passed = end = 0
    j = last + 1
    while j < len(found):
        word = found[j]
        if at == len(tail):
            # What limits the claim's last words right after them: a negation (an elided
            # predicate, ``... is not.``) or a part (``cut the times in half``).
            if not word.negation and word.text not in PARTITIVES:
                break
            end += 1
        elif -j - 1 in moved:
            j += 1
            continue
        elif word.key == tail[at].key or _stands_for(word, tail[at]):
            at += 1
            end = len(out) + 1
        elif at + 1 < len(tail) and word.key == tail[at + 1].key:
            # The tail word was replaced by the span words passed over for it (``during
            # them`` over ``before them``): those are compared with it.
            at += 2
            end = len(out) + 1
        elif word.text not in PARTITIVES:
            # A part the claim dropped (``a part of``) is passed like a cue, whatever its length.
            passed += 1
            if passed > MAX_PASSED:
                break
        out.append(word)
        j += 1
    if at < len(tail):
        # The claim's last word stands where the span has another (``was likely`` over ``was
        # unlikely``): the span word there is compared with it.
        return out[: end + 1] if at == len(tail) - 1 else out[:end]
    if not _limited(span):
        return out
    condition = _condition(span, j, len(found), trailing=True)
    return out if condition is None else [*out, condition]


LIMITS = (
    *sorted(CONDITIONS),
    "except",
    stem("excluding"),
    "until",
    "till",
    stem("earliest"),
    stem("latest"),
)
"""Keys of the words that limit what a span clause says: a condition (``if``, ``unless``), an
exception (``except``, ``excluding``), an end (``until``) or a bound on a date (the
``earliest`` of ``at the earliest``: only there is it a hedge), read in the first and last
stretches wherever they stand in them (``Sales rose in 2023.`` over ``Sales rose in 2023,
except in Europe.``; ``X is the largest bank.`` over ``X was the largest bank until 2020.``)."""


def _limited(span: SpanClause) -> bool:
    """Whether the span clause holds a word of :data:`LIMITS` at all."""
    positions = span.positions
    for key in LIMITS:  # noqa: SIM110 (a loop: it runs for every stretch read)
        if key in positions:
            return True
    return False


_NOT_CONDITIONAL = {"even", "as"}
"""Words before ``if`` that make it no condition: ``even if`` concedes, ``as if`` compares."""


def _condition(span: SpanClause, start: int, end: int, *, trailing: bool) -> Word | None:
    """The first word of the span clause between ``start`` and ``end`` that limits it
    (:data:`LIMITS`: ``if``, ``unless``, ``except``, ``excluding``), unless it is ``even if``,
    ``as if`` or ``if any``
    (which only allows for none); after a claim's last match (``trailing``), only up to a
    conjunction: what follows one is another clause's; before its first match, an end or an
    exception inside the clause only when no conjunction follows it there (one opening the
    clause, and a condition, always)."""
    found = span.words
    places = sorted(p for key in LIMITS for p in span.positions.get(key, ()) if start <= p < end)
    for p in places:
        if p and found[p - 1].text in _NOT_CONDITIONAL:
            continue
        if p + 1 < len(found) and found[p + 1].text == "any":
            continue
        # A conjunction right before an exception opens no clause (``but excluding``); with a
        # comma between them the exception is an aside on what follows (``and, except for
        # the first character, the digits``).
        joined = (
            p > start
            and found[p].text in EXCEPTIONS
            and found[p - 1].text in CONJUNCTIONS
            and p not in span.commas
        )
        if trailing and any(w.text in CONJUNCTIONS for w in found[start : p - joined]):
            return None
        if (
            not trailing
            and p
            and found[p].key not in CONDITIONS
            and any(w.text in CONJUNCTIONS for w in found[p + 1 : end])
        ):
            # An end or exception inside an earlier conjunct (``Prices rose until March and
            # demand fell``) limits that conjunct; one that opens the span clause, and a
            # condition anywhere, limit what follows whatever its own conjunctions (``If
            # prices rise and demand falls, ...``, ``Until 2020 and 2021, ...``).
            continue
        return found[p]
    return None


def leading(
    head: list[Word],
    span: SpanClause,
    first: int,
    moved: set[int],
    floor: int = -1,
    governed: Word | None = None,
) -> Sequence[Word]:
    """The span words the claim's ``head`` (its words before the first match, at ``first``)
    is compared with: the margin of :func:`lead_start`, or as far back as the head reaches
    (:func:`_head_start`), with the span's conjunction where the head begins at one or at its
    opposite (``and the seller`` over ``or the seller``; ``because she`` over ``although
    she``), and a condition that opens the span clause (``If A, B``
    cited for ``B``) unless an earlier clause of the claim sentence took the span clause's
    opening. ``floor`` is the last span position such an earlier clause matched (``-1``:
    none); the margin never reaches back to it (that clause compared those words already:
    ``... must go though procedures``, cut before ``though`` in the claim, does not read the
    ``must`` again). ``governed`` is the condition that opens the span clause's sentence in an
    earlier span clause no clause of the claim took (``If A, B, and C`` cited for ``C``): it
    is read as if it opened this one. Span words of a moved time phrase are left out."""
    found = span.words
    start = lead_start(span, first)
    # The head reaches at most its length and the words it may pass over back.
    if head and 0 < start > first - len(head) - MAX_PASSED:
        start = min(start, _head_start(head, found, first, moved))
        if (
            start
            and found[start - 1].text in LEAD_STOPS
            and (head[0].text in LEAD_STOPS or are_opposites(head[0].key, found[start - 1].key))
        ):
            start -= 1
    start = max(start, floor + 1)
    lead: Sequence[Word]
    if moved:
        lead = [found[j] for j in range(start, first) if -j - 1 not in moved]
    else:
        lead = found[start:first]
    condition = (
        _condition(span, 0, start, trailing=False)
        if start and floor < 0 and _limited(span)
        else None
    )
    condition = condition or governed
    return lead if condition is None else [condition, *lead]
