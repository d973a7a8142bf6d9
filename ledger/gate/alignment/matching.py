"""Matching a claim clause to a span clause: the words in order, as an extractive claim has them.

A span text is cut into clauses once (cached); a claim clause is matched to one of them by
the longest common subsequence of word keys (:mod:`ledger.gate.alignment.words`), greedily
when the clause is extractive, then moved as early and close together as order allows, less
words the span separates from their claim neighbour by more than one other word; a time
phrase may move from one end of the clause to the other. :mod:`ledger.gate.factual` judges
what the match leaves between matched words.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

from ledger.gate.alignment.clauses import CONJUNCTIONS, SpanClause, parenthetical, span_clauses
from ledger.gate.alignment.words import GRAMMAR, Kind, Word
from ledger.gate.anchors.reading import SPAN_CACHE_SIZE

MAX_INSERTED = 1
"""Words (not grammar) the span may insert between two words adjacent in the claim: one
modifier (``net revenue`` over ``net product revenue``)."""
TIME = frozenset({Kind.YEAR, Kind.PERIOD, Kind.MONTH})


_FIGURE_KINDS = frozenset({Kind.NUMBER, Kind.SCALE, Kind.UNIT})


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


@dataclass(slots=True)
class ClauseMatch:
    """The best match of one clause so far: its score (words that must align and do), its
    spread in the span clause, its pairs, the pairs of a moved time phrase, the span clause."""

    score: int
    spread: int
    pairs: list[tuple[int, int]]
    moved: list[tuple[int, int]]
    piece: SpanClause


def best_match(
    clause: list[Word], pieces: list[SpanClause], floors: dict[int, int], must: int
) -> ClauseMatch | None:
    """The span clause that matches most of the clause's words (``must`` of which must
    align), and how (fewest skipped span words among equals)."""
    items = [(i, w) for i, w in enumerate(clause) if w.item]
    keys = [w.key for _, w in items]
    timed: bool | None = None
    # A span clause can match no more of the clause's words than it holds: those holding most
    # are tried first (the earlier of equals), and one that cannot beat the best so far is not.
    bounds = sorted(
        [(-sum(map(piece.positions.__contains__, keys)), n) for n, piece in enumerate(pieces)]
    )
    best: ClauseMatch | None = None
    for bound, n in bounds:
        if bound == 0 or (best is not None and -bound < best.score):
            break
        piece = pieces[n]
        pairs = match(clause, piece, floors.get(id(piece), -1), items)
        if not pairs:
            continue
        score = 0
        for c, _ in pairs:
            score += clause[c].must
        if score < must and timed is None:
            timed = not TIME.isdisjoint([w.kind for w in clause])
        shifted = moved(clause, piece, pairs) if score < must and timed else []
        if shifted:
            score += sum([clause[c].must for c, _ in shifted])
        spread = pairs[-1][1] - pairs[0][1]
        # Of equal scores, the match that also aligns more of the other words (hedges) wins,
        # then the tighter one: ``and may be changed`` follows ``... may be mutable and may be
        # changed``, not ``... cannot change``.
        if best is None or (score, len(pairs), -spread) > (
            best.score,
            len(best.pairs),
            -best.spread,
        ):
            best = ClauseMatch(score, spread, pairs, shifted, piece)
    return best


def cell_match(clause: list[Word], cells: list[frozenset[str]]) -> tuple[int, list[int]]:
    """How many of the clause's words that must align one table cell holds (its text and
    envelope, in any order: an envelope is a layout, not a sentence), and which are missing
    from the cell that holds most. Figures, scale words and units are not looked for: the
    anchors check compares amounts by value with the table's scale."""
    wanted = [i for i, w in enumerate(clause) if w.must and w.kind not in _FIGURE_KINDS]
    best: tuple[int, list[int]] = (-1, wanted)
    for keys in cells:
        missing = [i for i in wanted if clause[i].key not in keys]
        if len(wanted) - len(missing) > best[0]:
            best = (len(wanted) - len(missing), missing)
    return best


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def cell_keys(text: str) -> frozenset[str]:
    """The keys of every word of a cell's text and envelope."""
    return frozenset(w.key for piece in span_clauses(text) for w in piece.words)


# Over 60 lines on purpose: one pass over the claim's clauses that carries the alignment's
# state (per-sentence floors, the first conflict, the worst clause, the words missing) from
