"""The anchors check: numbers, dates, identifiers, URLs and quoted strings."""

from __future__ import annotations

import pytest

from ledger.gate.anchors.check import check_anchors
from ledger.gate.model import Outcome

ENVELOPE = "Revenue by segment \u2014 Services, FY2023: $4.5 million [1] Figures in USD."


@pytest.mark.parametrize(
    "span",
    ["It earned 4,500,000 dollars.", "It earned $4,500,000.", "It earned 4.5m USD.", ENVELOPE],
)
def test_treats_four_and_a_half_million_dollars_written_differently_as_one_figure(
    span: str,
) -> None:
    result = check_anchors("Services earned $4.5 million.", [span])
    assert (result.outcome, result.reason) == (Outcome.PASS, "anchors_present")


def test_rejects_twenty_two_percent_against_two_point_two_percent() -> None:
    result = check_anchors("Revenue grew 22% quarter-on-quarter.", ["Revenue declined 2.2%."])
    assert (result.outcome, result.reason) == (Outcome.FAIL, "anchor_missing")
    assert "number '22%'" in result.detail
    assert "'2.2%'" in result.detail


def test_matches_thousands_separators() -> None:
    result = check_anchors("Sales were 1,496.5 in 2019.", ["Total sales 2019: 1496.5"])
    assert result.reason == "anchors_present"


def test_does_not_match_a_percent_with_a_plain_number() -> None:
    result = check_anchors("Margin was 22%.", ["Margin was 22 points."])
    assert result.reason == "anchor_missing"


def test_does_not_match_different_currencies() -> None:
    result = check_anchors("It cost \u20ac4.5 million.", ["It cost $4.5 million."])
    assert result.reason == "anchor_missing"


def test_applies_a_declared_scale_of_the_span() -> None:
    result = check_anchors("Costs were $4.5 million.", ["Costs (in thousands): 4,500"])
    assert result.reason == "anchors_present"


@pytest.mark.parametrize(
    "span", ["Signed on Jan. 5, 2024.", "Signed 2024-01-05.", "5 January 2024"]
)
def test_matches_dates_written_in_different_forms(span: str) -> None:
    assert check_anchors("It was signed on 5 January 2024.", [span]).reason == "anchors_present"


def test_matches_a_month_against_a_day_in_it_but_not_the_reverse() -> None:
    assert check_anchors("Signed in January 2024.", ["5 January 2024"]).reason == (
        "anchors_present"
    )
    result = check_anchors("Signed on 5 January 2024.", ["in January 2024"])
    assert (result.reason, "date '2024-01-05'" in result.detail) == ("anchor_missing", True)


def test_requires_the_year() -> None:
    result = check_anchors("Revenue fell in 2019.", ["Revenue fell in 2018."])
    assert (result.reason, "date '2019'" in result.detail) == ("anchor_missing", True)


def test_requires_identifiers_section_references_urls_and_quoted_strings() -> None:
    claim = (
        'Under \u00a7 12 and section 4.2.1(b), ISIN US0378331005 and ABC-123 are "listed '
        'securities" (https://example.org/list).'
    )
    good = (
        "\u00a712; 4.2.1(b); US0378331005; ABC-123; \u201cListed securities\u201d; "
        "see www.example.org/list/"
    )
    assert check_anchors(claim, [good]).reason == "anchors_present"
    result = check_anchors(claim, ["\u00a713; 4.2.1(c); ABC-124"])
    assert result.reason == "anchor_missing"
    for missing in ("\u00a712", "4.2.1(B)", "US0378331005", "ABC-123", "listed securities"):
        assert missing in result.detail


def test_exempts_the_claimed_result_of_a_computation() -> None:
    result = check_anchors("Sales fell by 12.6 million in 2019.", ["Sales 2019: 44.1"], [12.6e6])
    assert result.reason == "anchors_present"


def test_skips_a_claim_without_anchors() -> None:
    result = check_anchors("The board approved the merger.", ["The board approved it."])
    assert (result.outcome, result.reason) == (Outcome.SKIP, "no_anchors")


def test_matches_a_day_of_a_month_written_without_its_year() -> None:
    result = check_anchors(
        "Cash did not change between June 30 and December 31, 2019.",
        ["Cash, Estimated at June 30, 2019: $3,795", "Cash, Final as of December 31, 2019"],
    )
    assert (result.outcome, result.reason) == (Outcome.PASS, "anchors_present")


def test_rejects_a_day_of_a_month_that_no_span_date_has() -> None:
    result = check_anchors("Cash was unchanged on June 29.", ["Cash at June 30, 2019: $3,795"])
    assert (result.outcome, result.reason) == (Outcome.FAIL, "anchor_missing")
    assert "date '--06-29'" in result.detail


def test_reads_a_day_written_before_its_month_without_a_year() -> None:
    span = "Table \u2014 Outstanding at 1 April, 2019 Number: 3,104,563"
    assert check_anchors("The amount outstanding at 1 April in 2019.", [span]).reason == (
        "anchors_present"
    )
    assert check_anchors("The amount outstanding at 2 April in 2019.", [span]).reason == (
        "anchor_missing"
    )


def test_matches_a_full_date_to_a_header_day_and_a_column_year_of_one_span() -> None:
    span = "October 31, (In thousands) \u2014 Total inventories, 2019: $289,928"
    assert check_anchors("Inventories at October 31, 2019.", [span]).reason == "anchors_present"
    assert check_anchors("Inventories at October 31, 2018.", [span]).reason == "anchor_missing"
    # The day and the year must come from one span.
    split = ["Table \u2014 Inventories, October 31: 5", "Table \u2014 Inventories, 2019: 6"]
    assert check_anchors("Inventories at October 31, 2019.", split).reason == "anchor_missing"


def test_matches_years_joined_by_commas_against_the_years_of_the_spans() -> None:
    spans = ["Costs \u2014 Total, 2017: $3,631", "Costs \u2014 Total, 2018: $10,647"]
    spans.append("Costs \u2014 Total, 2019: $8,455")
    claim = "The average total costs for 2017,2018 and 2019 is 7,577.67 thousand."
    result = check_anchors(claim, spans, exempt=[7_577_670.0])
    assert (result.outcome, result.reason) == (Outcome.PASS, "anchors_present")
    wrong = check_anchors("The total costs for 2016,2018 were high.", spans)
    assert (wrong.outcome, wrong.reason) == (Outcome.FAIL, "anchor_missing")
    assert "2016" in wrong.detail


def test_finds_a_claimed_year_in_a_letter_spaced_header_and_no_other_year() -> None:
    span = (
        "Table \u2014 Operating loss carryforward, December 31 2 0 1 8 U.S. $ in thousands: 57,768"
    )
    assert check_anchors("In 2018 the carryforward was 57,768.", [span]).outcome is Outcome.PASS
    swapped = check_anchors("In 2017 the carryforward was 57,768.", [span])
    assert swapped.outcome is Outcome.FAIL
    assert "date '2017'" in swapped.detail
    assert check_anchors("It was 2 thousand.", [span]).outcome is Outcome.FAIL
