"""What a claim that states a figure may not leave out of what the figure measures.

Leaving span words out is how a claim summarises, but a figure is a figure of something: in
``European revenue rose 5%`` the 5% is European revenue's, and ``Revenue rose 5%`` says it of
all revenue. So in a claim clause that states a figure (a number that measures, not one that
dates or lasts: ``35 years ago``, ``60 days``), the span words that narrow its measured
quantity must be taken by the claim: a word right before the clause's first match or between
two of its matches before the figure (``Revenue in Europe rose 5%``, ``Revenue per customer
rose 5%``, ``Net product revenue``), and a phrase that restricts the figure, right after it
(``rose 5% in Europe``, ``in constant currency``, ``among younger customers``) or between its
subject and it (``Gross margin for the services segment was 41%``). Grammar, domain words
(``The company's revenue``, ``total revenue``), anchors, days, manners in ``-ly`` and asides
set off by commas are free. Such a claim is ``support_scope_narrowed``: unverified.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.gate.alignment.clauses import asides
from ledger.gate.alignment.words import Kind, Word
from ledger.gate.lexicon.words import DOMAIN_WORDS, word_set
from ledger.gate.model import CheckResult, Outcome
from ledger.gate.narrowing.around import past_units
from ledger.gate.narrowing.scope import Taken


def measure_narrowed(taken: dict[int, Taken]) -> CheckResult | None:
    """Fail ``support_scope_narrowed`` for the first span clause in which a claim clause with
    a figure leaves out a word that narrows what the figure measures (:func:`_narrowed_in`)."""
    for entry in taken.values():
        found = _narrowed_in(entry)
        if found is not None:
            return found
    return None


_TIME_ADVERBS = word_set("quarterly monthly weekly daily yearly hourly early")
"""Words in ``-ly`` that say which part or period a figure measures, not how it moved."""


def _narrowed_in(entry: Taken) -> CheckResult | None:
    """Fail ``support_scope_narrowed`` when a claim clause states a figure and the span
    narrows what the figure measures where the claim does not: a word between two of the
    clause's matches before the figure (and after the figure before it, if any), or right
    before the clause's first match, that the claim leaves out (``Revenue rose 5%.`` over
    ``European revenue rose 5%.``, ``Revenue in Europe rose 5%.``, ``Revenue per customer rose
    5%.``; ``Net revenue`` over ``Net product revenue``), or a restricting phrase right after
    the figure (:func:`_restriction_after`). Not grammar, a domain word (``The company's
    revenue``, ``total revenue``), an anchor, a manner (``sharply``) or a word of a phrase
    set off by commas that says something of its own (``, which ...,``)."""
    found = entry.span.words
    # A phrase set off by commas that the claim leaves out whole says something of its own.
    aside = {
        i
        for first, after in asides(entry.span)
        if entry.positions.isdisjoint(range(first, after))
        for i in range(first, after)
    }
    for clause, pairs in entry.matches:
        start = max(0, pairs[0][1] - 1) if pairs else 0
        for figure in (c for c, w in enumerate(clause) if _measured(clause, c)):
            before = [s for c, s in pairs if c < figure and s >= start]
            at = next((s for c, s in pairs if c == figure), None)
            if before:
                # Every span word from the clause's first match to its last, but the figure's
                # own attributes (``a record $4.5 million``).
                own = _attributes(found, at, entry.positions) if at is not None else range(0)
                for i in range(start, pairs[-1][1]):
                    word = found[i]
                    if i in entry.positions or not _narrows(word) or i in aside or i in own:
                        continue
                    return _narrowing(word, clause[figure], "narrows", found, start)
            after = None if at is None else _restriction_after(entry, at)
            if after is not None:
                return _narrowing(after, clause[figure], "restricts", found, start)
            if at is None:
                break
            start = at + 1
    return None


def _attributes(found: Sequence[Word], at: int, taken: set[int]) -> range:
    """The positions of the words that describe the figure at ``at`` itself, between an
    article and it (``a record $4.5 million``, ``an impressive 5%``), when the claim takes none
    of them: they say what the figure is like, not what it is of."""
    for k in range(at - 1, -1, -1):
        if k in taken or found[k].kind is not Kind.WORD:
            break
        if found[k].text in ("a", "an"):
            return range(k + 1, at)
    return range(0)


def _narrowing(
    word: Word, figure: Word, verb: str, found: Sequence[Word], start: int
) -> CheckResult:
    return CheckResult(
        "support",
        Outcome.FAIL,
        "support_scope_narrowed",
        f"the claim leaves out {word.text!r} of the span: it {verb} what the figure "
        f"{figure.text!r} measures; span text: {' '.join(w.text for w in found[start:])!r}",
    )


_SPANS_OF_TIME = word_set(
    "year years month months week weeks day days hour hours minute minutes decade decades ago"
)
_DAYS = word_set("monday tuesday wednesday thursday friday saturday sunday today yesterday")


def _measured(clause: Sequence[Word], c: int) -> bool:
    """Whether the claim word at ``c`` is a figure that measures something: a number not
    followed by a span of time (``35 years ago``, ``60 days``), which lasts, nor a day after
    its month (``Feb. 23``), which dates."""
    if clause[c].kind is not Kind.NUMBER or (c and clause[c - 1].kind is Kind.MONTH):
        return False
    return c + 1 >= len(clause) or clause[c + 1].text not in _SPANS_OF_TIME


_RESTRICTING = word_set("in among at")
"""Prepositions whose phrase right after a figure restricts what it measures (``rose 5% in
Europe``, ``among younger customers``, ``at our flagship stores``, ``in constant currency``)."""


def _restriction_after(entry: Taken, at: int) -> Word | None:
    """The first word the claim leaves out of a restricting phrase (:data:`_RESTRICTING`)
    right after the span's figure at ``at`` and its units, with no comma before it; ``None``
    when there is none or the phrase names only grammar, domain words or anchors (``in
    total``, ``in 2023``)."""
    found = entry.span.words
    j = past_units(at, found)
    return _restricting(entry, j, min(len(found), j + 5), _RESTRICTING)


_RESTRICTING_BEFORE = _RESTRICTING | word_set("for from")
"""Prepositions whose phrase between a figure's subject and the figure restricts the subject
(``Gross margin for the services segment was 41%``)."""


def _restricting(
    entry: Taken, j: int, end: int, openers: frozenset[str] = _RESTRICTING_BEFORE
) -> Word | None:
    """The first word the claim leaves out of a restricting phrase that opens at span position
    ``j`` (with a word of ``openers``, no comma before it) and runs to ``end`` at the most: up
    to a comma, a taken word or an anchor; ``None`` when there is none or the phrase names
    only grammar, domain words or anchors."""
    found, commas = entry.span.words, entry.span.commas
    if j >= end or found[j].text not in openers or j in commas or j in entry.positions:
        return None
    for k in range(j + 1, end):
        word = found[k]
        if k in commas or k in entry.positions or word.kind is not Kind.WORD:
            return None
        if _narrows(word):
            return word
    return None


def _narrows(word: Word) -> bool:
    """Whether a span word may narrow what a figure measures (see :func:`_narrowed_in`):
    not grammar, a domain word, an anchor, a day (``on Thursday``) or a manner in ``-ly``."""
    if word.kind is not Kind.WORD or not word.must or word.text in DOMAIN_WORDS:
        return False
    if word.text in _DAYS:
        return False
    return not word.text.endswith("ly") or word.text in _TIME_ADVERBS
