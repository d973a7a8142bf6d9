"""Matching a claim clause to a span clause: the words in order, as an extractive claim has them.

A span text is cut into clauses once (cached); a claim clause is matched to one of them by
the longest common subsequence of word keys (:mod:`ledger.gate._aligned_words`), greedily
when the clause is extractive, then moved as early and close together as order allows, less
words the span separates from their claim neighbour by more than one other word; a time
phrase may move from one end of the clause to the other. :mod:`ledger.gate.alignment` judges
what the match leaves between matched words.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate

from ledger.gate._aligned_words import CONDITIONS, GRAMMAR, Kind, Word, mask_cues, words
from ledger.gate._aligned_words import clauses as cut_clauses
from ledger.gate._reading import SPAN_CACHE_SIZE
from ledger.gate._words import sentences, word_set

LEAD_MARGIN = 3
"""Span words before the first matched word that belong to the first stretch."""
MAX_INSERTED = 1
"""Words (not grammar) the span may insert between two words adjacent in the claim: one
modifier (``net revenue`` over ``net product revenue``)."""
CONJUNCTIONS = frozenset(["and", "or", "but", "while", "whereas", "although", "though"])
SUBORDINATORS = frozenset(["because", "when"])
"""Words that open a subordinate clause: a claim clause that begins after one (``Demand was
weak.`` over ``The firm did not raise prices because demand was weak.``) does not take the
words before it as its leading stretch, as after a conjunction."""
LEAD_STOPS = CONJUNCTIONS | SUBORDINATORS
TIME = frozenset({Kind.YEAR, Kind.PERIOD, Kind.MONTH})


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
        for n, found in enumerate(_merged(cut_clauses(tokens, claim=False))):
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
        found = cut_clauses(words(sentence, n), claim=True)
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


def match(
    clause: list[Word],
    span: SpanClause,
    floor: int = -1,
    candidates: list[tuple[int, Word]] | None = None,
) -> list[tuple[int, int]]:
    """The (claim index, span index) pairs of a longest common subsequence of keys, counting
    words that must align twice as much as the others (hedges), among the span words after
    ``floor``; ``candidates``: the clause's words that are items, with their indices, when
    the caller already has them (a clause is matched against several span clauses)."""
    positions = span.positions
    if candidates is None:
        candidates = [(i, w) for i, w in enumerate(clause) if w.item]
    items = [(i, w) for i, w in candidates if w.key in positions]
    if not items:
        return []
    # An extractive clause finds its words in order: matching each at its earliest place after
    # the previous match then matches every word that can match at all, which no longest
    # common subsequence beats; the table below is only built when that fails.
    greedy = _greedy(items, positions, floor)
    if len(greedy) == len(items):
        return _adjacent(clause, span, _pull_first(clause, span, greedy))
    # A time phrase moved to the other end (``... in Q3 2023`` over ``In Q3 2023, ...``) is
    # tried the same way before the table: the rest of the clause in order (see moved). The
    # clause less the time words that end it is a start of the items, so its greedy match is
    # the start of the one above, when that reached so far.
    rest = _without_time(items)
    if rest and len(rest) <= len(greedy):
        return _adjacent(clause, span, _pull_first(clause, span, greedy[: len(rest)]))
    rest = _without_time(items[::-1])[::-1]
    if rest and len(rest) < len(items):
        greedy = _greedy(rest, positions, floor)
        if len(greedy) == len(rest):
            return _adjacent(clause, span, _pull_first(clause, span, greedy))
    cols = sorted({p for _, w in items for p in positions[w.key] if p > floor})
    if not cols:
        return []
    column = {position: c for c, position in enumerate(cols, 1)}
    table = [[0] * (len(cols) + 1)]
    for _, word in items:
        weight = 2 if word.must else 1
        above = table[-1]
        row = list(above)
        for position in positions[word.key]:
            c = column.get(position)
            if c is not None and above[c - 1] + weight > row[c]:
                row[c] = above[c - 1] + weight
        # Only a match raises a cell; every other cell carries the best to its left.
        table.append(list(accumulate(row, max)))
    pairs: list[tuple[int, int]] = []
    r, c = len(items), len(cols)
    while r and c:
        word = items[r - 1][1]
        weight = 2 if word.must else 1
        if span.words[cols[c - 1]].key == word.key and table[r][c] == table[r - 1][c - 1] + weight:
            pairs.append((items[r - 1][0], cols[c - 1]))
            r -= 1
            c -= 1
        elif table[r - 1][c] >= table[r][c - 1]:
            r -= 1
        else:
            c -= 1
    pairs.reverse()
    return _adjacent(clause, span, _compact(clause, span, pairs, floor))


def _greedy(
    items: list[tuple[int, Word]], positions: dict[str, tuple[int, ...]], floor: int
) -> list[tuple[int, int]]:
    """Each item matched at its key's earliest position after the previous match, up to the
    first that cannot be: a pair for every item when each can."""
    pairs: list[tuple[int, int]] = []
    append = pairs.append
    after = floor
    for i, word in items:
        places = positions[word.key]
        # The last place is the one to test: no place after ``after`` when it is not after.
        if places[-1] <= after:
            break
        after = places[bisect_right(places, after)]
        append((i, after))
    return pairs


def _without_time(items: list[tuple[int, Word]]) -> list[tuple[int, Word]]:
    """``items`` less the years, quarters and months that end them."""
    end = len(items)
    while end and items[end - 1][1].kind in TIME:
        end -= 1
    return items[:end]


def _compact(
    clause: list[Word], span: SpanClause, pairs: list[tuple[int, int]], floor: int
) -> list[tuple[int, int]]:
    """The same matches moved as early and as close together as order allows: the first to
    its key's earliest position after ``floor``, each next one to its key's earliest position
    after the previous match, then the first to its latest position before the second. Of
    equally long matches, the longest common subsequence leaves repeated words (``love Tintin
    ... love Tintin``) wherever it reaches them first; the stretches between matches should
    hold only what the claim skips, and a later clause of the claim needs the span words after
    this one."""
    out = list(pairs)
    for i in range(len(out)):
        c, s = out[i]
        after = out[i - 1][1] if i else floor
        for position in span.positions[clause[c].key]:
            if after < position:
                out[i] = (c, min(position, s))
                break
    return _pull_first(clause, span, out)


def _pull_first(
    clause: list[Word], span: SpanClause, pairs: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The matches with the first moved to its key's latest position before the second."""
    if len(pairs) > 1:
        c, s = pairs[0]
        places = span.positions[clause[c].key]
        at = bisect_left(places, pairs[1][1])
        if places[at - 1] > s:
            pairs[0] = (c, places[at - 1])
    return pairs


def _adjacent(
    clause: list[Word], span: SpanClause, pairs: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The matches less each word that follows its neighbour directly in the claim but comes
    more than :data:`MAX_INSERTED` words that are not grammar after it in the span: ``term
    insurance`` is not said by ``term and whole life insurance``."""
    # Span positions that grow by one at each pair but at most MAX_INSERTED more in all leave
    # no word to drop: no two neighbours have more than that between them.
    if len(pairs) < 2 or pairs[-1][1] - pairs[0][1] - (len(pairs) - 1) <= MAX_INSERTED:
        return pairs
    out = pairs[:1]
    content = span.content
    for c, s in pairs[1:]:
        c0, s0 = out[-1]
        inserted = content[s] - content[s0 + 1]
        aside = parenthetical(span, s0, s) if span.commas and inserted else None
        if aside is not None:
            # A phrase set off by commas that the claim leaves out whole is no insertion.
            inserted -= content[aside[1]] - content[aside[0]]
        if c == c0 + 1 and (inserted > MAX_INSERTED or _figure_between(span, s0, s, aside)):
            continue
        if inserted > 1 and _bridges(clause, span, c0, s0, c, s):
            continue
        out.append((c, s))
    return out


def _figure_between(
    span: SpanClause, s0: int, s: int, aside: tuple[int, int] | None = None
) -> bool:
    """Whether a figure stands between two span positions: the one word a span may insert
    between neighbours of the claim is a modifier, not a count (``120 participants
    completed`` is not said by ``120 participants, of whom 80 completed``; a year may stand
    there: ``Revenue rose`` over ``Revenue in 2023 rose``)."""
    found = span.words
    skip = range(*aside) if aside is not None else range(0)
    return any(found[k].kind is Kind.NUMBER and k not in skip for k in range(s0 + 1, s))


def _bridges(clause: list[Word], span: SpanClause, c0: int, s0: int, c: int, s: int) -> bool:
    """Whether the span words between two matches hold a conjunction with words that are not
    grammar on both sides of it, and the claim's words between them none: the claim would
    join the start of one conjunct to the end of the next (``rejected by the board`` over
    ``rejected by the committee and later approved by the board``), where leaving out a
    conjunct whole is a summary (``Revenue rose`` over ``Revenue and profit rose``)."""
    found = span.words
    for k in range(s0 + 1, s):
        if found[k].text in CONJUNCTIONS:
            content = span.content
            if content[k] - content[s0 + 1] > 0 and content[s] - content[k + 1] > 0:
                return not any(clause[i].text in CONJUNCTIONS for i in range(c0 + 1, c))
    return False


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


def moved(
    clause: list[Word], span: SpanClause, pairs: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Pairs for a time phrase moved from one end of the clause to the other end of the span
    clause (``... in Q3 2023`` over ``In Q3 2023, ...``): the clause's unmatched words before
    its first match (after its last) that are, word for word without grammar, the span words
    after its last match (before its first), holding a year, quarter, half or month. Nothing
    else may move: a role swap (``from 2018 to 2019``) stays unmatched."""
    first_c, first_s = pairs[0]
    last_c, last_s = pairs[-1]
    for claim_part, span_part in (
        (range(last_c + 1, len(clause)), range(0, first_s)),
        (range(0, first_c), range(last_s + 1, len(span.words))),
    ):
        mine = [i for i in claim_part if clause[i].text not in GRAMMAR]
        if not mine:
            continue
        found = span.words
        theirs = [j for j in span_part if found[j].text not in GRAMMAR]
        if len(mine) == len(theirs) and _moves(clause, found, mine, theirs):
            return list(zip(mine, theirs, strict=True))
    return []


def _moves(clause: list[Word], found: tuple[Word, ...], mine: list[int], theirs: list[int]) -> bool:
    """Whether the claim words ``mine`` are, key for key, the span words ``theirs``, hold a
    year, quarter, half or month, and hold no negation or hedge (one loop, not three)."""
    timed = False
    for i, j in zip(mine, theirs, strict=True):
        word = clause[i]
        if word.key != found[j].key:
            return False
        if word.negation or word.hedge:
            return False
        if word.kind in TIME:
            timed = True
    return timed
