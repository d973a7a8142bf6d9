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
from dataclasses import dataclass, field
from functools import lru_cache

from ledger.gate.alignment.clauses import CONJUNCTIONS, SpanClause, claim_clauses, span_clauses
from ledger.gate.alignment.matching import best_match, cell_keys, cell_match
from ledger.gate.alignment.words import ANCHOR_KINDS, Word
from ledger.gate.anchors.reading import SPAN_CACHE_SIZE
from ledger.gate.model import CheckResult, Outcome
from ledger.gate.narrowing.measure import measure_narrowed
from ledger.gate.narrowing.scope import Taken, narrowed, note_taken
from ledger.gate.polarity.aligned import ClauseReading, Shown, clause_conflict

_MAX_LISTED = 12


@dataclass(frozen=True, slots=True)
class ClaimAlignment:
    """What the alignment found: a polarity result, the support result (``None`` when the
    claim has no word that must align) and an anchor substitution, if any."""

    polarity: CheckResult
    support: CheckResult | None
    anchor: CheckResult | None
    whole: bool = True
    """Whether every word of the claim that must align does, but for anchors (numbers,
    dates, units): an anchor the spans lack is then absent at its aligned place."""


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
    cell_words = [cell_keys(text) for text in cells]
    findings = _Findings()
    taken: dict[int, Taken] = {}
    shown: Shown | None = None
    floors: dict[int, int] = {}
    sentence = -1
    for clause in claim_clauses(claim):
        if clause[0].sentence != sentence:
            # Clauses of one claim sentence follow each other in a span clause they share.
            sentence, floors = clause[0].sentence, {}
        must = sum([w.must for w in clause])
        best = best_match(clause, pieces, floors, must)
        if cell_words and (best is None or best.score < must):
            _, absent = cell_match(clause, cell_words)
            if all(clause[i].kind in ANCHOR_KINDS for i in absent):
                # The cell holds every word of the clause but, at most, its dates: a date it
                # lacks is the anchors check's, absent where the claim aligns.
                findings.aligned(clause, must, must - len(absent), absent)
                shown = shown or Shown(span_clauses(cells[0])[0], [(0, 0)])
                continue
        if best is None:
            findings.aligned(clause, must, 0, [i for i, w in enumerate(clause) if w.must])
            continue
        # A span clause an earlier clause of this claim sentence took: what opens it is that
        # clause's.
        piece_id = id(best.piece)
        floor = floors.get(piece_id, -1)
        floors[piece_id] = best.pairs[-1][1]
        moved_keys: set[int] = set()
        if best.moved:
            moved_keys = {c for c, _ in best.moved} | {-s - 1 for _, s in best.moved}
        unmatched: list[int] = []
        if best.score < must:
            matched = {c for c, _ in best.pairs} | {c for c, _ in best.moved}
            unmatched = [i for i, w in enumerate(clause) if w.must and i not in matched]
        findings.aligned(clause, must, best.score, unmatched)
        shown = shown or Shown(best.piece, best.pairs)
        found = clause_conflict(
            clause,
            best.piece,
            best.pairs,
            moved_keys,
            floor=floor,
            governed=_governing(best.piece, floor, floors),
        )
        findings.note(found, unmatched, clause)
        note_taken(taken, best.piece, clause, best.pairs, moved_keys)
    support = findings.support(threshold)
    if not findings.contradicted() and (support is None or support.outcome is Outcome.PASS):
        support = findings.qualifier or narrowed(taken) or measure_narrowed(taken) or support
    polarity = findings.polarity or findings.unestablished or _agrees(shown)
    return ClaimAlignment(polarity, support, findings.anchor, findings.whole)


@dataclass(slots=True)
class _Findings:
    """What the clauses of a claim show, clause by clause: how many of their words that must
    align do (the least share in a clause, the words that do not); the first of each kind of
    disagreement: a contradiction of polarity or of an anchor's value, established where the
    rest of its clause aligns, one that is not, and a qualifier of the span the claim drops."""

    polarity: CheckResult | None = None
    anchor: CheckResult | None = None
    unestablished: CheckResult | None = None
    qualifier: CheckResult | None = None
    wanted: int = 0
    matched: int = 0
    worst: float = 1.0
    missing: list[str] = field(default_factory=list)
    whole: bool = True
    """Whether every word that must align does, but for anchors (:attr:`ClaimAlignment.whole`)."""
    joined: bool = False
    """Whether the clause before the one noted last, in the same claim sentence, aligned whole
    (what a conjunction opening this one joins it to)."""
    _sentence: int = -1
    _whole_before: bool = False

    def aligned(self, clause: list[Word], must: int, score: int, unmatched: list[int]) -> None:
        """Note how a clause aligned: ``score`` of its ``must`` words, less ``unmatched``."""
        sentence = clause[0].sentence
        self.joined = self._sentence == sentence and self._whole_before
        self._sentence, self._whole_before = sentence, score == must
        self.wanted += must
        self.matched += score
        if must:
            self.worst = min(self.worst, score / must)
        self.missing += [clause[i].text for i in unmatched]
        self.whole = self.whole and all(clause[i].kind in ANCHOR_KINDS for i in unmatched)

    def support(self, threshold: float) -> CheckResult | None:
        """Pass ``support_aligned`` or fail ``support_unaligned`` (see :func:`align_claim`);
        ``None`` for a claim without a word that must align."""
        if not self.wanted:
            return None
        listed = _listed(self.missing)
        if self.worst >= threshold:
            detail = f"{self.matched} of {self.wanted} claim words align in order to the spans"
            return CheckResult(
                "support",
                Outcome.PASS,
                "support_aligned",
                detail + (f"; not aligned: {listed}" if self.missing else ""),
            )
        return CheckResult(
            "support",
            Outcome.FAIL,
            "support_unaligned",
            f"{self.matched} of {self.wanted} claim words align in order to the spans (least "
            f"share in a clause {self.worst:.2f} < {threshold:.2f}); not aligned: {listed}",
        )

    def note(self, found: ClauseReading, unmatched: list[int], clause: list[Word]) -> None:
        """Note what one clause showed; ``unmatched``: its words that must align and do not."""
        conflict = found.conflict
        if conflict is None:
            pass
        elif not found.established(unmatched):
            # Other words of the clause do not align: the disagreement is not established.
            words = ", ".join(repr(clause[i].text) for i in unmatched[:_MAX_LISTED])
            self._unestablished(conflict.result, f"the claim does not align whole ({words})")
        elif 0 in found.culprits and clause[0].text in CONJUNCTIONS and not self.joined:
            # A conjunction joins this clause to the one before: where that one does not
            # align, what the conjunction joins is not what the span's joins.
            self._unestablished(conflict.result, "the clause it joins does not align")
        elif conflict.result.check == "anchors":
            self.anchor = self.anchor or conflict.result
        else:
            self.polarity = self.polarity or conflict.result
        self.qualifier = self.qualifier or found.qualifier

    def _unestablished(self, result: CheckResult, why: str) -> None:
        """Note a disagreement that is no contradiction: skip ``mismatch_unaligned`` (``result``
        says what it is); the claim is not verified, and not rejected either."""
        self.unestablished = self.unestablished or CheckResult(
            "polarity",
            Outcome.SKIP,
            "mismatch_unaligned",
            f"{result.reason} where {why}, so no contradiction is established: {result.detail}",
        )

    def contradicted(self) -> bool:
        """Whether a clause showed an established contradiction."""
        return self.polarity is not None or self.anchor is not None


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


def _listed(missing: list[str]) -> str:
    """The words not aligned, as a detail lists them (at most :data:`_MAX_LISTED`)."""
    return ", ".join(missing[:_MAX_LISTED]) + (" ..." if len(missing) > _MAX_LISTED else "")
