"""Words a claim may not leave out under a negation it shares with the span
(:mod:`ledger.gate.narrowing.scope`).

Under a negation the words that follow it narrow what is denied; a claim that drops one denies
more than its span and is not supported (``support_scope_narrowed``, unverified). Each span
below is true and each claim drops something after the span's negation; the span's verbatim
quote still verifies, and so do claims that drop words elsewhere.
"""

from __future__ import annotations

import pytest

from ledger.gate import Outcome, Status
from tests.unit.gate._facts import judged


def _assert_narrowed(claim: str, span: str) -> None:
    """The claim over the span is unverified, its support failing ``support_scope_narrowed``."""
    verdict = judged(claim, span)
    support = next(c for c in verdict.checks if c.check == "support")
    assert verdict.status is Status.UNVERIFIED
    assert (support.outcome, support.reason) == (Outcome.FAIL, "support_scope_narrowed")


NARROWED = [
    ("The trial reported no serious side effects.", "The trial reported no side effects."),
    ("The company did not fully recover its losses.", "The company did not recover its losses."),
    ("Sales did not significantly change in 2023.", "Sales did not change in 2023."),
    ("The CEO never publicly criticised the board.", "The CEO never criticised the board."),
    ("There was no major outage last quarter.", "There was no outage last quarter."),
    (
        "The drug is not approved for use in children under five.",
        "The drug is not approved for use in children.",
    ),
    (
        "The board did not approve the merger in its current form.",
        "The board did not approve the merger.",
    ),
    ("We found no evidence of fraud in the audited accounts.", "We found no evidence of fraud."),
    ("Nobody on the team objected to the new schedule.", "Nobody objected to the new schedule."),
    ("The company has not paid a dividend since 2019.", "The company has not paid a dividend."),
    ("The shipment was not delivered on time.", "The shipment was not delivered."),
    ("Revenue did not grow as fast as expected.", "Revenue did not grow."),
    (
        "The vendor is not required to refund the full fee.",
        "The vendor is not required to refund the fee.",
    ),
    ("No customers in Europe were affected.", "No customers were affected."),
    ("None of the new stores were profitable.", "None of the stores were profitable."),
    ("The bank failed to meet its full-year target.", "The bank failed to meet its target."),
    ("He would not cooperate with them.", "He would not cooperate."),
    ("The treaty had no teeth in it.", "The treaty had no teeth."),
]


@pytest.mark.parametrize(("span", "claim"), NARROWED)
def test_a_claim_that_drops_words_after_a_shared_negation_is_unverified(
    span: str, claim: str
) -> None:
    _assert_narrowed(claim, span)


@pytest.mark.parametrize("span", [span for span, _ in NARROWED])
def test_the_verbatim_quote_of_each_span_still_verifies(span: str) -> None:
    assert judged(span, span).status is Status.VERIFIED


@pytest.mark.parametrize(
    ("span", "claim"),
    [
        # Words dropped outside the negation's clause, or before the negation.
        (
            "Sales rose 4% in 2023, but margins did not improve in the second half.",
            "Sales rose in 2023.",
        ),
        ("The audited firm did not report a loss.", "The firm did not report a loss."),
        # Cues that set a part aside rather than deny the rest of their clause.
        (
            "Revenue excluding acquisitions rose 5% in 2023.",
            "Revenue excluding acquisitions rose in 2023.",
        ),
        ("The non-binding offer was made in March 2024.", "The non-binding offer was made."),
        # Nothing left out; the same words in two claim clauses over one span clause.
        ("The firm did not report a loss.", "The firm did not report a loss."),
        (
            "The index is relative to the start of the sequence, without copying any data and "
            "with the returned index checked.",
            "The index is relative to the start of the sequence, without copying any data and "
            "with the returned index checked.",
        ),
        ("Not only did sales rise, margins held.", "Sales did rise."),
    ],
)
def test_words_dropped_elsewhere_still_verify(span: str, claim: str) -> None:
    assert judged(claim, span).status is Status.VERIFIED


def test_the_detail_names_the_words_left_out_and_the_negation() -> None:
    verdict = judged(
        "The trial reported no side effects.", "The trial reported no serious side effects."
    )
    support = next(c for c in verdict.checks if c.check == "support")

    assert "'serious'" in support.detail
    assert "after 'no'" in support.detail


def test_adding_words_under_the_negation_is_no_narrowing_but_must_align() -> None:
    verdict = judged(
        "The trial reported no serious side effects.", "The trial reported no side effects."
    )
    support = next(c for c in verdict.checks if c.check == "support")

    assert verdict.status is Status.UNVERIFIED
    assert support.reason == "support_unaligned"


@pytest.mark.parametrize(
    ("span", "claim"),
    [
        (
            "The pilot cut wait times for most patients.",
            "The pilot cut wait times for patients.",
        ),
        ("Some analysts expect a rebound in 2024.", "Analysts expect a rebound in 2024."),
        ("Many customers renewed their contracts.", "Customers renewed their contracts."),
        ("Several banks raised their rates.", "Banks raised their rates."),
        ("A few plans include dental cover.", "Plans include dental cover."),
        (
            "The jolt caused many slips and a few spills.",
            "The jolt caused slips and a few spills.",
        ),
    ],
)
def test_a_claim_that_says_of_all_what_the_span_says_of_some_is_unverified(
    span: str, claim: str
) -> None:
    _assert_narrowed(claim, span)
    assert judged(span, span).status is Status.VERIFIED


@pytest.mark.parametrize(
    ("span", "claim"),
    [
        ("It was the most popular resort in 2023.", "It was the popular resort in 2023."),
        ("The fund lost at most 5% in 2023.", "The fund lost at most 5% in 2023."),
        ("Most analysts expect a rebound.", "Most analysts expect a rebound."),
    ],
)
def test_a_superlative_a_bound_or_a_kept_quantifier_is_no_dropped_quantifier(
    span: str, claim: str
) -> None:
    support = next(c for c in judged(claim, span).checks if c.check == "support")
    assert support.reason != "support_scope_narrowed"


@pytest.mark.parametrize(
    ("span", "claim"),
    [
        (
            "The witness cannot be trusted while he is under oath elsewhere.",
            "The witness cannot be trusted.",
        ),
        (
            "He had no objection to drinking but they left early for Europe.",
            "He had no objection to drinking.",
        ),
    ],
)
def test_a_subordinating_conjunction_ends_the_scope_of_a_negation(span: str, claim: str) -> None:
    assert judged(claim, span).status is Status.VERIFIED


def test_and_or_continue_the_scope_of_a_negation() -> None:
    span = "Vic did not appear on any albums or compilations from 1991 to 2000."
    claim = "Vic did not appear on any albums or compilations."
    assert judged(claim, span).status is Status.UNVERIFIED


@pytest.mark.parametrize(
    ("span", "claim"),
    [
        (
            "The loop runs without blocking other coroutines while waiting for queries.",
            "The loop runs without blocking other coroutines while waiting.",
        ),
        (
            "The driver did not stop while crossing the border at night.",
            "The driver did not stop while crossing.",
        ),
    ],
)
def test_while_before_a_gerund_keeps_the_scope_of_a_negation(span: str, claim: str) -> None:
    _assert_narrowed(claim, span)
    assert judged(span, span).status is Status.VERIFIED


@pytest.mark.parametrize(
    ("span", "claim"),
    [
        ("European revenue rose 5% in 2023.", "Revenue rose 5% in 2023."),
        ("Online revenue rose 5% in 2023.", "Revenue rose 5% in 2023."),
        ("Quarterly revenue rose 5% in 2023.", "Revenue rose 5% in 2023."),
        ("Net product revenue rose 5% in 2023.", "Net revenue rose 5% in 2023."),
        ("Revenue in Europe rose 5% in 2023.", "Revenue rose 5% in 2023."),
        ("Revenue per customer rose 5% in 2023.", "Revenue rose 5% in 2023."),
        (
            "Automotive revenue from leasing declined 2.2% in 2023.",
            "Automotive revenue declined 2.2% in 2023.",
        ),
    ],
)
def test_a_figure_whose_measure_the_span_narrows_and_the_claim_does_not_is_unverified(
    span: str, claim: str
) -> None:
    _assert_narrowed(claim, span)
    assert judged(span, span).status is Status.VERIFIED


@pytest.mark.parametrize(
    ("span", "claim"),
    [
        ("The company's revenue rose 5% in 2023.", "Revenue rose 5% in 2023."),
        ("Our total revenue rose 5% in 2023.", "Total revenue rose 5% in 2023."),
        ("Revenue sharply rose 5% in 2023.", "Revenue rose 5% in 2023."),
        ("In 2023, revenue rose 5%.", "Revenue rose 5% in 2023."),
        ("European revenue rose in 2023.", "Revenue rose in 2023."),
    ],
)
def test_a_figure_keeps_its_measure_when_only_grammar_an_owner_or_a_manner_is_dropped(
    span: str, claim: str
) -> None:
    assert judged(claim, span).status is Status.VERIFIED, judged(claim, span).checks


@pytest.mark.parametrize(
    ("span", "claim"),
    [
        ("Revenue rose 5% in Europe.", "Revenue rose 5%."),
        ("Revenue rose 5% in Europe in 2023.", "Revenue rose 5% in 2023."),
        ("Revenue rose 5% in constant currency in 2023.", "Revenue rose 5% in 2023."),
        ("Sales rose 12% among younger customers.", "Sales rose 12%."),
        ("Sales rose 12% at our flagship stores.", "Sales rose 12%."),
        ("Gross margin for the services segment was 41%.", "Gross margin was 41%."),
        ("Churn among small businesses was 2.1% in 2023.", "Churn was 2.1% in 2023."),
    ],
)
def test_a_figure_the_span_restricts_after_it_is_unverified_without_the_restriction(
    span: str, claim: str
) -> None:
    _assert_narrowed(claim, span)
    assert judged(span, span).status is Status.VERIFIED


@pytest.mark.parametrize(
    ("span", "claim"),
    [
        ("Revenue rose 5% in 2023.", "Revenue rose 5%."),
        ("Revenue rose 5%, in line with guidance.", "Revenue rose 5%."),
        ("Revenue rose 5% to $4.5 million.", "Revenue rose 5%."),
        ("Revenue rose 5% on higher prices.", "Revenue rose 5%."),
        ("Revenue rose 5% in total.", "Revenue rose 5%."),
        ("The plane landed in Paris after 9 hours in the air.", "The plane landed in Paris."),
        ("Revenue rose to a record $4.5 million.", "Revenue rose to $4.5 million."),
        ("Revenue rose in 2023 to $4.5 million.", "Revenue rose to $4.5 million."),
    ],
)
def test_a_figure_keeps_its_measure_when_what_follows_it_is_no_restriction(
    span: str, claim: str
) -> None:
    assert judged(claim, span).status is Status.VERIFIED, judged(claim, span).checks


@pytest.mark.parametrize(
    ("span", "claim"),
    [
        ("Revenue declined 2.2% quarter-on-quarter in 2023.", "Revenue declined 2.2% in 2023."),
        (
            "The decrease to diluted earnings per share of $1.75 was recorded in 2018.",
            "The decrease to diluted earnings of $1.75 was recorded in 2018.",
        ),
    ],
)
def test_a_figure_does_not_drop_a_word_between_its_subject_and_its_last_aligned_word(
    span: str, claim: str
) -> None:
    # A comparison basis after the figure, or a ``per share`` before it, says what the figure
    # is of as much as a word before its subject does.
    _assert_narrowed(claim, span)
