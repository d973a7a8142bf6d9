"""What a claim may not leave out under a negation it shares with the span.

Leaving words of a span out is how a claim summarises it: ``The firm hired 200 staff in 2023``
supports ``The firm hired staff``. Under a negation it is the other way round. A negation
denies what follows it in its clause, up to a conjunction such as ``while``, so the words
there narrow what is denied, and a
claim that drops one denies more than the span does: ``The trial reported no serious side
effects`` does not say ``The trial reported no side effects``, nor ``did not fully recover``
``did not recover``, nor ``has not paid a dividend since 2019`` ``has not paid a dividend``.
Adding words there is safe (they would have to align anyway). Such a claim is not contradicted,
only not supported: ``support_scope_narrowed`` keeps it ``unverified``.

The negation is one the claim aligns to the span's own (where they differ the alignment
already fails ``negation_mismatch``), read as the alignment reads negations (``not``, ``no``,
``never``, ``without``, ``failed to``, ``denied``, ``lack of``, ...), but not ``non-`` (it
negates its own word: ``non-binding``), ``excluding``, ``except`` or ``unless`` (they set
aside a part, they do not deny the rest of the clause). Its scope is read as the rest of the
span clause up to the next conjunction of :data:`_SCOPE_ENDS`, which is wider than grammar's
on purpose: when in doubt, unverified.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ledger.gate.alignment.clauses import SpanClause, asides
from ledger.gate.alignment.words import Word
from ledger.gate.lexicon.words import word_set
from ledger.gate.model import CheckResult, Outcome

QUANTIFIERS = word_set("some most many several few")
"""Determiners that say how many of what follows them (``for most patients``, ``some
analysts``): a claim without one says it of all. Not ``the most`` (a superlative) nor ``at
most`` (a bound)."""
_NOT_DENYING = word_set("non excluding except unless notonly")
"""Negation cues of the alignment that do not deny the rest of their clause."""
_SCOPE_ENDS = word_set("but while whereas although though because")
"""Conjunctions that end a negation's scope in its span clause: what follows them is another
clause's (``cannot be trusted while he is under oath elsewhere``). ``and``, ``or``, ``so``
and ``which`` do not: they join words inside the denial as often (``did not appear on albums
or compilations from 1991 to 2000``, ``not so hot at history``)."""


def _ends_scope(found: tuple[Word, ...], i: int) -> bool:
    """Whether the span word at ``i`` ends a negation's scope (:data:`_SCOPE_ENDS`): not a
    ``while`` before a gerund, which says when the denied thing would happen, inside the
    denial (``without blocking other coroutines while waiting for queries``), where a
    ``while`` before a clause opens another (``while he is under oath``)."""
    if found[i].text not in _SCOPE_ENDS:
        return False
    return not (
        found[i].text == "while" and i + 1 < len(found) and found[i + 1].text.endswith("ing")
    )


_PREPOSITIONS = word_set(
    """
    about after against at before by during for from in into on onto over since through to
    under until with within
    """
)
"""Prepositions whose phrase, left out whole, narrows a denial even when its object is
grammar (``would not cooperate with them``, ``had no teeth in it``)."""


@dataclass(slots=True)
class Taken:
    """What the claim's clauses took in one span clause: its positions (matched, or in a
    moved time phrase) and each clause's words with its pairs."""

    span: SpanClause
    positions: set[int] = field(default_factory=set)
    matches: list[tuple[list[Word], list[tuple[int, int]]]] = field(default_factory=list)


def note_taken(
    taken: dict[int, Taken],
    span: SpanClause,
    clause: list[Word],
    pairs: list[tuple[int, int]],
    moved: set[int],
) -> None:
    """Note what a clause's match takes in ``span`` (``moved`` holds ``-s - 1`` for each span
    position of a moved time phrase): a later clause of the claim may take the rest."""
    entry = taken.get(id(span))
    if entry is None:
        entry = taken[id(span)] = Taken(span)
    entry.positions.update(s for _, s in pairs)
    entry.positions.update(-k - 1 for k in moved if k < 0)
    entry.matches.append((clause, pairs))


def narrowed(taken: dict[int, Taken]) -> CheckResult | None:
    """Fail ``support_scope_narrowed`` for the first span clause in which the claim leaves out
    a quantifier of a word it takes (:func:`_quantifier_dropped`) or, after a negation it
    aligns to there, a word that must align (not grammar) or a preposition with the word
    after it."""
    for entry in taken.values():
        quantified = _quantifier_dropped(entry)
        if quantified is not None:
            return quantified
        found = entry.span.words
        cues = sorted(
            {
                s
                for _, pairs in entry.matches
                for _, s in pairs
                if found[s].negation and found[s].text not in _NOT_DENYING
            }
        )
        for cue in cues:
            end = next((i for i in range(cue + 1, len(found)) if _ends_scope(found, i)), len(found))
            end = min(end, _aside_end(entry.span, cue))
            dropped = [
                w.text
                for i, w in enumerate(found[cue + 1 : end], cue + 1)
                if i not in entry.positions
                and (w.must or (w.text in _PREPOSITIONS and _phrase_left_out(entry, i)))
            ]
            if dropped:
                return CheckResult(
                    "support",
                    Outcome.FAIL,
                    "support_scope_narrowed",
                    f"the claim leaves out {_quoted(dropped)} of the span after "
                    f"{found[cue].text!r}: the words after a negation narrow what it denies; "
                    f"span text: {' '.join(w.text for w in found[cue:end])!r}",
                )
    return None


def _aside_end(span: SpanClause, cue: int) -> int:
    """Where the phrase set off by commas that holds the negation at ``cue`` ends (``The
    firm, which did not raise prices, lost share``: the denial stops at the comma), or the end
    of the clause."""
    return next((after for first, after in asides(span) if first <= cue < after), len(span.words))


def _quantifier_dropped(entry: Taken) -> CheckResult | None:
    """Fail ``support_scope_narrowed`` when the span clause says how many of a word the claim
    takes (a :data:`QUANTIFIERS` word at most three words before it) and no clause of the
    claim there says how many itself (``The pilot cut wait times for patients.`` over ``...
    for most patients.``)."""
    found = entry.span.words
    for q, word in enumerate(found):
        if word.text not in QUANTIFIERS or q in entry.positions:
            continue
        if q and found[q - 1].text in ("the", "at"):
            continue
        if not any(q < p <= q + 3 for p in entry.positions):
            continue
        if _quantified_in_claim(entry, q):
            continue
        return CheckResult(
            "support",
            Outcome.FAIL,
            "support_scope_narrowed",
            f"the claim leaves out {word.text!r} of the span: it says of all what the span says "
            f"of {word.text}; span text: {' '.join(w.text for w in found[q : q + 4])!r}",
        )
    return None


def _quantified_in_claim(entry: Taken, q: int) -> bool:
    """Whether a claim clause says how many of the span word it matched first after the
    quantifier at ``q``: a :data:`QUANTIFIERS` word among the three claim words before it."""
    for clause, pairs in entry.matches:
        for c, s in pairs:
            if s > q:
                if any(w.text in QUANTIFIERS for w in clause[max(c - 3, 0) : c]):
                    return True
                break
    return False


def _phrase_left_out(entry: Taken, at: int) -> bool:
    """Whether the preposition at span position ``at`` opens a phrase the claim leaves out:
    the word after it is not taken either, and no clause matched there has a word of the same
    text between its matches around that place (or before its first, or after its last)."""
    found = entry.span.words
    if at + 1 >= len(found) or at + 1 in entry.positions:
        return False
    for clause, pairs in entry.matches:
        before = [c for c, s in pairs if s < at]
        after = [c for c, s in pairs if s > at]
        stretch = clause[before[-1] + 1 if before else 0 : after[0] if after else len(clause)]
        if any(w.text == found[at].text for w in stretch):
            return False
    return True


def _quoted(texts: list[str]) -> str:
    return ", ".join(repr(t) for t in texts)
