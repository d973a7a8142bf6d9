"""The support check: content-word recall against the threshold."""

from __future__ import annotations

from ledger.gate.model import Outcome
from ledger.gate.support import check_support, support_score


def test_scores_by_stems_ignoring_stop_words_numbers_and_domain_words() -> None:
    score, missing = support_score(
        "The company's net revenues increased in 2019.", ["Revenue increases were seen."]
    )
    assert (score, missing) == (1.0, [])


def test_passes_when_the_score_reaches_the_threshold() -> None:
    result = check_support("Services revenue grew.", ["Revenue of services grew strongly."], 1.0)
    assert (result.outcome, result.reason) == (Outcome.PASS, "support_sufficient")


def test_fails_and_names_the_missing_words() -> None:
    result = check_support("Services revenue grew in Europe.", ["Services revenue grew."], 1.0)
    assert (result.outcome, result.reason) == (Outcome.FAIL, "support_insufficient")
    assert "score 0.75 < 1.00" in result.detail
    assert "europ" in result.detail


def test_ignores_operation_words_of_computational_claims() -> None:
    result = check_support(
        "The percentage change in Services is -22%.",
        ["Services, 2019: 44.1"],
        1.0,
        computational=True,
    )
    assert result.reason == "support_sufficient"


def test_skips_a_claim_without_content_words() -> None:
    result = check_support("It was 42 in 2019.", ["Anything."], 1.0)
    assert (result.outcome, result.reason) == (Outcome.SKIP, "no_content_words")


def test_ignores_words_that_only_name_the_arithmetic_of_a_computational_claim() -> None:
    result = check_support(
        "The Services revenue altogether, expressed as a portion of the overall, is 12%.",
        ["Services revenue, 2019: 44.1"],
        1.0,
        computational=True,
    )
    assert result.reason == "support_sufficient"


def test_counts_the_same_words_against_a_factual_claim() -> None:
    result = check_support(
        "Services revenue altogether was 44.1.", ["Services revenue, 2019: 44.1"], 1.0
    )
    assert (result.reason, result.detail.endswith("altogether")) == ("support_insufficient", True)
