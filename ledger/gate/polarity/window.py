"""The polarity of a computational claim: its window of evidence must agree on negation,
hedging and direction.

A computational claim names figures of several cells in any order, so it is not aligned; its
cues are compared with one window of evidence: the support sentence that shares the most
content words with it, cut to the shortest stretch that holds every shared word, widened by
:data:`WINDOW_MARGIN` tokens on each side (an unrelated ``not`` elsewhere in a long span does
not count). Where they disagree, the claim is not verified, but a window is no alignment, so
the disagreement is not established as a contradiction: the check skips
``mismatch_unaligned`` (a computational claim is rejected by its arithmetic, never by its
window):

- negation: the claim has a negation cue and the window has none, or the reverse;
- hedging: the window is hedged and the claim is not (a hedged claim may cite a plain
  statement; a claim's ``will`` covers only a window's modal);
- direction: on some axis (rise/fall, profit/loss, win/lose, ...) the claim uses only one side
  and the window only the other.

A window of prose (a sentence, not a table cell's text and envelope) is read with the
alignment's cues too: its negations (``failed to``, ``excluding``, ``lack``), its hedges
(``would``, ``should``, ``believes``, ``until``) and an infinitive an intention governs
(``was set to rise``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.gate.anchors.reading import Reading, read_span, read_text
from ledger.gate.lexicon.cues import (
    ALIGNMENT_HEDGES,
    DIRECTIONS,
    HEDGED,
    HEDGES,
    MODALS,
    NEGATION_CUES,
    NEGATIONS,
    NEGATIVE_IMPLICATIVES,
    PLAIN,
    PLANNED,
)
from ledger.gate.lexicon.words import STOP_WORDS, stem, word_set
from ledger.gate.model import CheckResult, Outcome
from ledger.gate.polarity.governors import INTENTIONS

CHECK = "polarity"
WINDOW_MARGIN = 3
"""Tokens kept on each side of the matched stretch; covers ``did not`` before a verb."""


_NEGATIONS = NEGATION_CUES - {"non"}
"""The alignment's negation cues (``deny``, ``excluding``, ``lack``, ...) besides the polarity
cues; ``non`` is left out (a window reads ``non-GAAP`` as one token)."""
_HEDGES = HEDGES | MODALS | ALIGNMENT_HEDGES
"""The alignment's hedges besides the polarity cues: ``will``, ``would``, how often, doubt,
obligation, belief and ``until``."""
_GOVERNORS = INTENTIONS | word_set("set poised")
"""Words whose infinitive a window reads as not done (``was set to rise``, ``planned to
sell``): no preposition's head (``due to``) is among them."""


def _cues(words: Sequence[str], prose: bool = True) -> tuple[bool, int, set[tuple[str, int]]]:
    """Negation present, how far hedged, and the (axis, side) direction cues of ``words``.

    Against ``prose`` (a sentence, not a table cell's evidence) the negations, hedges and
    governed infinitives the alignment reads count too (``failed to rise``, ``was set to
    rise``, ``would have risen``, ``excluding acquisitions``); a cell's window reads its
    table's caption, whose ``excluding lease liabilities`` or ``should be read with`` says
    nothing of the figure."""
    directions = {DIRECTIONS[w] for w in words if w in DIRECTIONS}
    if not prose:
        hedged = PLAIN if HEDGES.isdisjoint(words) else HEDGED
        return not NEGATIONS.isdisjoint(words), hedged, directions
    negated = not _NEGATIONS.isdisjoint(words)
    hedges = {word for word in words if word in _HEDGES}
    hedged = PLAIN if not hedges else PLANNED if hedges <= MODALS else HEDGED
    if "to" in words:
        for i in range(1, len(words) - 1):
            if words[i] == "to" and words[i + 1].isalpha():
                negated = negated or words[i - 1] in NEGATIVE_IMPLICATIVES
                if words[i - 1] in _GOVERNORS:
                    hedged = HEDGED
    return negated, hedged, directions


def _best_window(claim_stems: set[str], evidence: Sequence[str]) -> tuple[list[str], int, bool]:
    """The evidence window that matches the claim best, how many claim stems it shares, and
    whether it is prose (a table cell's evidence, its text and envelope, holds a line break)."""
    best: list[str] = []
    best_score = 0
    prose = False
    for text in evidence:
        span = read_span(text)
        for words, stems in zip(span.sentence_tokens, span.sentence_stems, strict=True):
            score = len(claim_stems & stems)
            if score > best_score:
                hits = [
                    (i, s) for i, (_, s) in enumerate(words) if s is not None and s in claim_stems
                ]
                first, last = _shortest_cover(hits, score)
                start = max(0, first - WINDOW_MARGIN)
                best = [w for w, _ in words[start : last + WINDOW_MARGIN + 1]]
                best_score = score
                prose = "\n" not in text
    return best, best_score, prose


def _shortest_cover(hits: list[tuple[int, str]], wanted: int) -> tuple[int, int]:
    """First and last token index of the shortest run of ``hits`` holding ``wanted`` stems."""
    counts: dict[str, int] = {}
    best = (hits[0][0], hits[-1][0])
    left = 0
    for right, (_, right_stem) in enumerate(hits):
        counts[right_stem] = counts.get(right_stem, 0) + 1
        while len(counts) == wanted:
            if hits[right][0] - hits[left][0] < best[1] - best[0]:
                best = (hits[left][0], hits[right][0])
            left_stem = hits[left][1]
            counts[left_stem] -= 1
            if counts[left_stem] == 0:
                del counts[left_stem]
            left += 1
    return best


def check_polarity(claim: str | Reading, evidence: Sequence[str]) -> CheckResult:
    """Compare the negation, hedging and direction cues of a claim with its best window.

    Pass ``polarity_agrees``; skip ``mismatch_unaligned`` when negation, hedging or direction
    disagree, and ``no_matching_sentence`` when no support sentence shares a content word with
    the claim.
    """
    reading = read_text(claim) if isinstance(claim, str) else claim
    claim_words = reading.cue_tokens
    claim_stems = {stem(w) for w in claim_words if w not in STOP_WORDS}
    window, score, prose = _best_window(claim_stems, evidence)
    if score == 0:
        return CheckResult(
            CHECK,
            Outcome.SKIP,
            "no_matching_sentence",
            "no support sentence shares a content word with the claim",
        )
    c_neg, c_hedge, c_dirs = _cues(claim_words, prose)
    s_neg, s_hedge, s_dirs = _cues(window, prose)
    shown = " ".join(window)
    if c_neg != s_neg:
        has, lacks = ("the claim", "the span") if c_neg else ("the span", "the claim")
        return _unaligned(f"{has} is negated and {lacks} is not", shown)
    if s_hedge and not (c_hedge == HEDGED or c_hedge == s_hedge == PLANNED):
        return _unaligned("the span is hedged and the claim states it as fact", shown)
    for axis, side in sorted(c_dirs):
        if (axis, -side) in s_dirs and (axis, side) not in s_dirs and (axis, -side) not in c_dirs:
            said = [w for w in claim_words if DIRECTIONS.get(w) == (axis, side)]
            other = [w for w in window if DIRECTIONS.get(w) == (axis, -side)]
            return _unaligned(f"the claim says {said[0]!r} where the span says {other[0]!r}", shown)
    return CheckResult(
        CHECK,
        Outcome.PASS,
        "polarity_agrees",
        f"negation, hedging and direction agree with span text {shown!r}",
    )


def _unaligned(found: str, shown: str) -> CheckResult:
    """Skip ``mismatch_unaligned``: a disagreement in the window, which is no alignment, so it
    leaves the claim unverified without rejecting it."""
    return CheckResult(
        CHECK,
        Outcome.SKIP,
        "mismatch_unaligned",
        f"{found} in the window of the span that shares most words with the claim (a window "
        f"is no alignment: no contradiction is established); span text: {shown!r}",
    )
