"""Alignment: each clause of a factual claim judged at its aligned positions in one span.

The cases are the failure examples of the gate's redesign: verbatim quotes once rejected,
polarity matched anywhere in the span, direction, role and anchor words swapped.
"""

from __future__ import annotations

import pytest

from ledger.gate import REASONS, Outcome, Status
from ledger.gate.lexicon.opposites import are_opposites, wordnet_loaded
from ledger.gate.lexicon.words import stem
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


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        (
            "For example, whether gratis or for a fee, you must give the recipients all the "
            "rights.",
            "For example, if you distribute copies of such a program, whether gratis or for a "
            "fee, you must give the recipients all the rights.",
        ),
        (
            "Analysts may disagree about whether sales rose.",
            "Analysts may disagree, if asked, about whether sales rose.",
        ),
    ],
)
def test_a_hedge_the_span_also_writes_does_not_cover_a_condition_the_claim_drops(
    claimed: str, cited: str
) -> None:
    verdict = _judge(claimed, cited)
    assert verdict.status is Status.REJECTED
    assert _result(verdict, "polarity")[:2] == (Outcome.FAIL, "hedge_mismatch")
    assert _judge(cited, cited).status is Status.VERIFIED


def test_a_hedge_of_the_claims_own_still_covers_a_hedged_span() -> None:
    verdict = _judge("Revenue may rise next year.", "Revenue will probably rise next year.")
    assert verdict.status is Status.VERIFIED, verdict.checks


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
