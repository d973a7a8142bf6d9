"""A figure the span gives for part of a year is not the year's: a claim with a figure that
dates it to the year where its span dates it to a quarter, a month, a season or the start or
end of that year is unverified (``support_qualifier_dropped``). A claim without a figure may
date an event by its year alone (``released the album in 2005`` over ``... in December
2005``)."""

from __future__ import annotations

import pytest

from ledger.gate import Status
from tests.unit.gate._facts import judged, unverified

CLAIM = "Revenue rose 5% in 2023."


@pytest.mark.parametrize(
    "cited",
    [
        "Revenue rose 5% in the third quarter of 2023.",
        "Revenue rose 5% in Q3 2023.",
        "Revenue rose 5% in 2023 Q3.",
        "Revenue rose 5% in H2 2023.",
        "Revenue rose 5% in December 2023.",
        "Revenue rose 5% in early 2023.",
        "Revenue rose 5% in late 2023.",
        "Revenue rose 5% in mid-2023.",
        "Revenue rose 5% in the 2023 holiday season.",
        "Revenue rose 5% in the summer of 2023.",
    ],
)
def test_does_not_verify_a_figure_of_part_of_a_year_claimed_for_the_year(cited: str) -> None:
    reason, detail = unverified(CLAIM, cited, "support")
    assert reason == "support_qualifier_dropped"
    assert "part of the year" in detail
    assert judged(cited, cited).status is Status.VERIFIED


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        (
            "The band released its debut album in 2005.",
            "The band released its debut album in December 2005.",
        ),
        ("Revenue rose 5% in Q3 2023.", "Revenue rose 5% in Q3 2023."),
        ("Revenue rose 5% in 2023.", "Revenue rose 5% in fiscal 2023."),
        ("Revenue rose 5% in 2023.", "Revenue rose 5% in 2023, with most of the gain in December."),
        (
            "Revenue declined 2.2% quarter-on-quarter in 2023.",
            "Revenue declined 2.2% quarter-on-quarter in 2023.",
        ),
        ("Revenue rose 5% month over month in 2023.", "Revenue rose 5% month over month in 2023."),
    ],
)
def test_lets_an_event_keep_its_year_and_a_figure_keep_its_part(claimed: str, cited: str) -> None:
    assert judged(claimed, cited).status is Status.VERIFIED
