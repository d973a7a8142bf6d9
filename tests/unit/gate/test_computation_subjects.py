"""The computation check over a sentence that writes the figures of several lines: a formula may
use a sentence's figure only where the claim names what that figure is of (the conjunct of the
sentence it stands in), as a cell's figure only on a line the claim names."""

from __future__ import annotations

import pytest

from ledger.gate import ClaimType, Status, judge
from ledger.gate.computation.check import check_computation
from tests.unit.gate._facts import claim, span

C = ClaimType.COMPUTATIONAL
TWO_LINES = (
    "Revenue rose from $4.0 million in 2022 to $4.5 million in 2023, while costs rose from "
    "$2.0 million to $2.5 million."
)
REGIONS = (
    "The Americas region contributed 43%, the EMEA region contributed 31% and the Asia Pacific "
    "region contributed 26% of the revenue growth in fiscal 2019."
)
PLACES = "Revenue was $4.0 million in Europe and $4.5 million in Asia in 2023."
TWO_SEGMENTS = (
    "Product revenue rose from $4.0 million to $4.5 million, while service revenue rose from "
    "$2.0 million to $2.5 million."
)


def _status(text: str, *cited: str) -> Status:
    facts = {f"s{i}": span(f"s{i}", t) for i, t in enumerate(cited)}
    return judge(claim(text, *facts, type=C), facts).status


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        # The costs' change, claimed of revenue.
        ("Revenue rose by 25% in 2023.", TWO_LINES),
        # Last year's revenue plus this year's costs.
        ("Revenue was $6.5 million in 2023.", TWO_LINES),
        # The revenue's change, claimed of costs.
        ("Costs rose by 12.5%.", TWO_LINES),
        # The service line's change, claimed of the product line.
        ("Product revenue rose by 25%.", TWO_SEGMENTS),
        # The Americas and EMEA, claimed of the Americas and Asia Pacific.
        (
            "The Americas and Asia Pacific regions contributed a combined 74% of the revenue "
            "growth.",
            REGIONS,
        ),
        # Revenue in Asia less revenue in Europe, claimed the other way round.
        ("Revenue in Europe exceeded revenue in Asia by $0.5 million.", PLACES),
    ],
)
def test_does_not_compute_a_claim_from_the_figures_of_another_line_of_the_sentence(
    text: str, cited: str
) -> None:
    result, _ = check_computation(text, C, [span("s0", cited)])
    assert result.reason != "recomputed"
    assert _status(text, cited) is not Status.VERIFIED


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("Revenue rose by $0.5 million in 2023.", TWO_LINES),
        ("Revenue rose by 12.5% in 2023.", TWO_LINES),
        ("Costs rose by 25%.", TWO_LINES),
        ("Service revenue rose by 25%.", TWO_SEGMENTS),
        ("Product revenue rose by 12.5%.", TWO_SEGMENTS),
        # A conjunct that names nothing of its own is its clause's (the second figure is
        # revenue's too).
        (
            "Revenue rose by $0.5 million from 2022 to 2023.",
            "Revenue was $4.0 million in 2022 and $4.5 million in 2023.",
        ),
        (
            "The Americas and EMEA regions contributed a combined 74% of the revenue growth.",
            REGIONS,
        ),
        (
            "The Americas and Asia Pacific regions contributed a combined 69% of the revenue "
            "growth.",
            REGIONS,
        ),
        (
            "The total stock-based compensation expense of 2017 to 2019 was $1.8 million.",
            "For the years ended December 31, 2019, 2018 and 2017, the Company recognized $0.3 "
            "million, $0.9 million and $0.6 million, respectively, of stock-based compensation "
            "expense.",
        ),
        # A claim that names both lines may combine them.
        (
            "The combined revenue and costs in 2023 were $7.0 million.",
            "Revenue was $4.5 million in 2023 and costs were $2.5 million in 2023.",
        ),
    ],
)
def test_computes_a_claim_from_the_figures_of_the_line_it_names(text: str, cited: str) -> None:
    result, _ = check_computation(text, C, [span("s0", cited)])
    assert result.reason == "recomputed", result.detail
    assert _status(text, cited) is Status.VERIFIED
