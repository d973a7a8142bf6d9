"""The polarity of a computational claim: negation, hedging and direction, within the matching
window. A window is no alignment, so a disagreement there leaves the claim unverified
(``mismatch_unaligned``) and never rejects it."""

from __future__ import annotations

import pytest

from ledger.gate import Binding, ClaimDraft, ClaimType, SpanFacts, Status, judge
from ledger.gate.model import Outcome
from ledger.gate.polarity.window import check_polarity

UNALIGNED = (Outcome.SKIP, "mismatch_unaligned")


def test_does_not_verify_did_not_approve_against_approved() -> None:
    result = check_polarity(
        "The board did not approve the merger.", ["The board approved the merger."]
    )
    assert (result.outcome, result.reason) == UNALIGNED
    assert "the claim is negated" in result.detail
    assert "no contradiction is established" in result.detail


def test_does_not_verify_a_claim_that_drops_the_negation_of_its_span() -> None:
    result = check_polarity(
        "The board approved the merger.", ["The board did not approve the merger."]
    )
    assert (result.reason, "the span is negated" in result.detail) == ("mismatch_unaligned", True)


def test_reads_a_contracted_negation() -> None:
    result = check_polarity("The plan doesn't cover dental care.", ["The plan covers dental care."])
    assert (result.outcome, result.reason) == UNALIGNED


def test_ignores_a_negation_outside_the_matching_stretch() -> None:
    span = "The board approved the merger in May, but it did not approve the new budget."
    result = check_polarity("The board approved the merger.", [span])
    assert (result.outcome, result.reason) == (Outcome.PASS, "polarity_agrees")


def test_ignores_a_negated_sentence_that_does_not_match_the_claim() -> None:
    spans = ["No dividend was declared.", "Revenue rose in every region during 2023."]
    assert check_polarity("Revenue rose in every region.", spans).reason == "polarity_agrees"


def test_does_not_verify_rose_against_fell() -> None:
    result = check_polarity("Other sales rose in 2019.", ["Other sales fell in 2019."])
    assert (result.outcome, result.reason) == UNALIGNED
    assert "'rose'" in result.detail
    assert "'fell'" in result.detail


def test_does_not_verify_profit_against_loss() -> None:
    result = check_polarity("The unit made a profit.", ["The unit made a loss."])
    assert (result.outcome, result.reason) == UNALIGNED


def test_does_not_verify_an_unhedged_claim_citing_a_hedged_span() -> None:
    result = check_polarity("Revenue will increase next year.", ["Revenue may increase next year."])
    assert (result.outcome, result.reason) == UNALIGNED
    assert "hedged" in result.detail


def test_accepts_a_hedged_claim_citing_a_plain_span() -> None:
    result = check_polarity("Revenue may increase next year.", ["Revenue will increase next year."])
    assert result.reason == "polarity_agrees"


def test_does_not_read_the_month_may_or_the_abbreviation_no_as_cues() -> None:
    span = "Year ended May 31, 2019 \u2014 NO. OF RIGHTS granted: 5,691"
    assert check_polarity("Rights granted in 2019.", [span]).reason == "polarity_agrees"


def test_skips_when_no_sentence_shares_a_content_word() -> None:
    result = check_polarity("Revenue rose.", ["The weather was cold."])
    assert (result.outcome, result.reason) == (Outcome.SKIP, "no_matching_sentence")


def test_reads_the_except_of_a_unit_note_as_no_negation() -> None:
    span = "(in millions, except per share amounts) \u2014 Operating income, 2019: $13,535"
    result = check_polarity("The average operating income from 2015 to 2019 is 13,237.4.", [span])
    assert result.reason == "polarity_agrees"


def test_still_reads_except_outside_a_unit_note_as_a_negation() -> None:
    span = "All segments grew in 2019 except services."
    result = check_polarity("All segments grew in 2019, services included.", [span])
    assert (result.outcome, result.reason) == UNALIGNED


def test_still_reads_a_negated_claim_citing_a_cell_with_a_unit_note() -> None:
    span = "(in millions, except per share amounts) \u2014 Operating income, 2019: $13,535"
    result = check_polarity("Operating income in 2019 was not 13,535.", [span])
    assert (result.outcome, result.reason) == UNALIGNED


# -- a computational claim over prose: the alignment's cues in its window ------------------


def _computed(claimed: str, cited: str, envelope: str | None = None) -> tuple[Status, set[str]]:
    facts = SpanFacts("s0", True, True, True, False, cited, envelope)
    verdict = judge(
        ClaimDraft(claimed, type=ClaimType.COMPUTATIONAL, bindings=(Binding("s0"),)),
        {"s0": facts},
    )
    return verdict.status, {c.reason for c in verdict.checks}


@pytest.mark.parametrize(
    "verb", ["failed to rise", "was set to rise", "would have risen", "should rise"]
)
def test_does_not_verify_a_computed_change_the_sentence_does_not_report(verb: str) -> None:
    status, reasons = _computed(
        "Revenue rose by $0.5 million in 2023.",
        f"Revenue {verb} from $4.0 million to $4.5 million in 2023.",
    )
    assert status is Status.UNVERIFIED
    assert "mismatch_unaligned" in reasons


def test_verifies_the_computed_change_the_sentence_reports() -> None:
    status, _ = _computed(
        "Revenue rose by $0.5 million in 2023.",
        "Revenue rose from $4.0 million to $4.5 million in 2023.",
    )
    assert status is Status.VERIFIED


def test_reads_a_cells_caption_with_the_polarity_cues_only() -> None:
    status, _ = _computed(
        "The fair value of other borrowings in 2019 was 12.4 million.",
        "12.4",
        "Fair values of our debt, excluding lease liabilities (in millions) \u2014 Other "
        "borrowings, December 31, 2019 Fair Value: 12.4",
    )
    assert status is not Status.REJECTED
