"""The support check: content-word recall against the threshold."""

from __future__ import annotations

import pytest

from ledger.gate.anchors.reading import read_text
from ledger.gate.model import Outcome
from ledger.gate.support.lines import check_line_item_support
from ledger.gate.support.recall import check_support, support_score


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


def test_meets_british_and_american_spellings() -> None:
    result = check_support(
        "The expense recognized for RSUs in 2019 is 1.8 million.",
        ["Expense recognised for RSUs, 2019: 1.8"],
        1.0,
        computational=True,
    )
    assert result.reason == "support_sufficient"


def test_still_misses_a_word_that_only_resembles_one_in_the_span() -> None:
    result = check_support(
        "The expense recognized for RSUs in 2019 is 1.8 million.",
        ["Expense reorganised for RSUs, 2019: 1.8"],
        1.0,
        computational=True,
    )
    assert (result.reason, "recogniz" in result.detail) == ("support_insufficient", True)


def test_reads_plurals_of_domain_words_as_domain_words() -> None:
    score, missing = support_score(
        "Ground leases over the two periods, in millions.", ["Ground leases"]
    )
    assert (score, missing) == (1.0, [])


def test_reads_a_label_with_a_footnote_number_glued_to_it() -> None:
    result = check_support(
        "The average incentive schemes in 2018 and 2019 is 2.5 million.",
        ["2\nAggregate emoluments \u2014 Incentive schemes1, 2019: 2"],
        1.0,
        computational=True,
    )
    assert result.reason == "support_sufficient"


def test_a_glued_footnote_does_not_lend_its_word_to_another_label() -> None:
    result = check_support(
        "The average bonus schemes in 2018 and 2019 is 2.5 million.",
        ["2\nAggregate emoluments \u2014 Incentive schemes1, 2019: 2"],
        1.0,
        computational=True,
    )
    assert (result.reason, "bonus" in result.detail) == ("support_insufficient", True)


@pytest.mark.parametrize(
    "text",
    [
        "The average contributed equity for 2018 and 2019 in terms of $M is 5,941.5 million.",
        "The proportion of level 2 inputs is made up of money market funds is 0.45%.",
        "The percentage of income before taxes does Swiss income form a part of is 78.55%.",
        "The average income before taxes across the 3 years is 4.1 million.",
    ],
)
def test_ignores_phrases_that_state_a_unit_or_a_share_in_a_computational_claim(
    text: str,
) -> None:
    evidence = [
        "Contributed equity ($M), 2019: 6,055",
        "Level 2 inputs: Money market funds, 2019: 4",
        "Income before taxes: Swiss, 2019: 1,020",
    ]
    assert check_support(text, evidence, 1.0, computational=True).reason == "support_sufficient"


def test_keeps_the_words_of_those_phrases_in_a_factual_claim() -> None:
    result = check_support(
        "Swiss income forms a part of income before taxes.",
        ["Income before taxes: Swiss, 2019: 1,020"],
        1.0,
    )
    assert result.reason == "support_insufficient"


def test_passes_a_computational_claim_whose_only_words_name_a_line_of_its_spans() -> None:
    reading = read_text("The change in Other in 2019 from 2018 is -12.6 million.")
    result = check_line_item_support(reading, ["Sales (in millions) \u2014 Other, 2019: 44.1"])
    assert result is not None
    assert (result.outcome, result.reason) == (Outcome.PASS, "support_line_item")


@pytest.mark.parametrize(
    "text",
    [
        "The change in Total in 2019 from 2018 is -12.6 million.",
        "The change in 2019 from 2018 is -12.6 million.",
    ],
)
def test_does_not_pass_a_claim_without_content_words_naming_another_line_or_none(
    text: str,
) -> None:
    assert check_line_item_support(read_text(text), ["Sales \u2014 Other, 2019: 44.1"]) is None
