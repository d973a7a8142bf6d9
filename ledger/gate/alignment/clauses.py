"""Clauses: a claim and a span cut into the pieces the alignment lays over each other.

A sentence is cut at a semicolon, before ``but`` and before a conjunction after a comma; a
claim also before a plain ``and`` or ``while``, so that a claim clause never needs two span
clauses (:func:`clauses`). A span text is cut once and kept (:func:`span_clauses`, cached:
span texts recur claim after claim), each clause with where each key stands, how many words
that are not grammar come before each position, the commas, and the condition that opens its
sentence (``If A, B, and C``: the condition governs ``C`` too). A phrase set off by commas
that says something of its own (``, which ...,``, ``, not the CEO,``) is found here
(:func:`parenthetical`), and so is where the words before a first match begin
(:func:`lead_start`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from ledger.gate.alignment.words import GRAMMAR, Word, _ordered, mask_cues, permissions, words
from ledger.gate.anchors.reading import SPAN_CACHE_SIZE
from ledger.gate.lexicon.cues import CONDITIONS, PERMISSIONS
from ledger.gate.lexicon.words import sentences, word_set

BREAK_WORDS = frozenset(_ordered("and but while whereas although though"))
"""Conjunctions a clause may begin with."""
COMMA_BREAKS = BREAK_WORDS | {"so"}
"""Conjunctions a clause may begin with after a comma: also ``so`` (``Sales did not rise, so
we cut costs``), which without one is more often a degree (``not so different``)."""


EXCEPTIONS = frozenset(["except", "excluding"])
"""Words after which a conjunction opens no clause but limits the one before it (``including
any data, but excluding the System Libraries``): the exception is that clause's."""
_MARKS = COMMA_BREAKS | {";", ","}
"""The words :func:`clauses` looks at: the others are only carried into the current clause."""


def clauses(found: list[Word], *, claim: bool) -> list[list[Word]]:
    """The clauses of one sentence's words: cut at a semicolon, before ``but``, and before a
    conjunction of :data:`COMMA_BREAKS` after a comma; a claim also before a plain conjunction
    of :data:`BREAK_WORDS` (so that a claim clause never needs two span clauses); never before
    a conjunction followed by an exception (:data:`EXCEPTIONS`). Commas and semicolons are
    dropped."""
    out: list[list[Word]] = []
    current: list[Word] = []
    comma = False
    done = 0
    # Only the marks are visited; the words between two are carried over as a slice.
    for at in [i for i, word in enumerate(found) if word.text in _MARKS]:
        if at > done:
            current += found[done:at]
            comma = False
        done = at + 1
        word = found[at]
        text = word.text
        if text in {";", ","}:
            if text == ";" and current:
                out.append(current)
                current = []
            comma = text == ","
            continue
        if (
            current
            and (comma or text == "but" or (claim and text in BREAK_WORDS))
            and not (at + 1 < len(found) and found[at + 1].text in EXCEPTIONS)
        ):
            out.append(current)
            current = []
        current.append(word)
        comma = False
    current += found[done:]
    if current:
        out.append(current)
    return out


LEAD_MARGIN = 3
"""Span words before the first matched word that belong to the first stretch."""
CONJUNCTIONS = frozenset(["and", "or", "but", "while", "whereas", "although", "though"])
SUBORDINATORS = frozenset(["because", "when"])
"""Words that open a subordinate clause: a claim clause that begins after one (``Demand was
weak.`` over ``The firm did not raise prices because demand was weak.``) does not take the
words before it as its leading stretch, as after a conjunction."""
LEAD_STOPS = CONJUNCTIONS | SUBORDINATORS


@dataclass(frozen=True, slots=True)
class SpanClause:
    """One clause of a span: its words, where each key occurs, and how many words that are
    not grammar come before each position (``content[i]``); ``shown`` remembers the text shown
    for a stretch of it (by its first and last matched position), as the clause is cached."""

    words: tuple[Word, ...]
    positions: dict[str, tuple[int, ...]]
    content: tuple[int, ...]
    shown: dict[tuple[int, int], str] = field(default_factory=dict, compare=False, repr=False)
    opening: SpanClause | None = field(default=None, compare=False, repr=False)
    """The first clause of the sentence, where it opens with a condition (``If A, B, and C``:
    the condition governs ``and C`` as well as ``B``); ``None`` for that clause itself and
    where the sentence opens with none."""
    commas: frozenset[int] = field(default=frozenset(), compare=False, repr=False)
    """The positions of the words a comma stands right before."""


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def span_clauses(text: str) -> tuple[SpanClause, ...]:
    """The clauses of a span text (sentences cut as a claim's are), each as its words."""
    out: list[SpanClause] = []
    for sentence in sentences(mask_cues(text)):
        opening: SpanClause | None = None
        tokens = words(sentence)
        # The clauses hold the tokens in order less the commas and semicolons: a word's flag
        # is taken by its place in that sequence (equal words are one cached object).
        after_comma = _after_comma(tokens)
        taken = 0
        for n, found in enumerate(_merged(clauses(tokens, claim=False))):
            positions: dict[str, list[int]] = {}
            for i, word in enumerate(found):
                positions.setdefault(word.key, []).append(i)
            content = [0]
            for word in found:
                content.append(content[-1] + (word.text not in GRAMMAR))
            clause = SpanClause(
                tuple(found),
                {k: tuple(v) for k, v in positions.items()},
                tuple(content),
                opening=opening,
                commas=frozenset(i for i in range(len(found)) if after_comma[taken + i])
                if any(after_comma)
                else frozenset(),
            )
            taken += len(found)
            if n == 0 and found[0].text in CONDITIONS:
                # A condition opening the sentence governs each of its clauses.
                opening = clause
            out.append(clause)
    return tuple(out)


FRONTED = word_set(
    """
    despite although though while whereas after before because since when once unlike
    following given having as
    """
)
"""Words that open a fronted adverbial phrase or clause (``Despite not meeting its goal,
...``): its first comma ends it."""
PARENTHETICALS = frozenset(["which", "who", "whom", "whose", "where", "not"])
"""Words that open a phrase set off by commas that says something of its own (``The company,
which has never paid a dividend, reported ...``; ``The board, not the CEO, approved ...``)."""


def _fronted_end(span: SpanClause) -> int:
    """The position of the first word after the fronted phrase that opens the span clause
    (:data:`FRONTED`, up to its first comma), or 0: a leading stretch after it does not reach
    into it (``The campaign raised $2 million.`` over ``Despite not meeting its goal, the
    campaign raised $2 million.``)."""
    if not span.commas or span.words[0].text not in FRONTED:
        return 0
    return min(span.commas)


_LIMITING = CONDITIONS | word_set("except excluding until till")


def parenthetical(span: SpanClause, start: int, end: int) -> tuple[int, int] | None:
    """The first phrase set off by commas strictly between span positions ``start`` and
    ``end`` that opens with a word of :data:`PARENTHETICALS` and holds no condition,
    exception or end (``, which if not utilized, begin to expire``: the condition reaches past
    the comma), as ``(first, after)`` positions, or ``None``."""
    commas = span.commas
    if len(commas) < 2:
        return None
    for a in sorted(commas):
        if start < a < end and span.words[a].text in PARENTHETICALS:
            after = min((b for b in commas if a < b <= end), default=None)
            if after is not None and not any(w.text in _LIMITING for w in span.words[a:after]):
                return a, after
    return None


def asides(span: SpanClause) -> list[tuple[int, int]]:
    """Every phrase of the span clause that :func:`parenthetical` finds, in order, as
    ``(first, after)`` positions."""
    out: list[tuple[int, int]] = []
    start = -1
    while (aside := parenthetical(span, start, len(span.words))) is not None:
        out.append(aside)
        start = aside[0]
    return out


def _after_comma(tokens: list[Word]) -> list[bool]:
    """For each token of a sentence that is not a comma or semicolon, in order, whether a
    comma stands right before it."""
    out: list[bool] = []
    comma = False
    for token in tokens:
        if token.text in {",", ";"}:
            comma = token.text == ","
            continue
        out.append(comma)
        comma = False
    return out


def claim_clauses(text: str) -> list[list[Word]]:
    """The clauses of a claim, each as its words (``sentence``: the claim sentence)."""
    out: list[list[Word]] = []
    for n, sentence in enumerate(sentences(mask_cues(text))):
        tokens = words(sentence, n)
        if not PERMISSIONS.isdisjoint([w.text for w in tokens]):
            permissions(tokens)
        found = clauses(tokens, claim=True)
        out += _merged(found) if len(found) > 1 else found
    return out


def _merged(found: list[list[Word]]) -> list[list[Word]]:
    """The clauses of one sentence, each that has no word taking part in the alignment joined
    to the clause before it (the first to the one after): ``and so did they`` matches nothing
    by itself, but as the end of ``Prices rose`` its words are compared with the span's
    (``and so did they not``)."""
    for clause in found:
        for word in clause:
            if word.item:
                break
        else:
            break
    else:
        return found
    out: list[list[Word]] = []
    held: list[Word] = []
    for clause in found:
        if any(w.item for w in clause):
            out.append(held + clause)
            held = []
        elif out:
            out[-1] = out[-1] + clause
        else:
            held += clause
    if held:
        out.append(held)
    return out


def lead_start(span: SpanClause, first: int) -> int:
    """Where the leading stretch of a match starting at span word ``first`` begins: up to
    :data:`LEAD_MARGIN` words that are not grammar back (``she's not here`` keeps ``not``),
    never past a conjunction (a claim clause may begin at a span's ``and``) or a word that
    opens a subordinate clause (:data:`SUBORDINATORS`)."""
    at, seen = first, 0
    floor = _fronted_end(span)
    if floor > first:
        floor = 0
    while at > floor and seen < LEAD_MARGIN and span.words[at - 1].text not in LEAD_STOPS:
        at -= 1
        if span.words[at].text not in GRAMMAR:
            seen += 1
    return at
