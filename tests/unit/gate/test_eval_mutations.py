"""How the evaluation edits a true sentence into a false one, and splits data by document."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from benchmarks.eval_cases import HALVES, half_of
from benchmarks.gate_mutations import (
    MUTATIONS,
    antonym,
    condition,
    conjunction,
    deadline,
    direction,
    gender,
    negate,
    number,
    ordinal,
    period,
    plan,
    quarter,
    scale,
)
from benchmarks.gate_mutations_figures import forecast, measure, year_part
from benchmarks.gate_mutations_framing import (
    again,
    bound,
    cause,
    embedded,
    exception,
    former,
    frequency,
    level,
    obligation,
    part,
    position,
    quantifier,
    rank,
    recency,
    relation,
    scope,
)
from benchmarks.summedits_cases import seed_kind


@pytest.mark.parametrize(
    ("mutate", "sentence", "edited"),
    [
        (negate, "The board has approved the plan.", "The board has not approved the plan."),
        (negate, "The board did not approve the plan.", "The board did approve the plan."),
        (antonym, "Sales rose in 2019.", "Sales fell in 2019."),
        (number, "Sales were 1,299 units in 2019.", "Sales were 1,298 units in 2019."),
        (ordinal, "It was the second attempt.", "It was the third attempt."),
        (quarter, "Orders peaked in Q1 2024.", "Orders peaked in Q4 2024."),
        (quarter, "Margins grew in the second quarter.", "Margins grew in the third quarter."),
        (scale, "Revenue was $4 million.", "Revenue was $4 billion."),
        (period, "It opened in March 2020.", "It opened in April 2020."),
        (period, "It opened in 2020.", "It opened in 2021."),
        (gender, "She said his plan would work.", "He said his plan would work."),
        (gender, "The board thanked her.", "The board thanked him."),
        (plan, "The plant will be closed in May.", "The plant is closed in May."),
        (plan, "He said it would be late.", "He said it was late."),
        (condition, "A dividend is paid if profits rise.", "A dividend is paid."),
        (condition, "If the order ships late, the fee is waived.", "The fee is waived."),
        (direction, "Staff moved to the Leeds office.", "Staff moved from the Leeds office."),
        (direction, "It rose from 4 to 5.", "It rose to 4 to 5."),
        (conjunction, "The buyer and the seller sign.", "The buyer or the seller sign."),
        (embedded, "The board failed to approve the plan.", "The board approved the plan."),
        (embedded, "She was unable to carry the box.", "She carried the box."),
        (embedded, "The firm has yet to apply for it.", "The firm applied for it."),
        (bound, "Revenue was over $5 million.", "Revenue was $5 million."),
        (bound, "More than 200 staff left.", "200 staff left."),
        (relation, "Prices rose after the merger.", "Prices rose during the merger."),
        (relation, "He waited until the end.", "He waited after the end."),
        (again, "Prices rose after the merger.", "Prices rose after the merger again."),
        (part, "The firm sold half its stake.", "The firm sold its stake."),
        (part, "It was a part of the deal.", "It was the deal."),
        (level, "Revenue rose by 5% in 2023.", "Revenue rose to 5% in 2023."),
        (level, "Revenue fell to $3 million.", "Revenue fell by $3 million."),
        (frequency, "The fee is sometimes charged.", "The fee is charged."),
        (recency, "Sales fell last year.", "Sales fell this year."),
        (cause, "Sales rose because prices fell.", "Sales rose although prices fell."),
        (cause, "Sales rose despite the strike.", "Sales rose because of the strike."),
        (obligation, "Tenants must pay the fee.", "Tenants pay the fee."),
        (rank, "X is one of the largest banks.", "X is the largest banks."),
        (rank, "X is the second-largest bank.", "X is the largest bank."),
        (former, "The former CEO left.", "The CEO left."),
        (position, "The board voted for the merger.", "The board voted against the merger."),
        (position, "Shares traded at par.", "Shares traded below par."),
        (exception, "Sales rose in 2023, except in Europe.", "Sales rose in 2023."),
        (scope, "It has not paid a dividend since 2019.", "It has not paid a dividend."),
        (deadline, "Pay by Friday.", "Pay on Friday."),
        (bound, "Costs more than doubled.", "Costs doubled."),
        (quantifier, "It helped most patients.", "It helped patients."),
        (quantifier, "A few plans were offered.", "Plans were offered."),
        (deadline, "Pay by March 31.", "Pay on March 31."),
        (deadline, "Done by the end of June.", "Done at the end of June."),
        (deadline, "Done by 2026.", "Done in 2026."),
        (scope, "She never worked for the firm before 2010", "She never worked for the firm"),
        (
            condition,
            "Fees are waived, unless stated otherwise, for members.",
            "Fees are waived, for members.",
        ),
    ],
)
def test_edits_the_first_candidate_of_its_kind(mutate: object, sentence: str, edited: str) -> None:
    assert mutate(sentence) == edited  # type: ignore[operator]


def test_leaves_a_sentence_without_a_candidate_alone() -> None:
    assert {kind: edit("Hello there!") for kind, edit in MUTATIONS.items()} == dict.fromkeys(
        MUTATIONS
    )


def test_drops_no_except_of_a_unit_note() -> None:
    assert exception("Figures are in thousands, except per share data.") is None


def test_states_as_done_only_what_a_regular_verb_says() -> None:
    assert embedded("He tried to sell the car.") is None
    assert embedded("The delay was due to rain.") is None


def test_never_moves_a_month_to_may() -> None:
    assert period("It opened in April 2020.") == "It opened in June 2020."


def test_files_a_summary_edit_under_its_most_telling_kind() -> None:
    assert seed_kind({"entity_modification", "negation_insertion_removal"}) == "seed_negation"
    assert seed_kind({"entity_modification", "antonym_swap"}) == "seed_antonym"
    assert seed_kind({"entity_modification", "hallucinated_fact_insertion"}) == "seed_other"
    assert seed_kind({"entity_modification"}) == "seed_swap"


def test_puts_a_document_in_one_fixed_half() -> None:
    halves = [half_of(f"document {n}") for n in range(200)]
    assert set(halves) == set(HALVES)
    assert halves == [half_of(f"document {n}") for n in range(200)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Revenue rose, even if costs rose.",
        "Losses, if any, are recognised in profit.",
        "A cold is gone in 14 days; if left untreated it lasts two weeks.",
    ],
)
def test_drops_no_condition_that_is_none_or_another_clauses(sentence: str) -> None:
    assert condition(sentence) is None


@pytest.mark.parametrize(
    "sentence", ["They agreed to pay the fee.", "Sales fell 2% compared to the prior year."]
)
def test_leaves_a_to_without_a_direction_alone(sentence: str) -> None:
    assert direction(sentence) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "He did not go to school.",
        "It is not clear, he said in March.",
        "The firm did not report a loss and revenue rose in 2023.",
        "Sales rose in 2023.",
    ],
)
def test_drops_no_phrase_outside_a_negations_clause(sentence: str) -> None:
    assert scope(sentence) is None


def test_leaves_a_by_before_a_name_alone() -> None:
    assert deadline("She read a poem by Maya Angelou.") is None


@pytest.mark.parametrize(
    "sentence",
    ["the most important thing", "at most 5 people", "most of the staff", "his most creative work",
     "He ate some bread."],
)  # fmt: skip
def test_drops_no_superlative_bound_or_possessed_quantifier(sentence: str) -> None:
    assert quantifier(sentence) is None


@pytest.mark.parametrize(
    ("mutate", "sentence", "expected"),
    [
        (
            forecast,
            "Preliminary revenue was $4.5 million in 2023.",
            "Revenue was $4.5 million in 2023.",
        ),
        (
            forecast,
            "Revenue is projected to be $4.5 million in 2026.",
            "Revenue is $4.5 million in 2026.",
        ),
        (forecast, "Revenue was expected to rise.", None),
        (year_part, "Revenue rose 5% in the third quarter of 2023.", "Revenue rose 5% in 2023."),
        (year_part, "Sales were $4 million in December 2023.", "Sales were $4 million in 2023."),
        (year_part, "As of December 31, 2023, cash was $5 million.", None),
        (year_part, "The firm, with 50 staff, was founded in February 2009.", None),
        (measure, "European revenue rose 5% in 2023.", "Revenue rose 5% in 2023."),
        (measure, "Revenue per customer rose 5%.", "Revenue rose 5%."),
        (measure, "These revenues were $41.5 million.", None),
        (measure, "A Martian year takes 687 of our days.", None),
    ],
)
def test_edits_what_a_figure_is_of_and_when(
    mutate: Callable[[str], str | None], sentence: str, expected: str | None
) -> None:
    assert mutate(sentence) == expected
