"""Changes in percentage points and basis points, the order of a sentence's ``from ... to``
figures, the sign of a direction word, and claims in question form."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.gate import Status, judge
from ledger.gate.computation.check import check_computation
from ledger.gate.model import ClaimType, Outcome, SpanFacts
from ledger.gate.reasons import REASONS
from tests.unit.gate._facts import claim, span

C = ClaimType.COMPUTATIONAL
MARGIN = [span("s", "Gross margin decreased from 45.2% to 42.3% year-over-year.")]
REVENUE = [span("s", "Revenue rose from $4.0 million to $4.5 million in 2023.")]
MAINTENANCE = [
    span("m18", "530", "Revenue by type \u2014 Maintenance, 2018: 530"),
    span("m19", "485", "Revenue by type \u2014 Maintenance, 2019: 485"),
]


def _status(text: str, spans: list[SpanFacts]) -> Status:
    draft = claim(text, *(s.span_id for s in spans), type=C)
    return judge(draft, {s.span_id: s for s in spans}).status


def _computation(text: str, spans: list[SpanFacts]) -> tuple[Outcome, str, str]:
    result, _ = check_computation(text, C, spans)
    return result.outcome, result.reason, result.detail


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("Gross margin declined 290 basis points year-over-year.", MARGIN),
        ("Gross margin declined 2.9 percentage points year-over-year.", MARGIN),
        ("Gross margin fell by 2.9 points year-over-year.", MARGIN),
        ("Revenue rose by $0.5 million in 2023.", REVENUE),
        ("Maintenance revenue decreased by 45 thousand from 2018 to 2019", MAINTENANCE),
        ("How much did Maintenance revenue decrease from 2018 to 2019: 45 thousand.", MAINTENANCE),
        ("What was the average Maintenance revenue in 2018 and 2019: 507.5 thousand.", MAINTENANCE),
        (
            "What was the change in Maintenance revenue from 2018 to 2019: -45 thousand.",
            MAINTENANCE,
        ),
    ],
)
def test_verifies_the_plain_change_of_two_cited_figures(text: str, spans: list[SpanFacts]) -> None:
    assert _status(text, spans) is Status.VERIFIED
    outcome, reason, _ = _computation(text, spans)
    assert (outcome, reason) == (Outcome.PASS, "recomputed")


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("Gross margin rose 290 basis points year-over-year.", MARGIN),
        ("Gross margin declined 3.9 percentage points year-over-year.", MARGIN),
        ("Gross margin declined 29 percentage points year-over-year.", MARGIN),
        ("Revenue fell by $0.5 million in 2023.", REVENUE),
        ("Revenue rose by $5 million in 2023.", REVENUE),
        ("Revenue rose by $0.6 million in 2023.", REVENUE),
        ("Maintenance revenue increased by 45 thousand from 2018 to 2019", MAINTENANCE),
        ("Maintenance revenue decreased by 450 thousand from 2018 to 2019", MAINTENANCE),
    ],
)
def test_rejects_a_wrong_direction_or_figure_of_a_plain_change(
    text: str, spans: list[SpanFacts]
) -> None:
    assert _status(text, spans) is Status.REJECTED
    outcome, reason, detail = _computation(text, spans)
    assert (outcome, reason) == (Outcome.FAIL, "recompute_mismatch")
    assert "nearest" in detail


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("Gross margin declined 2.9 basis points year-over-year.", "a change in percentage points"),
        ("Gross margin declined 290 percentage points year-over-year.", "a change in basis points"),
        ("Gross margin declined 290 points year-over-year.", "a change in basis points"),
        ("Gross margin declined 6.4 percentage points year-over-year.", "a relative change"),
    ],
)
def test_rejects_a_change_stated_in_the_wrong_unit(text: str, unit: str) -> None:
    assert _status(text, MARGIN) is Status.REJECTED
    outcome, reason, detail = _computation(text, MARGIN)
    assert (outcome, reason) == (Outcome.FAIL, "unit_mismatch")
    assert f"the cited figures give it as {unit}" in detail


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("Gross margin declined -2.9 percentage points year-over-year.", MARGIN),
        ("Maintenance revenue decreased by -45 thousand from 2018 to 2019", MAINTENANCE),
    ],
)
def test_leaves_a_double_negative_unverified(text: str, spans: list[SpanFacts]) -> None:
    assert _status(text, spans) is Status.UNVERIFIED
    outcome, reason, detail = _computation(text, spans)
    assert (outcome, reason) == (Outcome.SKIP, "sign_conflict")
    assert "direction word says down" in detail


def test_reads_a_negative_figure_after_an_upward_word_as_written() -> None:
    text = "The percentage increase in Maintenance revenue from 2018 to 2019 is -8.49%."
    assert _computation(text, MAINTENANCE)[:2] == (Outcome.PASS, "recomputed")
    flipped = "The percentage increase in Maintenance revenue from 2018 to 2019 is 8.49%."
    assert _status(flipped, MAINTENANCE) is not Status.VERIFIED


def test_takes_the_sign_of_the_one_direction_a_question_names() -> None:
    # "decrease ...: 45" verifies (above); the same figure under "increase" is rejected.
    text = "How much did Maintenance revenue increase from 2018 to 2019: 45 thousand."
    assert _status(text, MAINTENANCE) is Status.REJECTED
    outcome, reason, detail = _computation(text, MAINTENANCE)
    assert (outcome, reason) == (Outcome.FAIL, "recompute_mismatch")
    assert "gives 45; nearest 485 [2019] - 530 [2018] = -45" in detail


def test_orders_no_figures_of_a_sentence_that_does_not_say_from_and_to() -> None:
    spans = [span("s", "Revenue was $4.0 million and then $4.5 million in 2023.")]
    outcome, reason, _ = _computation("Revenue rose by $0.5 million in 2023.", spans)
    assert (outcome, reason) == (Outcome.SKIP, "not_reproduced")


def test_does_not_read_a_points_claim_as_a_relative_change() -> None:
    # 45.2% -> 42.3% is a relative change of -6.4%; "6.4 points" is not that change.
    outcome, reason, _ = _computation("Gross margin fell by 6.4 points year-over-year.", MARGIN)
    assert (outcome, reason) == (Outcome.FAIL, "unit_mismatch")


ALLOWANCE = [
    span("a19", "$(238)", "Receivables \u2014 Allowance for losses, December 31, 2019: $(238)"),
    span("a18", "$(168)", "Receivables \u2014 Allowance for losses, December 31, 2018: $(168)"),
]


def test_verifies_the_percent_change_of_two_bracketed_figures_as_a_change_of_magnitudes() -> None:
    text = "The percentage change in the allowance for losses from 2018 to 2019 is 41.67%."
    outcome, reason, detail = _computation(text, ALLOWANCE)
    assert (outcome, reason) == (Outcome.PASS, "recomputed")
    assert "(238) [2019-12-31] / (168) [2018-12-31] - 1 = 41.6667" in detail


def test_leaves_the_sign_flip_of_a_bracketed_percent_change_unverified() -> None:
    text = "The percentage change in the allowance for losses from 2018 to 2019 is -41.67%."
    outcome, reason, _ = _computation(text, ALLOWANCE)
    assert (outcome, reason) == (Outcome.SKIP, "sign_ambiguous")


@pytest.mark.parametrize("word", ["much", "many"])
def test_a_question_word_of_amount_does_not_fail_support(word: str) -> None:
    text = f"How {word} did Maintenance revenue decrease from 2018 to 2019: 45 thousand."
    draft = claim(text, "m18", "m19", type=C)
    verdict = judge(draft, {s.span_id: s for s in MAINTENANCE})
    support = next(c for c in verdict.checks if c.check == "support")
    assert support.outcome is Outcome.PASS


@pytest.mark.parametrize(
    "text",
    [
        "What was the change in Maintenance revenue from 2018 to 2019: 45 thousand.",
        "What was the change in Maintenance revenue from 2018 to 2019: -450 thousand.",
        "What is the percentage change in Maintenance revenue from 2018 to 2019: -8.75%.",
    ],
)
def test_rejects_a_wrong_answer_to_a_question_that_names_its_operation(text: str) -> None:
    assert _status(text, MAINTENANCE) is Status.REJECTED
    outcome, reason, detail = _computation(text, MAINTENANCE)
    assert (outcome, reason) == (Outcome.FAIL, "recompute_mismatch")
    assert "nearest" in detail


def test_leaves_a_wrong_answer_unverified_when_the_question_names_the_operation_late() -> None:
    text = "What was the revenue of the maintenance line, as a change from 2018 to 2019: 45."
    outcome, reason, _ = _computation(text, MAINTENANCE)
    assert (outcome, reason) == (Outcome.SKIP, "not_reproduced")


def test_documents_the_unit_and_sign_reasons_with_their_outcomes() -> None:
    assert REASONS[("computation", "unit_mismatch")].outcome is Outcome.FAIL
    assert REASONS[("computation", "sign_conflict")].outcome is Outcome.SKIP


def test_reads_no_direction_into_an_average_whose_claim_says_down() -> None:
    text = "The average Maintenance revenue, broken down by year, in 2018 and 2019 is 507.5."
    assert _computation(text, MAINTENANCE)[:2] == (Outcome.PASS, "recomputed")


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 9999),
    st.integers(1, 9999),
    st.sampled_from(["", "$", "%"]),
    st.sampled_from(["rose by", "fell by", "changed by", "increased", "declined"]),
)
def test_never_recomputes_a_from_to_change_and_its_sign_flip(
    old: int, new: int, unit: str, verb: str
) -> None:
    def written(n: float) -> str:
        return f"${n:g}" if unit == "$" else f"{n:g}%" if unit == "%" else f"{n:g}"

    spans = [span("s", f"Sales went from {written(old)} to {written(new)} in 2023.")]
    change = new - old
    if change == 0:
        return
    recomputed = [
        _computation(f"Sales {verb} {written(value)} in 2023.", spans)[1] == "recomputed"
        for value in (change, -change)
    ]
    assert not all(recomputed)


DOLLARS = "Revenue rose from $4.0 million in 2022 to $4.5 million in 2023."


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("Revenue rose by \u20ac0.5 million in 2023.", DOLLARS),
        ("Revenue rose by \u00a30.5 million in 2023.", DOLLARS),
        ("Revenue rose by 0.5 million euros in 2023.", DOLLARS),
        ("Revenue rose by $0.5 million in 2023.", DOLLARS.replace("$", "\u20ac")),
        ("The average revenue of 2022 and 2023 is \u20ac4.25 million.", DOLLARS),
    ],
)
def test_does_not_recompute_an_amount_in_another_currency_than_its_figures(
    text: str, cited: str
) -> None:
    result, _ = check_computation(text, ClaimType.COMPUTATIONAL, [span("s0", cited)])
    assert result.reason != "recomputed"


@pytest.mark.parametrize(
    "text",
    [
        "Revenue rose by $0.5 million in 2023.",
        "Revenue rose by 500 thousand dollars in 2023.",
        "Revenue rose by 12.5% in 2023.",
    ],
)
def test_recomputes_an_amount_in_the_currency_of_its_figures_or_a_percentage(text: str) -> None:
    result, _ = check_computation(text, ClaimType.COMPUTATIONAL, [span("s0", DOLLARS)])
    assert result.reason == "recomputed"
