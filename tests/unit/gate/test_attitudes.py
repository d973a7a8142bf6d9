"""A claim cited from a span that only reports an expectation, a suggestion, a prediction, a
hope or a speculation states as fact what the span does not: ``hedge_mismatch``. The span's
own wording still verifies, and so does a claim that keeps the attitude."""

from __future__ import annotations

import pytest

from ledger.gate import Outcome, Status
from tests.unit.gate._facts import judged, result

CLAIM = "Revenue rose 5% in 2023."


@pytest.mark.parametrize(
    "opening",
    [
        "We expect that",
        "We anticipate that",
        "The data suggest that",
        "Analysts predict that",
        "Analysts are predicting that",
        "We hope that",
        "Management speculated that",
        "Management speculates that",
    ],
)
def test_rejects_a_fact_the_span_only_expects_suggests_predicts_hopes_or_speculates(
    opening: str,
) -> None:
    cited = f"{opening} revenue rose 5% in 2023."
    verdict = judged(CLAIM, cited)
    assert verdict.status is Status.REJECTED
    assert result(verdict, "polarity")[:2] == (Outcome.FAIL, "hedge_mismatch")
    assert judged(cited, cited).status is Status.VERIFIED


def test_verifies_a_claim_that_keeps_the_expectation() -> None:
    verdict = judged("We expect that revenue rose 5%.", "We expect that revenue rose 5% in 2023.")
    assert verdict.status is Status.VERIFIED, verdict.checks


@pytest.mark.parametrize(
    "cited",
    [
        "Revenue purportedly rose 5% in 2023.",
        "Revenue arguably rose 5% in 2023.",
        "Revenue plausibly rose 5% in 2023.",
        "Revenue ostensibly rose 5% in 2023.",
        "Revenue conceivably rose 5% in 2023.",
        "Revenue reputedly rose 5% in 2023.",
    ],
)
def test_rejects_a_fact_the_span_only_reports_as_purported_or_arguable(cited: str) -> None:
    verdict = judged(CLAIM, cited)
    assert verdict.status is Status.REJECTED
    assert result(verdict, "polarity")[:2] == (Outcome.FAIL, "hedge_mismatch")
    assert judged(cited, cited).status is Status.VERIFIED
