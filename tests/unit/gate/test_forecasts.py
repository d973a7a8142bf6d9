"""A forecast, projection, budget or preliminary figure is not a fact: a claim that states one
as what happened is rejected (``hedge_mismatch``), factual or computational; the span's own
wording, and a claim that keeps its hedge, still verify."""

from __future__ import annotations

import pytest

from ledger.gate import ClaimType, Outcome, Status, judge
from tests.unit.gate._facts import claim, judged, result, span

FORECASTS = [
    "Revenue is projected to be $4.5 million in 2026.",
    "Revenue is forecast to be $4.5 million in 2026.",
    "Revenue is forecasted at $4.5 million in 2026.",
    "The forecast revenue is $4.5 million in 2026.",
    "Budgeted revenue is $4.5 million in 2026.",
    "Preliminary revenue was $4.5 million in 2026.",
    "Revenue was a provisional $4.5 million in 2026.",
    "Revenue is predicted to be $4.5 million in 2026.",
]


@pytest.mark.parametrize("cited", FORECASTS)
def test_rejects_a_forecast_stated_as_a_fact(cited: str) -> None:
    verdict = judged("Revenue was $4.5 million in 2026.", cited)
    assert verdict.status is Status.REJECTED
    assert result(verdict, "polarity")[:2] == (Outcome.FAIL, "hedge_mismatch")
    assert judged(cited, cited).status is Status.VERIFIED


@pytest.mark.parametrize(
    "cited",
    [
        "Revenue is projected to rise from $4.0 million in 2025 to $4.5 million in 2026.",
        "Revenue is forecast to rise from $4.0 million in 2025 to $4.5 million in 2026.",
        "Preliminary figures show revenue rising from $4.0 million in 2025 to $4.5 million in "
        "2026.",
    ],
)
def test_does_not_verify_a_change_computed_from_a_forecast_and_stated_as_a_fact(
    cited: str,
) -> None:
    # A computational claim's words are read over a window, not aligned: the forecast leaves
    # it unverified rather than contradicted.
    facts = {"s0": span("s0", cited)}
    text = "Revenue rose by $0.5 million in 2026."
    verdict = judge(claim(text, "s0", type=ClaimType.COMPUTATIONAL), facts)
    assert verdict.status is Status.UNVERIFIED
    outcome, reason, detail = result(verdict, "polarity")
    assert (outcome, reason) == (Outcome.SKIP, "mismatch_unaligned")
    assert "hedged" in detail


def test_does_not_verify_a_change_computed_from_cells_of_a_projection_table() -> None:
    cells = {
        f"c{y}": span(f"c{y}", v, f"Projected results (in millions) \u2014 Revenue, {y}: {v}")
        for y, v in (("2025", "4.0"), ("2026", "4.5"))
    }
    text = "The change in revenue from 2025 to 2026 is 0.5 million."
    verdict = judge(claim(text, *cells, type=ClaimType.COMPUTATIONAL), cells)
    assert verdict.status is Status.UNVERIFIED


def test_verifies_a_claim_that_keeps_the_forecast() -> None:
    verdict = judged(
        "Revenue is forecast to be $4.5 million in 2026.",
        "Revenue is forecast to be $4.5 million in 2026, up from $4.0 million.",
    )
    assert verdict.status is Status.VERIFIED, verdict.checks


@pytest.mark.parametrize(
    "cited",
    [
        "On a pro forma basis, revenue was $4.5 million in 2026.",
        "Pro forma revenue was $4.5 million in 2026.",
    ],
)
def test_rejects_a_pro_forma_figure_stated_as_what_happened(cited: str) -> None:
    verdict = judged("Revenue was $4.5 million in 2026.", cited)
    assert verdict.status is Status.REJECTED
    assert judged(cited, cited).status is Status.VERIFIED
