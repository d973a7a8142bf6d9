"""Clause structure: which span words a claim clause is read against.

A claim and its spans are cut into clauses; a claim clause is read over its span clause only.
These cases pin where that reading starts and stops: clauses of one claim over several spans
and over one span clause, conjuncts joined or left out whole, the word a span may insert
between neighbours, clauses cut at ``, so``, a condition opening a sentence, ends and
exceptions inside an earlier conjunct, subordinate and fronted phrases, and phrases set off by
commas that keep their negation to themselves.
"""

from __future__ import annotations

import pytest

from ledger.gate import Outcome, Status
from ledger.gate.factual import align_claim
from tests.unit.gate._facts import judged as _judge


def test_splits_a_claim_into_clauses_each_aligned_to_its_own_span() -> None:
    result = align_claim(
        "Revenue rose 5% and margins held at 40%.",
        ["Revenue rose 5% in 2023.", "Margins held at 40% despite costs."],
    )
    assert result.support is not None
    assert (result.support.outcome, result.support.reason) == (Outcome.PASS, "support_aligned")
    assert result.polarity.reason == "polarity_agrees"


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        (
            "The proposal was rejected by the board.",
            "The proposal was rejected by the committee and later approved by the board.",
        ),
        (
            "We saw strong growth in licenses.",
            "We saw strong growth in cloud and modest growth in licenses.",
        ),
        (
            "She studied law at Harvard.",
            "She studied law at Yale and economics at Harvard.",
        ),
        (
            "The committee approved the plan.",
            "The committee approved the budget and the board approved the plan.",
        ),
    ],
)
def test_does_not_join_the_start_of_one_conjunct_to_the_end_of_the_next(
    claim: str, span: str
) -> None:
    assert _judge(claim, span).status is not Status.VERIFIED
    assert _judge(span, span).status is Status.VERIFIED


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("Revenue rose in 2023.", "Revenue and profit rose in 2023."),
        ("Sales of cars rose.", "Sales of cars and trucks rose."),
        ("Revenue rose in Asia.", "Revenue rose in Europe and in Asia."),
        ("Shares of Google fell.", "Shares of Apple rose and shares of Google fell."),
    ],
)
def test_verifies_a_claim_that_leaves_out_a_conjunct_whole(claim: str, span: str) -> None:
    assert _judge(claim, span).status is Status.VERIFIED


def test_the_one_word_between_neighbours_may_not_be_a_count() -> None:
    span = "The study included 120 participants, of whom 80 completed the trial."
    assert _judge("120 participants completed the trial.", span).status is not Status.VERIFIED
    assert _judge("120 participants of whom 80 completed the trial.", span).status is (
        Status.VERIFIED
    )
    assert _judge("Revenue rose 5%.", "Revenue in 2023 rose 5%.").status is Status.VERIFIED


def test_a_later_clause_does_not_read_again_what_an_earlier_clause_matched() -> None:
    # The claim is cut before ``though`` (a conjunction to it; a typo for ``through``), the
    # span is not: the second claim clause's leading stretch starts after the first's match.
    text = "New entrants to the country must go though immigration procedures."
    assert _judge(text, text).status is Status.VERIFIED
    assert _judge("New entrants go though immigration procedures.", text).status is not (
        Status.VERIFIED
    )


def test_a_clause_after_a_comma_and_so_is_its_own() -> None:
    span = "Sales did not rise, so we cut costs."
    assert _judge("We cut costs.", span).status is Status.VERIFIED
    assert _judge(span, span).status is Status.VERIFIED
    degree = "The results were not so different."
    assert _judge(degree, degree).status is Status.VERIFIED


@pytest.mark.parametrize(
    "claim",
    [
        "The buyer gets a voucher.",
        "The fee is waived, and the buyer gets a voucher.",
        "The fee is waived.",
    ],
)
def test_a_condition_opening_the_sentence_governs_each_of_its_clauses(claim: str) -> None:
    span = "If the order ships late, the fee is waived, and the buyer gets a voucher."
    verdict = _judge(claim, span)
    polarity = next(c for c in verdict.checks if c.check == "polarity")
    assert verdict.status is Status.REJECTED
    assert polarity.reason == "hedge_mismatch"
    assert _judge(span, span).status is Status.VERIFIED


def test_a_concession_opening_the_sentence_governs_nothing() -> None:
    span = "Even if the order ships late, the fee is kept, and the buyer pays in full."
    assert _judge("The buyer pays in full.", span).status is Status.VERIFIED


@pytest.mark.parametrize(
    ("claim", "span", "verified"),
    [
        ("Demand fell in April.", "Prices rose until March and demand fell in April.", True),
        ("Sales rose in Asia.", "Costs fell except in Europe and sales rose in Asia.", True),
        ("We cut output.", "If prices rise and demand falls, we cut output.", False),
        ("X is the largest bank.", "Until 2020 and 2021, X was the largest bank.", False),
        ("Sales rose.", "Sales rose, except in Europe and Asia.", False),
    ],
)
def test_an_end_or_exception_inside_an_earlier_conjunct_limits_only_that_conjunct(
    claim: str, span: str, verified: bool
) -> None:
    assert (_judge(claim, span).status is Status.VERIFIED) is verified


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("Demand was weak.", "The firm did not raise prices because demand was weak."),
        ("Demand was weak.", "The firm did not raise prices when demand was weak."),
    ],
)
def test_a_clause_after_because_or_when_does_not_read_the_main_clauses_negation(
    claim: str, span: str
) -> None:
    assert _judge(claim, span).status is Status.VERIFIED


def test_a_cause_swapped_for_a_concession_is_still_read_at_the_subordinator() -> None:
    span = "The firm raised prices because demand was strong."
    claim = "The firm raised prices although demand was strong."
    assert _judge(claim, span).status is Status.REJECTED


@pytest.mark.parametrize(
    ("claim", "span", "verified"),
    [
        # A relative clause or a contrast set off by commas, left out whole: its negation
        # is its own.
        (
            "The company reported record profits in 2023.",
            "The company, which has never paid a dividend, reported record profits in 2023.",
            True,
        ),
        (
            "The CEO voted for the plan.",
            "The CEO, who is not a shareholder, voted for the plan.",
            True,
        ),
        ("The board approved the deal.", "The board, not the CEO, approved the deal.", True),
        (
            "The firm did not raise prices.",
            "The firm, which did not raise prices, lost share.",
            True,
        ),
        # What the phrase says is still read where the claim says it.
        ("The CEO approved the deal.", "The board, not the CEO, approved the deal.", False),
        (
            "The CEO is a shareholder.",
            "The CEO, who is not a shareholder, voted for the plan.",
            False,
        ),
        ("The firm raised prices.", "The firm did not, as expected, raise prices.", False),
        # Not a phrase the claim may drop: an exception, or a condition reaching past it.
        ("Sales rose 5%.", "Sales, excluding one-offs, rose 5%.", False),
        (
            "Credits, which, begin to expire after 2031.",
            "Credits, which if not utilized, begin to expire after 2031.",
            False,
        ),
        # A fronted phrase ends at its comma.
        (
            "The campaign raised $2 million.",
            "Despite not meeting its goal, the campaign raised $2 million.",
            True,
        ),
        (
            "It confirmed the price of $40 million.",
            "While the report did not name the buyer, it confirmed the price of $40 million.",
            True,
        ),
    ],
)
def test_a_phrase_set_off_by_commas_keeps_its_negation_to_itself(
    claim: str, span: str, verified: bool
) -> None:
    assert (_judge(claim, span).status is Status.VERIFIED) is verified


@pytest.mark.parametrize("joiner", ["but excluding", "but except", "and excluding"])
def test_an_exception_after_but_or_and_limits_the_clause_before_it(joiner: str) -> None:
    span = (
        "The Code means the object code for the Application, including any data needed for "
        f"reproducing the Work, {joiner} the System Libraries of the Work."
    )
    claim = (
        "The Code means the object code for the Application, including any data needed for "
        "reproducing the Work."
    )
    assert _judge(claim, span).status is not Status.VERIFIED
    assert _judge(span, span).status is Status.VERIFIED


def test_a_clause_after_but_is_still_its_own() -> None:
    span = "Sales rose in Europe, but profits fell in Asia."
    assert _judge("Sales rose in Europe.", span).status is Status.VERIFIED
    assert _judge("Profits fell in Asia.", span).status is Status.VERIFIED


def test_an_exception_set_off_by_commas_after_and_is_an_aside_on_what_follows() -> None:
    span = (
        'The valid characters are the letters "A" through "Z", the underscore "_" and, except '
        'for the first character, the digits "0" through "9".'
    )
    assert _judge(span, span).status is Status.VERIFIED
