"""``rejected`` means the citation contradicts the claim; what the alignment cannot establish
either way is ``unverified``.

A disagreement (a negation, hedge, opposite or anchor of the same role with another value) is
a contradiction only where the claim clause aligns around it: every other word of the clause
that must align does. An anchor the spans lack rejects only where the rest of the claim
aligns (it is absent where the claim says it). A computational claim is rejected by its
arithmetic, never by the window its polarity is read over. A permission modal (``can``,
``is allowed to``) keeps the span's ``may``.
"""

from __future__ import annotations

import pytest

from ledger.gate import ClaimType, Outcome, Status, judge
from tests.unit.gate._facts import claim, judged, result, span

POLICY = "Employees may work remotely up to three days per week."


@pytest.mark.parametrize(
    "claimed",
    [
        "Employees can work remotely up to three days per week.",
        "Employees are allowed to work remotely up to three days per week.",
        "Employees are permitted to work remotely up to three days per week.",
        "Employees may work remotely up to three days per week.",
    ],
)
def test_verifies_a_permission_restated_with_another_modal(claimed: str) -> None:
    assert judged(claimed, POLICY).status is Status.VERIFIED


def test_rejects_a_permission_stated_as_what_happens() -> None:
    verdict = judged("Employees work remotely up to three days per week.", POLICY)
    assert verdict.status is Status.REJECTED
    assert result(verdict, "polarity")[:2] == (Outcome.FAIL, "hedge_mismatch")


@pytest.mark.parametrize(
    ("claimed", "reason"),
    [
        ("The board did not approve the merger.", "negation_mismatch"),
        ("The board rejected the merger.", "direction_mismatch"),
    ],
)
def test_rejects_a_disagreement_where_the_rest_of_the_clause_aligns(
    claimed: str, reason: str
) -> None:
    verdict = judged(claimed, "The board approved the merger.")
    assert verdict.status is Status.REJECTED
    assert result(verdict, "polarity")[:2] == (Outcome.FAIL, reason)


@pytest.mark.parametrize(
    "claimed",
    [
        "The board did not approve the merger with the rival bank.",
        "The audit board rejected the merger.",
        "Revenue from new customers fell in 2023.",
    ],
)
def test_leaves_a_disagreement_unverified_where_other_words_do_not_align(claimed: str) -> None:
    cited = (
        "Revenue rose in 2023."
        if claimed.startswith("Revenue")
        else "The board approved the merger."
    )
    verdict = judged(claimed, cited)
    assert verdict.status is Status.UNVERIFIED
    outcome, reason, detail = result(verdict, "polarity")
    assert (outcome, reason) == (Outcome.SKIP, "mismatch_unaligned")
    assert "no contradiction is established" in detail


def test_rejects_an_anchor_absent_where_the_rest_of_the_claim_aligns() -> None:
    verdict = judged("Revenue rose 5% in 2023.", "Revenue rose in 2023.")
    assert verdict.status is Status.REJECTED
    assert result(verdict, "anchors")[:2] == (Outcome.FAIL, "anchor_missing")


def test_leaves_an_anchor_unverified_where_the_claim_does_not_align_around_it() -> None:
    verdict = judged("Revenue from new customers rose 5% in 2023.", "Revenue rose in 2023.")
    assert verdict.status is Status.UNVERIFIED
    outcome, reason, detail = result(verdict, "anchors")
    assert (outcome, reason) == (Outcome.SKIP, "anchor_unaligned")
    assert "number '5%'" in detail


def test_rejects_an_anchor_of_the_same_role_with_another_value() -> None:
    verdict = judged("Revenue rose 4% in 2023.", "Revenue rose 5% in 2023.")
    assert verdict.status is Status.REJECTED


def test_a_conjunction_swapped_after_a_clause_that_does_not_align_is_not_established() -> None:
    cited = "Pat suggests emailing Jessica from HR or submitting via their website."
    joined = "Pat suggests emailing Jessica from finance and submitting via their website."
    verdict = judged(joined, cited)
    assert verdict.status is Status.UNVERIFIED
    assert result(verdict, "polarity")[1] == "mismatch_unaligned"
    swapped = "Pat suggests emailing Jessica from HR and submitting via their website."
    assert judged(swapped, cited).status is Status.REJECTED


def test_a_conjunction_of_the_span_joining_words_of_its_own_is_no_opposite() -> None:
    cited = "Pat: I emailed Jessica from HR and she said you can either submit via their website."
    verdict = judged("Pat emailed Jessica from HR or submitted via their website.", cited)
    assert verdict.status is not Status.REJECTED


def test_never_rejects_a_computational_claim_for_a_year_its_cells_lack() -> None:
    cells = {
        "a": span("a", "44.1", "Sales (in millions) \u2014 Other, 2019: 44.1"),
        "b": span("b", "56.7", "Sales (in millions) \u2014 Other, 2018: 56.7"),
    }
    text = "Other sales fell by 12.6 million from 2017 to 2019."
    verdict = judge(claim(text, "a", "b", type=ClaimType.COMPUTATIONAL), cells)
    assert verdict.status is Status.UNVERIFIED
    assert result(verdict, "anchors")[1] == "anchor_unaligned"
