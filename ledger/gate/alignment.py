"""Alignment: each clause of a claim is laid over one support span, word by word, in order.

A claim is cut into clauses (sentences, then at ``;`` and at ``, and``/``, but``/``, while``
...). Each clause is aligned to the support span that takes most of its words: its words
(:mod:`ledger.gate._aligned_words`; grammar words are free) are matched to span words with the
same key by the longest common subsequence, so the match is monotone, as an extractive claim
is, and a word whose only match is out of order (``the buyer pays the seller`` over ``the seller
pays the buyer``) stays unmatched. What lies between two matched words is compared on both
sides, and only there (a ``not`` elsewhere in the span does not count). The first stretch is
the claim's words before its first match over up to three span words that are not grammar
before it (never past a conjunction, ``No down payment is ...``) or as far back as the
claim's own first words reach; the last is the claim's words after its last match over the
span words they reach (``warned him to do`` over ``warned him not to do``), and a negation
that ends the span clause there (``but apparently`` over ``but apparently not``):

- a negation on one side of a stretch and not on the other, or a matched pair of which one
  word negates (``not``) and the other does not -> ``negation_mismatch``;
- a hedge in the span's stretch of an unhedged claim, or a span word there governing the next
  matched word as an infinitive (``tried to approve`` under ``approved``) ->
  ``hedge_mismatch``;
- a claim word whose opposite stands in the span's stretch -> ``direction_mismatch`` (a
  direction axis of the polarity cues) or ``antonym_mismatch`` (WordNet, the curated list);
- a claim anchor (number, number word, ordinal, quarter or half, month, year, scale word,
  unit) where the span's stretch has another anchor of the same role, or a gendered pronoun
  where it has the other gender (``she approved`` over ``he approved``), or a bound on the
  next matched figure or a part that the claim drops (``200 staff`` over ``over 200 staff``;
  ``sold its stake`` over ``sold half its stake``) -> ``anchor_misaligned``;
- a claim word (not grammar, not a hedge; a gendered pronoun too: who ``she`` is, a span
  without one does not say) left unmatched -> ``support_unaligned``: the claim is not
  verified, whatever else holds.

A clause that no text span takes whole may instead be found in one cited table cell, as a set
of words (an envelope is a layout, not a sentence); its figures are then the anchors check's.
The matching itself is :mod:`ledger.gate._matching`, how far the first and last stretches
reach :mod:`ledger.gate._reach`, the comparison of a stretch :mod:`ledger.gate._stretches`
and the qualifiers of the word after it :mod:`ledger.gate._qualifiers`; ``docs/gate.md``
("Alignment") has an example of every rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ledger.gate._aligned_words import (
    HEDGED,
    MODALS,
    PLAIN,
    PLANNED,
    Kind,
    Word,
)
from ledger.gate._around import dropped_bound_after, dropped_part_of_year
from ledger.gate._matching import (
    TIME,
    SpanClause,
    claim_clauses,
    lead_start,
    match,
    moved,
    parenthetical,
    span_clauses,
)
from ledger.gate._measure import measure_narrowed
from ledger.gate._qualifiers import anchor_misaligned, polarity_failure
from ledger.gate._reach import leading, trailing
from ledger.gate._reading import SPAN_CACHE_SIZE
from ledger.gate._scope import Taken, narrowed, note_taken
from ledger.gate._stretches import stretch_conflict
from ledger.gate.model import CheckResult, Outcome

_MAX_LISTED = 12
_FIGURE_KINDS = frozenset({Kind.NUMBER, Kind.SCALE, Kind.UNIT})


@dataclass(frozen=True, slots=True)
class ClaimAlignment:
    """What the alignment found: a polarity result, the support result (``None`` when the
    claim has no word that must align) and an anchor substitution, if any."""

    polarity: CheckResult
    support: CheckResult | None
    anchor: CheckResult | None


def _shown(span: SpanClause, pairs: list[tuple[int, int]]) -> str:
    """The span text a clause aligns to, for people: from its leading stretch to its end
    (worked out once per span clause and stretch)."""
    where = (pairs[0][1], pairs[-1][1])
    text = span.shown.get(where)
    if text is None:
        first = lead_start(span, where[0])
        text = span.shown[where] = " ".join(w.text for w in span.words[first : where[1] + 1])
    return text


class _Shown:
    """:func:`_shown`, worked out only when a detail needs it."""

    __slots__ = ("pairs", "span")

    def __init__(self, span: SpanClause, pairs: list[tuple[int, int]]) -> None:
        self.span, self.pairs = span, pairs

    def __repr__(self) -> str:
        return repr(_shown(self.span, self.pairs))


def _conflict(
    clause: list[Word],
    span: SpanClause,
    pairs: list[tuple[int, int]],
    moved: set[int],
    *,
    floor: int = -1,
    governed: Word | None = None,
) -> CheckResult | None:
    """The first disagreement at the aligned positions, or ``None``: at each matched pair,
    then in each stretch between two (see :func:`ledger.gate._stretches.stretch_conflict`).
    The leading stretch is the claim's words before its first match and the span's leading
    margin
    (:func:`lead_start`); the span's trailing stretch is empty (what follows the last match
    is not what the claim says). Words of a moved time phrase are left out."""
    shown = _Shown(span, pairs)
    found = span.words
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
        part = dropped_part_of_year(clause, c, found, s)
        if part is not None:
            return anchor_misaligned(
                f"the span dates the figure to part of the year ({part.text!r} {theirs.text!r}) "
                f"where the claim dates it to the year ({mine.text!r}); span text: {shown!r}"
            )
        after = dropped_bound_after(clause, c, found, s)
        if after is not None:
            return anchor_misaligned(
                f"the span bounds the figure ({theirs.text!r} {' '.join(after)!r}) where the "
                f"claim states it exactly ({mine.text!r}); span text: {shown!r}"
            )
        if mine.negation != theirs.negation or (
            mine.key == "only"
            and s > 0
            and found[s - 1].text == "notonly"
            and (c == 0 or clause[c - 1].text != "notonly")
        ):
            not_only = s > 0 and found[s - 1].text == "notonly"
            has, lacks = ("claim", "span") if mine.negation else ("span", "claim")
            return polarity_failure(
                "negation_mismatch",
                f"the {has} is negated where the {lacks} is not: {mine.text!r} over "
                f"{'not ' if not_only else ''}{theirs.text!r}; span text: {shown!r}",
            )
    # The claim is hedged by a hedge of its own, not one it shares with the span at a matched
    # pair (``will rise`` does not cover the ``probably`` of ``will probably rise``) nor one
    # the span clause writes too, matched or not (the ``whether`` of ``if you distribute
    # copies, whether gratis or for a fee, you must ...`` does not cover its ``if``); a modal
    # of its own covers only the span's modals (``would sell`` over ``will sell``, but not
    # ``will increase`` over ``may increase``): see HEDGED.
    hedged = PLAIN
    for i, w in enumerate(clause):
        if w.hedge and i not in shared and not _written(w.text, found):
            if w.text not in MODALS:
                hedged = HEDGED
                break
            hedged = PLANNED
    first_c, first_s = pairs[0]
    head = (
        [w for i, w in enumerate(clause[:first_c]) if i not in moved] if moved else clause[:first_c]
    )
    lead = leading(head, span, first_s, moved, floor, governed)
    result = stretch_conflict(head, lead, clause[first_c], found[first_s], hedged, shown)
    for c1, s1, c2, s2 in gaps:
        if result is not None:
            return result
        result = stretch_conflict(
            clause[c1 + 1 : c2],
            _said(clause, span, c1, s1, c2, s2),
            clause[c2],
            found[s2],
            hedged,
            shown,
        )
    if result is not None:
        return result
    last_c, last_s = pairs[-1]
    tail = (
        [w for i, w in enumerate(clause[last_c + 1 :], last_c + 1) if i not in moved]
        if moved
        else clause[last_c + 1 :]
    )
    if not tail and last_s + 1 == len(found):
        return None
    return stretch_conflict(tail, trailing(tail, span, last_s, moved), None, None, hedged, shown)


def _written(text: str, found: Sequence[Word]) -> bool:
    """Whether the span clause writes the word ``text`` (a hedge the claim repeats)."""
    return any(w.text == text for w in found)


def _said(
    clause: list[Word], span: SpanClause, c1: int, s1: int, c2: int, s2: int
) -> Sequence[Word]:
    """The span words of the stretch between two matches, less a phrase set off by commas
    that the claim leaves out whole, not a word of it in the claim's stretch
    (:func:`ledger.gate._matching.parenthetical`): its negation is its own (``The company
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


@dataclass(slots=True)
class _Match:
    """The best match of one clause so far: its score (words that must align and do), its
    spread in the span clause, its pairs, the pairs of a moved time phrase, the span clause."""

    score: int
    spread: int
    pairs: list[tuple[int, int]]
    moved: list[tuple[int, int]]
    piece: SpanClause


def _best_match(
    clause: list[Word], pieces: list[SpanClause], floors: dict[int, int], must: int
) -> _Match | None:
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
    best: _Match | None = None
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
            best = _Match(score, spread, pairs, shifted, piece)
    return best


def _cell_match(clause: list[Word], cells: list[frozenset[str]]) -> tuple[int, list[int]]:
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
def _cell_keys(text: str) -> frozenset[str]:
    """The keys of every word of a cell's text and envelope."""
    return frozenset(w.key for piece in span_clauses(text) for w in piece.words)


# Over 60 lines on purpose: one pass over the claim's clauses that carries the alignment's
# state (per-sentence floors, the first conflict, the worst clause, the words missing) from
# clause to clause; split, the pieces would hand all of it back and forth.
def align_claim(
    claim: str,
    evidence: Sequence[str],
    threshold: float = 1.0,
    cells: Sequence[str] = (),
) -> ClaimAlignment:
    """Align every clause of ``claim`` to its best span clause among ``evidence`` and judge
    it there.

    The polarity result passes ``polarity_agrees``, fails as the module docstring says, or
    skips ``no_matching_sentence`` when no clause matches a word of any span. The support
    result passes ``support_aligned`` when, in every clause, the share of words that must
    align and do reaches ``threshold``, and fails ``support_unaligned`` otherwise.

    ``cells`` are the evidence texts of table cells (text and envelope): a clause that no
    text span takes whole is matched against each cell as a set of words
    (:func:`_cell_match`).
    """
    pieces = [piece for text in evidence for piece in span_clauses(text)]
    cell_keys = [_cell_keys(text) for text in cells]
    polarity: CheckResult | None = None
    anchor: CheckResult | None = None
    taken: dict[int, Taken] = {}
    wanted = aligned = 0
    worst = 1.0
    missing: list[str] = []
    shown: _Shown | None = None
    floors: dict[int, int] = {}
    sentence = -1
    for clause in claim_clauses(claim):
        if clause[0].sentence != sentence:
            # Clauses of one claim sentence follow each other in a span clause they share.
            sentence, floors = clause[0].sentence, {}
        must = sum([w.must for w in clause])
        wanted += must
        best = _best_match(clause, pieces, floors, must)
        if cell_keys and (best is None or best.score < must):
            _, absent = _cell_match(clause, cell_keys)
            if not absent:
                aligned += must
                shown = shown or _Shown(span_clauses(cells[0])[0], [(0, 0)])
                continue
        if best is None:
            if must:
                worst = 0.0
                missing += [w.text for w in clause if w.must]
            continue
        # A span clause an earlier clause of this claim sentence took: what opens it is that
        # clause's.
        piece_id = id(best.piece)
        floor = floors.get(piece_id, -1)
        floors[piece_id] = best.pairs[-1][1]
        aligned += best.score
        if must:
            worst = min(worst, best.score / must)
        moved_keys: set[int] = set()
        if best.moved:
            moved_keys = {c for c, _ in best.moved} | {-s - 1 for _, s in best.moved}
        if best.score < must:
            matched = {c for c, _ in best.pairs} | {c for c, _ in best.moved}
            missing += [w.text for i, w in enumerate(clause) if w.must and i not in matched]
        shown = shown or _Shown(best.piece, best.pairs)
        conflict = _conflict(
            clause,
            best.piece,
            best.pairs,
            moved_keys,
            floor=floor,
            governed=_governing(best.piece, floor, floors),
        )
        if conflict is not None and conflict.check == "anchors":
            anchor = anchor or conflict
        elif conflict is not None:
            polarity = polarity or conflict
        note_taken(taken, best.piece, clause, best.pairs, moved_keys)
    support = _support(wanted, aligned, worst, missing, threshold) if wanted else None
    if polarity is None and (support is None or support.outcome is Outcome.PASS):
        support = narrowed(taken) or measure_narrowed(taken) or support
    return ClaimAlignment(polarity or _agrees(shown), support, anchor)


def _governing(piece: SpanClause, floor: int, floors: dict[int, int]) -> Word | None:
    """The condition opening the sentence of ``piece`` in an earlier span clause (``If A, B,
    and C``), when the clause now matched opens ``piece`` (``floor`` below 0) and no clause of
    the claim sentence took that earlier one (``floors``): the claim drops it."""
    opening = piece.opening
    if opening is None or floor >= 0 or id(opening) in floors:
        return None
    return opening.words[0]


_NOTHING_ALIGNED = CheckResult(
    "polarity",
    Outcome.SKIP,
    "no_matching_sentence",
    "no word of the claim aligns to a support span",
)


def _agrees(shown: _Shown | None) -> CheckResult:
    """Pass ``polarity_agrees``, or skip ``no_matching_sentence`` when nothing aligned."""
    if shown is None:
        return _NOTHING_ALIGNED
    return _agrees_at(repr(shown))


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def _agrees_at(shown: str) -> CheckResult:
    """The passing polarity result for the span text a claim aligns to: it depends on that
    text only, and results are immutable, so each is built once."""
    return CheckResult(
        "polarity",
        Outcome.PASS,
        "polarity_agrees",
        f"negation, hedging and direction agree where the claim aligns: {shown}",
    )


def _support(
    wanted: int, aligned: int, worst: float, missing: list[str], threshold: float
) -> CheckResult:
    """Pass ``support_aligned`` or fail ``support_unaligned`` (see :func:`align_claim`)."""
    if worst >= threshold:
        detail = f"{aligned} of {wanted} claim words align in order to the spans"
        return CheckResult(
            "support",
            Outcome.PASS,
            "support_aligned",
            detail + (f"; not aligned: {_listed(missing)}" if missing else ""),
        )
    listed = _listed(missing)
    return CheckResult(
        "support",
        Outcome.FAIL,
        "support_unaligned",
        f"{aligned} of {wanted} claim words align in order to the spans (least share in a "
        f"clause {worst:.2f} < {threshold:.2f}); not aligned: {listed}",
    )


def _listed(missing: list[str]) -> str:
    """The words not aligned, as a detail lists them (at most :data:`_MAX_LISTED`)."""
    return ", ".join(missing[:_MAX_LISTED]) + (" ..." if len(missing) > _MAX_LISTED else "")
