"""The computation check: recomputing claimed results from cited figures."""

from __future__ import annotations

import pytest

from ledger.gate.computation import check_computation
from ledger.gate.model import ClaimType, Outcome, SpanFacts
from tests.unit.gate._facts import span

C = ClaimType.COMPUTATIONAL
TITLE = "Sales by contract type (in millions) \u2014 Other"
CELLS = [
    span("c19", "44.1", f"{TITLE}, 2019: 44.1"),
    span("c18", "56.7", f"{TITLE}, 2018: 56.7"),
]


def _run(text: str, spans: list[SpanFacts] = CELLS) -> tuple[Outcome, str, str]:
    result, _ = check_computation(text, C, spans)
    return result.outcome, result.reason, result.detail


@pytest.mark.parametrize(
    "text",
    [
        "Other sales fell by 12.6 million from 2018 to 2019.",
        "The change in Other sales in 2019 from 2018 was -12.6 million.",
        "Other sales decreased 22.2% from 2018 to 2019.",
        "Other sales averaged 50.4 million in 2018 and 2019.",
        "Other sales totalled 100.8 million over 2018 and 2019.",
        "Other sales in 2018 were 1.29 times those of 2019.",
    ],
)
def test_recomputes_a_correct_result(text: str) -> None:
    outcome, reason, detail = _run(text)
    assert (outcome, reason) == (Outcome.PASS, "recomputed")
    assert "44.1" in detail


@pytest.mark.parametrize(
    "text",
    [
        "Other sales rose by 12.6 million from 2018 to 2019.",
        "The change in Other sales in 2019 from 2018 was 12.6 million.",
        "The change in Other sales in 2019 from 2018 was -126 million.",
        "The change in Other sales in 2019 from 2018 was -12.98 million.",
    ],
)
def test_rejects_a_sign_flip_a_tenfold_and_a_three_percent_error(text: str) -> None:
    outcome, reason, detail = _run(text)
    assert (outcome, reason) == (Outcome.FAIL, "recompute_mismatch")
    assert "nearest" in detail


def test_applies_a_declared_thousands_scale_to_a_claim_in_millions() -> None:
    cells = [
        span("a", "12,600", "Costs ($ in thousands) \u2014 Rent, 2019: 12,600"),
        span("b", "6,300", "Costs ($ in thousands) \u2014 Rent, 2018: 6,300"),
    ]
    assert _run("Rent rose by 6.3 million from 2018 to 2019.", cells)[1] == "recomputed"
    assert _run("Rent rose by 6,300 million from 2018 to 2019.", cells)[1] == "recompute_mismatch"


def test_recomputes_a_basis_point_change_of_two_percentages() -> None:
    cells = [
        span("a", "4.0%", "Rates \u2014 Margin, 2019: 4.0%"),
        span("b", "2.5%", "Rates \u2014 Margin, 2018: 2.5%"),
    ]
    assert _run("The margin rose 150 basis points in 2019.", cells)[1] == "recomputed"


def test_will_not_establish_a_change_whose_order_is_unknown() -> None:
    cells = [span("a", "44.1"), span("b", "56.7")]
    assert _run("The change in Other sales was 12.6 million.", cells)[:2] == (
        Outcome.SKIP,
        "not_reproduced",
    )


def test_accepts_an_unordered_difference_only_as_a_magnitude() -> None:
    cells = [span("a", "44.1"), span("b", "56.7")]
    assert _run("The difference between the two is 12.6.", cells)[1] == "recomputed"
    assert _run("The difference between the two is -12.6.", cells)[1] != "recomputed"


def test_skips_when_a_bracketed_figure_makes_the_sign_ambiguous() -> None:
    cells = [
        span("a", "(135)", "Allowance \u2014 Credit losses, 2019: (135)"),
        span("b", "(23)", "Allowance \u2014 Credit losses, 2018: (23)"),
    ]
    assert _run("The change in credit losses from 2018 to 2019 was -112.", cells)[:2] == (
        Outcome.SKIP,
        "sign_ambiguous",
    )


def test_skips_a_claim_without_a_figure() -> None:
    assert _run("Other sales fell sharply.")[:2] == (Outcome.SKIP, "unparseable")


def test_skips_when_the_spans_have_no_figures() -> None:
    spans = [span("a", "Other sales fell.")]
    assert _run("Other sales fell by 12.6 million.", spans)[:2] == (Outcome.SKIP, "no_operands")


def test_skips_an_implicit_claim_that_nothing_reproduces() -> None:
    assert _run("Other sales in 2019 were 71.3.")[:2] == (Outcome.SKIP, "not_reproduced")


def test_skips_non_computational_claims() -> None:
    result, claimed = check_computation("Sales fell by 12.6.", ClaimType.FACTUAL, CELLS)
    assert (result.outcome, result.reason, claimed) == (Outcome.SKIP, "not_computational", None)


def test_orders_a_change_by_fiscal_years_written_as_fy19() -> None:
    cells = [
        span("a", "59,495", "Emissions \u2014 Scope 1, FY19**: 59,495"),
        span("b", "66,336", "Emissions \u2014 Scope 1, FY18**: 66,336"),
    ]
    assert _run("The change in Scope 1 from FY18 to FY19 is -6,841.", cells)[:2] == (
        Outcome.PASS,
        "recomputed",
    )
    assert _run("The change in Scope 1 from FY18 to FY19 is 6,841.", cells)[:2] == (
        Outcome.FAIL,
        "recompute_mismatch",
    )


def test_will_not_reproduce_a_result_that_leaves_a_cited_figure_unused() -> None:
    cells = [*CELLS, span("c17", "70.8", f"{TITLE}, 2017: 70.8")]
    outcome, reason, detail = _run("Other sales averaged 50.4 million in 2018 and 2019.", cells)
    assert (outcome, reason) == (Outcome.SKIP, "not_reproduced")
    assert "70.8" in detail


def test_counts_a_figure_two_spans_write_alike_as_used_by_both() -> None:
    spans = [
        span("a", "The expected salary increase was 2.5% in 2018."),
        span("b", "2.5%", "Rates \u2014 Salary increase, 2018: 2.5%"),
        span("c", "3.0%", "Rates \u2014 Salary increase, 2017: 3.0%"),
    ]
    claim = "The change in salary increase from 2017 to 2018 is -0.5%."
    assert _run(claim, spans)[:2] == (Outcome.PASS, "recomputed")
