"""How far a claim clause's first and last stretches reach (:mod:`ledger.gate.alignment.reach`): a
``not`` after the claim's last aligned word, a plan or condition the claim drops, and the
modal of a claim that does not cover a hedge of the span."""

from __future__ import annotations

import pytest

from ledger.gate import Outcome, Status
from tests.unit.gate._facts import judged as _judge
from tests.unit.gate._facts import rejection as _rejection
from tests.unit.gate._facts import result as _result


@pytest.mark.parametrize(
    ("claimed", "cited", "found"),
    [
        # A plan or forecast cited as done.
        ("The board approved the plan.", "The board will approve the plan.", "hedged ('will')"),
        ("The firm pays the fee.", "The firm said it would pay the fee.", "hedged ('would')"),
        # A condition the claim drops, wherever it stands in the span's clause (``unless`` is
        # a negation cue as well).
        (
            "The company pays a dividend.",
            "The company pays a dividend if profits rise.",
            "hedged ('if')",
        ),
        (
            "The fee is waived each year.",
            "The fee is waived each year unless the order is cancelled.",
            "negated ('unless')",
        ),
        # A condition that opens the span's clause holds for all of it.
        ("The fee is waived.", "If the order ships late, the fee is waived.", "hedged ('if')"),
        # ``Sept. 15`` ends no sentence: the condition before it opens the same clause.
        (
            "The authority would reactivate its request.",
            "If the deal is not completed by Sept. 15, the authority would reactivate its request.",
            "hedged ('if')",
        ),
        # A form of ``be`` stands for another as the claim's closing words are walked.
        ("I bet she is there.", "I bet she will be there.", "hedged ('will')"),
    ],
)
def test_rejects_a_claim_that_states_as_fact_what_its_span_plans_or_conditions(
    claimed: str, cited: str, found: str
) -> None:
    reason, detail = _rejection(claimed, cited, "polarity")
    assert reason == ("hedge_mismatch" if "hedged" in found else "negation_mismatch")
    assert f"the span is {found}" in detail


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        # The claim's own ``will`` is surer than the span's ``may``, and one it shares with
        # the span does not cover the span's ``probably``.
        ("Automotive revenue will increase.", "Automotive revenue may increase."),
        ("Revenue will rise next year.", "Revenue will probably rise next year."),
    ],
)
def test_a_modal_of_the_claim_does_not_cover_a_hedge_of_the_span(claimed: str, cited: str) -> None:
    assert _result(_judge(claimed, cited), "polarity")[:2] == (Outcome.FAIL, "hedge_mismatch")


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("The firm paid the fee.", "The firm said it would pay the fee."),
        ("Automotive revenue will increase next year.", "Automotive revenue may increase."),
    ],
)
def test_a_hedge_where_the_claim_does_not_align_whole_leaves_it_unverified(
    claimed: str, cited: str
) -> None:
    # ``paid`` is not ``pay`` to the alignment, and ``next year`` is in no span: what the
    # claim says there may be something else than the span's plan, so no contradiction is
    # established.
    verdict = _judge(claimed, cited)
    assert verdict.status is Status.UNVERIFIED
    outcome, reason, detail = _result(verdict, "polarity")
    assert (outcome, reason) == (Outcome.SKIP, "mismatch_unaligned")
    assert detail.startswith("hedge_mismatch where the claim does not align whole")


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        (
            "The company pays a dividend if profits rise.",
            "The company pays a dividend if profits rise.",
        ),
        ("Revenue rose 5%.", "Revenue rose 5%, even if costs rose."),
        ("Losses are recognised in profit.", "Losses are recognised in profit, if any."),
        # A condition of the next clause is that clause's.
        (
            "The team agreed to stay through next season.",
            "The team agreed to stay through next season and for two more if the lease "
            "is approved.",
        ),
        # A weaker claim may cite a firmer span.
        ("The board will approve the plan.", "The board approved the plan."),
        # The claim's first clause took the span clause's opening condition.
        (
            "If the order ships late and the buyer asks, the fee is waived.",
            "If the order ships late and the buyer asks, the fee is waived.",
        ),
    ],
)
def test_verifies_a_condition_or_plan_the_claim_keeps_or_never_had(
    claimed: str, cited: str
) -> None:
    assert _judge(claimed, cited).status is Status.VERIFIED


# A negation after the claim's last aligned word: covered by the claim's own closing words
# (``him to do``), or ending the span's clause (an elided predicate).
@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        (
            "He did what his supervisor had warned him to do.",
            "He did what his supervisor had warned him not to do.",
        ),
        ("Check after generation, during.", "Check after generation, not during."),
        (
            "Falling engagement is healthy; near zero within two weeks is.",
            "Falling engagement is healthy; near zero within two weeks is not.",
        ),
        (
            "I thought he owned the property, but apparently.",
            "I thought he owned the property, but apparently not.",
        ),
        ("A poet could but be gay.", "A poet could not but be gay."),
        # ``but`` and ``or`` end the span's leading margin; the claim's own first words reach
        # past them.
        (
            'The help command (but "he" or "hel", nor "H").',
            'The help command (but not "he" or "hel", nor "H").',
        ),
    ],
)
def test_rejects_a_claim_that_drops_a_not_after_its_last_aligned_word(
    claimed: str, cited: str
) -> None:
    reason, detail = _rejection(claimed, cited, "polarity")
    assert reason == "negation_mismatch"
    assert "the span is negated" in detail


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("The plan was approved.", "The plan was approved, not rejected."),
        # The claim's closing words are not in the span: what they might cover is unknown.
        (
            "Cassie suggests contacting IT if the website malfunctions.",
            "Cassie suggests contacting IT if the website is not working.",
        ),
    ],
)
def test_does_not_reject_for_a_not_the_claims_words_do_not_reach(claimed: str, cited: str) -> None:
    verdict = _judge(claimed, cited)
    assert _result(verdict, "polarity")[:2] == (Outcome.PASS, "polarity_agrees"), verdict.checks
