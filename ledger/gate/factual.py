"""Judging a factual claim by alignment: each clause laid over one support span, in order.

A claim is cut into clauses (:mod:`ledger.gate.alignment.clauses`); each is matched to the
span clause that takes most of its words, in order (:mod:`ledger.gate.alignment.matching`),
so that a word whose only match is out of order (``the buyer pays the seller`` over ``the
seller pays the buyer``) stays unmatched. What lies between matched words is compared on both
sides, and only there (:mod:`ledger.gate.polarity.aligned`): a ``not`` elsewhere in the span
does not count. Then what the claim's clauses took of each span clause is read for what they
leave out (:mod:`ledger.gate.narrowing.scope`, :mod:`ledger.gate.narrowing.measure`).

The result (:class:`ClaimAlignment`) gives the polarity check's result, the support check's
(``support_aligned``, or ``support_unaligned`` for a claim word, not grammar nor a hedge,
left unmatched; ``support_scope_narrowed``) and an anchor of the same role with another
value (``anchor_misaligned``). A clause that no text span takes whole may instead be found
in one cited table cell, as a set of words (an envelope is a layout, not a sentence); its
figures are then the anchors check's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ledger.gate.alignment.clauses import SpanClause, claim_clauses, span_clauses
from ledger.gate.alignment.matching import best_match, cell_keys, cell_match
from ledger.gate.alignment.words import Word
from ledger.gate.anchors.reading import SPAN_CACHE_SIZE
from ledger.gate.model import CheckResult, Outcome
from ledger.gate.narrowing.measure import measure_narrowed
from ledger.gate.narrowing.scope import Taken, narrowed, note_taken
from ledger.gate.polarity.aligned import Shown, clause_conflict

_MAX_LISTED = 12


@dataclass(frozen=True, slots=True)
class ClaimAlignment:
    """What the alignment found: a polarity result, the support result (``None`` when the
    claim has no word that must align) and an anchor substitution, if any."""

    polarity: CheckResult
    support: CheckResult | None
    anchor: CheckResult | None


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
    (:func:`cell_match`).
    """
    pieces = [piece for text in evidence for piece in span_clauses(text)]
    cell_keys = [cell_keys(text) for text in cells]
    polarity: CheckResult | None = None
    anchor: CheckResult | None = None
    taken: dict[int, Taken] = {}
    wanted = aligned = 0
    worst = 1.0
    missing: list[str] = []
    shown: Shown | None = None
    floors: dict[int, int] = {}
    sentence = -1
    for clause in claim_clauses(claim):
        if clause[0].sentence != sentence:
            # Clauses of one claim sentence follow each other in a span clause they share.
            sentence, floors = clause[0].sentence, {}
        must = sum([w.must for w in clause])
        wanted += must
        best = best_match(clause, pieces, floors, must)
        if cell_keys and (best is None or best.score < must):
            _, absent = cell_match(clause, cell_keys)
            if not absent:
                aligned += must
                shown = shown or Shown(span_clauses(cells[0])[0], [(0, 0)])
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
        shown = shown or Shown(best.piece, best.pairs)
        conflict = clause_conflict(
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


def _agrees(shown: Shown | None) -> CheckResult:
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
