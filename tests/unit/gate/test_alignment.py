"""Alignment: each clause of a factual claim judged at its aligned positions in one span.

The cases are the failure examples of the gate's redesign: verbatim quotes once rejected,
polarity matched anywhere in the span, direction, role and anchor words swapped.
"""

from __future__ import annotations

import pytest

from ledger.gate import REASONS, Outcome, Status
from ledger.gate._lexicon import are_opposites, wordnet_loaded
from ledger.gate._words import stem
from ledger.gate.alignment import align_claim
from tests.unit.gate._facts import judged as _judge
from tests.unit.gate._facts import rejection as _rejection
from tests.unit.gate._facts import result as _result

# -- 1. verbatim quotes are verified -----------------------------------------------------------

VERBATIM = (
    "Not only did sales rise, margins held.",
    "The firm was ranked No. 1 in the region for the third year.",
    "Buyers can move in with no down payment and a fixed rate.",
    "Whoever made the decision to go with the computer font at Casterman cannot, in my "
    "opinion, possibly love Tintin, and whoever does not love Tintin should be in no position "
    "to make such a decision.",
    "More than 30 million Americans have diabetes, and another 84 million US adults have "
    "prediabetes, a condition in which blood sugar levels are higher than normal but not high "
    "enough yet to be diagnosed as type 2 diabetes, a figure that has not changed since the "
    "last survey, which was carried out in March 2019 across every state.",
    "Actuarial gains and losses are taken to the statement of comprehensive income.",
    "Don't drill here, there's a gas pipe.",
    "If the object contains references to other objects, these other objects may be mutable "
    "and may be changed; however, the collection of objects directly referenced by an "
    "immutable object cannot change.",
    "She told him that his offer was not binding.",
    "He warned her not to sign the lease.",
)


@pytest.mark.parametrize("text", VERBATIM)
def test_verifies_a_verbatim_quote_of_its_span(text: str) -> None:
    verdict = _judge(text, text, quote=text)
    assert verdict.status is Status.VERIFIED, verdict.checks
    assert _result(verdict, "support")[:2] == (Outcome.PASS, "support_aligned")
    assert _result(verdict, "polarity")[:2] == (Outcome.PASS, "polarity_agrees")


def test_verifies_a_claim_that_shares_no_down_payment_with_its_span() -> None:
    verdict = _judge(
        "The plan offers a loan with no down payment to first-time buyers.",
        "Since 2020 the plan offers a loan with no down payment to first-time buyers.",
    )
    assert verdict.status is Status.VERIFIED


def test_verifies_a_claim_whose_time_phrase_moved_to_the_other_end() -> None:
    verdict = _judge(
        "Automotive revenue declined 2.2% in Q3 2023.",
        "In Q3 2023, automotive revenue declined 2.2%.",
    )
    assert verdict.status is Status.VERIFIED


# -- 2. polarity is read where the claim aligns ------------------------------------------------


def test_rejects_a_negated_claim_whose_span_has_an_unrelated_not_elsewhere() -> None:
    verdict = _judge(
        "The vendor is not required to refund the fee.",
        "The vendor is required to refund the fee, and the buyer may not resell the goods.",
    )
    assert verdict.status is Status.REJECTED
    outcome, reason, detail = _result(verdict, "polarity")
    assert (outcome, reason) == (Outcome.FAIL, "negation_mismatch")
    assert "the claim is negated ('not')" in detail


def test_rejects_the_second_sentence_of_a_claim_that_drops_no_from_at_no_charge() -> None:
    verdict = _judge(
        "The order ships this week. It includes delivery at charge.",
        "The order ships this week.",
        "It includes delivery at no charge.",
    )
    assert verdict.status is Status.REJECTED
    outcome, reason, detail = _result(verdict, "polarity")
    assert (outcome, reason) == (Outcome.FAIL, "negation_mismatch")
    assert "the span is negated ('no')" in detail


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("The offer is binding on both parties.", "The offer is non-binding on both parties."),
        ("The gain was recurring in 2023.", "The gain was non-recurring in 2023."),
    ],
)
def test_rejects_a_claim_that_drops_the_prefix_non(claimed: str, cited: str) -> None:
    verdict = _judge(claimed, cited)
    assert verdict.status is Status.REJECTED
    outcome, reason, detail = _result(verdict, "polarity")
    assert (outcome, reason) == (Outcome.FAIL, "negation_mismatch")
    assert "'non'" in detail


def test_rejects_only_where_the_span_says_not_only() -> None:
    verdict = _judge(
        "The premiere is only an exciting way to close the season.",
        "The premiere is not only an exciting way to close the season.",
    )
    assert verdict.status is Status.REJECTED
    assert _result(verdict, "polarity")[1] == "negation_mismatch"


def test_rejects_an_unhedged_claim_whose_aligned_stretch_is_hedged() -> None:
    verdict = _judge("Revenue will rise next year.", "Revenue will probably rise next year.")
    assert verdict.status is Status.REJECTED
    assert _result(verdict, "polarity")[:2] == (Outcome.FAIL, "hedge_mismatch")


def test_follows_a_clause_with_the_span_clause_its_hedge_also_matches() -> None:
    verdict = _judge(
        "Other objects may be mutable and may be changed; however, an immutable object cannot "
        "change.",
        "Other objects may be mutable and may be changed; however, an immutable object cannot "
        "change.",
    )
    assert verdict.status is Status.VERIFIED, verdict.checks


# -- 3. direction, role and anchor words -------------------------------------------------------


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("The price closed below the cap.", "The price closed above the cap."),
        ("The market is expanding this year.", "The market is shrinking this year."),
        ("Sales rose in the second half.", "Sales fell in the second half."),
    ],
)
def test_rejects_a_direction_word_swapped_for_its_opposite(claimed: str, cited: str) -> None:
    verdict = _judge(claimed, cited)
    assert verdict.status is Status.REJECTED
    assert _result(verdict, "polarity")[:2] == (Outcome.FAIL, "direction_mismatch")


def test_does_not_verify_a_direction_word_whose_opposite_is_elsewhere_in_the_span() -> None:
    verdict = _judge(
        "Sales stayed below the target.",
        "Sales stayed above the target, while costs stayed below the budget.",
    )
    assert verdict.status is not Status.VERIFIED


def test_rejects_a_wordnet_antonym_at_the_aligned_position() -> None:
    verdict = _judge("The service is cheap for members.", "The service is expensive for members.")
    assert verdict.status is Status.REJECTED
    assert _result(verdict, "polarity")[:2] == (Outcome.FAIL, "antonym_mismatch")


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        (
            "The buyer or the seller may end the lease.",
            "The buyer and the seller may end the lease.",
        ),
        # The claim's clause begins at its ``and``: compared with the span's ``or`` there.
        (
            "The buyer and the seller may end the lease.",
            "The buyer or the seller may end the lease.",
        ),
    ],
)
def test_rejects_and_swapped_for_or(claimed: str, cited: str) -> None:
    assert _rejection(claimed, cited, "polarity")[0] == "antonym_mismatch"


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("Staff were moved to the Leeds office.", "Staff were moved from the Leeds office."),
        (
            "The loan was transferred from the bank to the fund.",
            "The loan was transferred to the bank from the fund.",
        ),
        ("The plant has been closed until 2019.", "The plant has been closed since 2019."),
    ],
)
def test_rejects_a_direction_of_movement_or_time_swapped(claimed: str, cited: str) -> None:
    assert _rejection(claimed, cited, "polarity")[0] == "antonym_mismatch"


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        # The span says both: ``to 4.5`` is what it says.
        ("Revenue rose to 4.5 million.", "Revenue rose from 4.0 million to 4.5 million."),
        # The claim's own word around the ``from``: another clause of the span, not a swap.
        (
            "Fitzpatrick graduated from Kent State in journalism.",
            "Fitzpatrick later transferred to Kent State where he majored in journalism.",
        ),
    ],
)
def test_does_not_reject_a_grammar_opposite_the_span_also_says_or_the_claim_rewords(
    claimed: str, cited: str
) -> None:
    assert _judge(claimed, cited).status is not Status.REJECTED


def test_rejects_buyer_and_seller_swapped_in_place() -> None:
    verdict = _judge(
        "The seller pays the deposit on signing.", "The buyer pays the deposit on signing."
    )
    assert verdict.status is Status.REJECTED
    assert _result(verdict, "polarity")[1] == "antonym_mismatch"


def test_does_not_verify_buyer_and_seller_swapped_in_roles() -> None:
    verdict = _judge("The buyer pays the seller a deposit.", "The seller pays the buyer a deposit.")
    assert verdict.status is not Status.VERIFIED
    outcome, reason, detail = _result(verdict, "support")
    assert (outcome, reason) == (Outcome.FAIL, "support_unaligned")
    assert "not aligned:" in detail


@pytest.mark.parametrize(
    ("claimed", "cited", "shown"),
    [
        (
            "Delivery takes three days.",
            "Delivery takes two days.",
            "'three' where the span has 'two'",
        ),
        (
            "Margins widened in the third quarter.",
            "Margins widened in the second quarter.",
            "'third' where the span has 'second'",
        ),
        ("Bookings grew in March 2023.", "Bookings grew in April 2023.", "'march'"),
        ("Revenue was 4.5 billion euros.", "Revenue was 4.5 million euros.", "'billion'"),
        (
            "Margin fell 2.9 percentage points.",
            "Margin fell 2.9 basis points.",
            "'percentage' where the span has 'basis'",
        ),
    ],
)
def test_rejects_an_anchor_that_stands_where_the_span_has_another_of_its_role(
    claimed: str, cited: str, shown: str
) -> None:
    verdict = _judge(claimed, cited)
    assert verdict.status is Status.REJECTED
    outcome, reason, detail = _result(verdict, "anchors")
    assert (outcome, reason) in {
        (Outcome.FAIL, "anchor_misaligned"),
        (Outcome.FAIL, "anchor_missing"),
    }
    if reason == "anchor_misaligned":
        assert shown in detail


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("Orders peaked in Q1 2024.", "Orders peaked in Q4 2024."),
        ("Cash rose in H1.", "Cash rose in H2."),
        ("Capex doubled in FY2023.", "Capex doubled in FY2022."),
        ("Margin fell 2.9 percentage points.", "Margin fell 2.9%."),
    ],
)
def test_does_not_verify_a_period_or_unit_the_span_does_not_have_there(
    claimed: str, cited: str
) -> None:
    assert _judge(claimed, cited).status is not Status.VERIFIED


def test_does_not_verify_a_year_that_aligns_past_another_year() -> None:
    verdict = _judge(
        "Fees billed for the 2019 fiscal year rose.",
        "Fees billed for the 2018 and 2019 fiscal years rose.",
    )
    assert verdict.status is not Status.VERIFIED


def test_does_not_let_two_clauses_reuse_one_span_word() -> None:
    verdict = _judge(
        "Actuarial losses and losses are taken to income.",
        "Actuarial gains and losses are taken to income.",
    )
    assert verdict.status is not Status.VERIFIED


def test_does_not_verify_words_taken_from_a_far_apart_stretch() -> None:
    verdict = _judge(
        "The agent discusses term insurance.",
        "The agent discusses the difference between term and whole life insurance.",
    )
    assert verdict.status is not Status.VERIFIED


@pytest.mark.parametrize(
    ("claimed", "cited", "shown"),
    [
        ("She approved the budget.", "He approved the budget.", "'she' where the span has 'he'"),
        (
            "The budget was approved by her.",
            "The budget was approved by him.",
            "'her' where the span has 'him'",
        ),
        (
            "She had his flaws, but he was great nonetheless.",
            "He had his flaws, but he was great nonetheless.",
            "'she' where the span has 'he'",
        ),
        ("I think that she is her boyfriend.", "I think that he is her boyfriend.", "'she'"),
    ],
)
def test_rejects_a_gendered_pronoun_swapped_at_its_place(
    claimed: str, cited: str, shown: str
) -> None:
    reason, detail = _rejection(claimed, cited, "anchors")
    assert reason == "anchor_misaligned"
    assert shown in detail
    assert "(person)" in detail


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        # Who ``she`` is, the span does not say.
        ("She said she approved the budget.", "She said the board approved the budget."),
        ("She returned to the gallery in 2014.", "Jan Stuart returned to the gallery in 2014."),
        ("I was offended and so was she.", "I was offended and so was he."),
    ],
)
def test_does_not_verify_a_gendered_pronoun_the_span_does_not_say(claimed: str, cited: str) -> None:
    verdict = _judge(claimed, cited)
    assert verdict.status is Status.UNVERIFIED, verdict.checks
    outcome, reason, detail = _result(verdict, "support")
    assert (outcome, reason) == (Outcome.FAIL, "support_unaligned")
    assert "not aligned: she" in detail


def test_verifies_pronouns_without_a_gender_that_a_paraphrase_changes() -> None:
    assert _judge("They approved the budget.", "We approved the budget.").status is (
        Status.VERIFIED
    )


# -- the resource and the codes ----------------------------------------------------------------


def test_loads_wordnet_antonyms_from_the_installed_distribution() -> None:
    assert wordnet_loaded()
    assert are_opposites(stem("cheap"), stem("expensive"))
    assert are_opposites(stem("buyer"), stem("seller"))
    assert not are_opposites(stem("revenue"), stem("sales"))


def test_documents_every_reason_code_alignment_gives() -> None:
    for key in (
        ("polarity", "antonym_mismatch"),
        ("anchors", "anchor_misaligned"),
        ("support", "support_aligned"),
        ("support", "support_unaligned"),
    ):
        assert key in REASONS


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
