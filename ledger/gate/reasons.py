"""Every reason code the gate can give, with its check, outcome and meaning.

Receipts carry these codes; a code is never renamed or reused for another meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledger.gate.model import Outcome


@dataclass(frozen=True, slots=True)
class Reason:
    """One documented reason code."""

    code: str
    check: str
    outcome: Outcome
    meaning: str


_P, _F, _S = Outcome.PASS, Outcome.FAIL, Outcome.SKIP

REASONS: dict[tuple[str, str], Reason] = {
    (r.check, r.code): r
    for r in (
        Reason("span_exists", "existence", _P, "the span resolves and is in the evidence pool"),
        Reason("span_unknown", "existence", _F, "the span id does not resolve in the registry"),
        Reason("span_not_in_pool", "existence", _F, "the span is not in the sealed pool"),
        Reason("version_in_force", "version", _P, "the source version was in force at as_of"),
        Reason("version_not_in_force", "version", _F, "the version was not in force at as_of"),
        Reason("source_withdrawn", "version", _F, "the span's source is withdrawn"),
        Reason("span_unknown", "version", _S, "no span, so no version to check"),
        Reason("quote_exact", "quote", _P, "the quote is the whole span (normalised)"),
        Reason("quote_contiguous", "quote", _P, "the quote is a contiguous part of the span"),
        Reason("quote_mismatch", "quote", _F, "the quote does not occur in the span"),
        Reason("quote_empty", "quote", _F, "the quote is empty"),
        Reason("anchors_present", "anchors", _P, "every anchor of the claim is in the spans"),
        Reason("anchor_missing", "anchors", _F, "a number, date, identifier, URL or quoted string "
               "of the claim is not in the spans"),
        Reason("anchor_misaligned", "anchors", _F, "a number, number word, ordinal, quarter or "
               "half, month, year, scale word, unit or gendered pronoun of the claim stands "
               "where the span has another of the same role, in a clause that otherwise "
               "aligns (receipts before 2026-12-04 also give it for a bound on a figure the "
               "claim drops: now support_qualifier_dropped)"),
        Reason("anchor_unaligned", "anchors", _S, "an anchor of the claim is in no span, where "
               "the claim does not align around it (or is computational): no contradiction is "
               "established, and the claim is not verified"),
        Reason("no_anchors", "anchors", _S, "the claim has no anchors"),
        Reason("polarity_agrees", "polarity", _P, "negation, hedging and direction agree"),
        Reason("negation_mismatch", "polarity", _F, "one side is negated, the other is not"),
        Reason("hedge_mismatch", "polarity", _F, "a hedged span cited for an unhedged claim "
               "(a plan, condition or attempt stated as done)"),
        Reason("direction_mismatch", "polarity", _F, "the claim and span go opposite ways"),
        Reason("antonym_mismatch", "polarity", _F, "a claim word stands where the span has "
               "its antonym (WordNet or the curated list)"),
        Reason("mismatch_unaligned", "polarity", _S, "negation, hedging, an opposite or an "
               "anchor's value differ where the claim does not align whole, or in a "
               "computational claim's window: no contradiction is established, and the claim "
               "is not verified"),
        Reason("no_matching_sentence", "polarity", _S, "no span sentence shares a content word"),
        Reason("recomputed", "computation", _P, "a formula over the cited figures gives the "
               "claimed result"),
        Reason("recompute_mismatch", "computation", _F, "the named operation over exactly two "
               "cited figures gives a different result"),
        Reason("not_computational", "computation", _S, "the claim is not computational"),
        Reason("unparseable", "computation", _S, "the claim states no figure"),
        Reason("no_operands", "computation", _S, "the support spans contain no figures"),
        Reason("not_reproduced", "computation", _S, "no formula reproduces the claimed result "
               "and the operation or operands are ambiguous"),
        Reason("sign_ambiguous", "computation", _S, "the result holds for only one reading of a "
               "bracketed figure (negative or positive), and the bracket convention does not "
               "settle it"),
        Reason("unit_mismatch", "computation", _F, "the cited figures give the claimed change "
               "in another unit (percentage points, basis points or relative percent)"),
        Reason("sign_conflict", "computation", _S, "a downward direction word with a negative "
               "figure (a double negative: decreased by -45)"),
        Reason("support_sufficient", "support", _P, "enough content words are in the spans"),
        Reason("support_verbatim", "support", _P, "a claim without content words is the text "
               "of a support span it quotes"),
        Reason("support_line_item", "support", _P, "a computational claim without content "
               "words names a line of its spans (Other, Total amount)"),
        Reason("support_insufficient", "support", _F, "too few content words are in the spans"),
        Reason("support_line_unnamed", "support", _F, "a computational claim names no word of "
               "the row labels and column header of a table cell it cites (below its section "
               "label, when the claim cites one line of the section)"),
        Reason("support_aligned", "support", _P, "in each clause, the claim's words align in "
               "order to one support span"),
        Reason("support_unaligned", "support", _F, "a word of the claim aligns to nothing, or "
               "only out of order, in the span its clause aligns to"),
        Reason("support_scope_narrowed", "support", _F, "the claim leaves out a span word that "
               "narrows what the span says: a quantifier of a word it takes (some, most, "
               "many, several, few), or a word after a negation it shares with the span"),
        Reason("support_qualifier_dropped", "support", _F, "the claim leaves out a span word "
               "that qualifies what it states: a bound on a figure or a time (over 200, by "
               "March), an exception (except, excluding), a part (half), a rank (second "
               "largest), a past (former), or the part of the year a figure is of (Q3 2023)"),
        Reason("no_content_words", "support", _S, "the claim has no content words"),
        Reason("no_evidence", "anchors", _S, "the claim has no support span"),
        Reason("no_evidence", "polarity", _S, "the claim has no support span"),
        Reason("no_evidence", "computation", _S, "the claim has no support span"),
        Reason("no_evidence", "support", _S, "the claim has no support span"),
        Reason("bound", "coverage", _P, "the claim cites at least one support span"),
        Reason("unsupported", "coverage", _F, "a material claim cites no support span"),
        Reason("not_material", "coverage", _S, "an unbound claim that is not material"),
    )
}  # fmt: skip
"""Reason codes keyed by ``(check, code)``."""
