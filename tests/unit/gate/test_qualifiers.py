"""Span words a claim may not drop or swap: predicates governing an infinitive, negations
carried by a verb, time relations and repetition, parts, levels, exceptions, causes, ranks and
beliefs (bounds on figures and times: ``test_bounds.py``).

Each case is a true sentence as the span and an edit of it as the claim: the edit says more
than the span (an exact figure for a bound one, a done deed for an attempted one, a second
time for a first) or the opposite (``failed to``, ``during`` for ``after``). None may verify;
the verbatim quote of each span still does.
"""

from __future__ import annotations

import pytest

from ledger.gate import Status
from ledger.gate.alignment.words import words
from ledger.gate.narrowing.qualifiers import dropped_part
from ledger.gate.polarity.governors import governing
from tests.unit.gate._facts import judged as _judge
from tests.unit.gate._facts import rejection as _rejection
from tests.unit.gate._facts import unverified as _unverified

# -- predicates governing an infinitive -------------------------------------------------------


@pytest.mark.parametrize(
    "governor",
    ["tried to", "attempted to", "planned to", "hoped to", "wanted to", "promised to",
     "threatened to", "offered to", "agreed to", "sought to", "was set to", "was about to",
     "voted to", "has to"],
)  # fmt: skip
def test_rejects_as_hedged_a_deed_the_span_only_attempts_or_intends(governor: str) -> None:
    reason, detail = _rejection(
        "The board approved the merger in 2023.",
        f"The board {governor} approve the merger in 2023.",
        "polarity",
    )
    assert reason == "hedge_mismatch"
    assert "as done" in detail


def test_rejects_a_present_tense_claim_of_what_the_span_only_plans() -> None:
    reason, _ = _rejection(
        "The two firms merge in May.", "The two firms plan to merge in May.", "polarity"
    )
    assert reason == "hedge_mismatch"


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("The board approved the merger.", "The board managed to approve the merger."),
        ("The firm sold the unit.", "The firm was forced to sell the unit."),
        ("Revenue fell on higher costs.", "Revenue fell due to higher costs."),
        ("The board agreed to approve the merger.", "The board agreed to approve the merger."),
    ],
)
def test_lets_an_implicative_or_a_preposition_govern_what_the_claim_says(
    claimed: str, cited: str
) -> None:
    verdict = _judge(claimed, cited)
    assert "hedge_mismatch" not in {c.reason for c in verdict.checks}


def test_finds_the_governor_only_right_before_to() -> None:
    approved, approve = words("approved")[0], words("approve")[0]
    assert governing([], words("board tried to"), approved, approve) is not None
    assert governing(words("and to"), words("tried to"), approved, approve) is None
    assert governing([], words("tried to"), approve, approve) is not None
    assert governing([], words("said to"), approve, approve) is None


# -- negations carried by a verb ----------------------------------------------------------------


@pytest.mark.parametrize(
    "cited",
    [
        "The board failed to approve the merger.",
        "The board refused to approve the merger.",
        "The board was unable to approve the merger.",
        "The board has yet to approve the merger.",
        "The board neglected to approve the merger.",
        "The board was blocked from approving the merger.",
        "The board refrained from approving the merger.",
        "The chair denied that the board approved the merger.",
    ],
)
def test_rejects_a_deed_the_span_says_did_not_happen(cited: str) -> None:
    reason, _ = _rejection("The board approved the merger.", cited, "polarity")
    assert reason == "negation_mismatch"


def test_lets_a_negation_paraphrase_a_failure() -> None:
    verdict = _judge(
        "The board did not approve the merger.", "The board failed to approve the merger."
    )
    assert "negation_mismatch" not in {c.reason for c in verdict.checks}


@pytest.mark.parametrize(
    "text",
    [
        "The failed bank was sold in 2009.",
        "Revenue declined to $5 million.",
        "It was kept from view.",
    ],
)
def test_reads_no_negation_where_the_verb_governs_no_infinitive_or_gerund(text: str) -> None:
    assert not any(w.negation for w in words(text.lower()))


# -- time relations and repetition --------------------------------------------------------------


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("Staff left the firm during the merger.", "Staff left the firm after the merger."),
        ("Staff left the firm during the merger.", "Staff left the firm before the merger."),
        ("The building rose during them.", "The building rose before them."),
        ("The team met this week.", "The team met last week."),
        ("The team will meet this month.", "The team will meet next month."),
    ],
)
def test_rejects_a_time_relation_swapped_for_one_that_cannot_also_hold(
    claimed: str, cited: str
) -> None:
    reason, _ = _rejection(claimed, cited, "polarity")
    assert reason in ("antonym_mismatch", "direction_mismatch")


def test_does_not_verify_what_the_claim_says_happened_again() -> None:
    verdict = _judge("Staff left the firm again.", "Staff left the firm.")
    assert verdict.status is Status.UNVERIFIED


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("The deal almost closed in June.", "The deal closed in June."),
        ("Nearly 500 staff left.", "500 staff left."),
    ],
)
def test_does_not_verify_almost_or_nearly_over_a_plain_statement(claimed: str, cited: str) -> None:
    assert _judge(claimed, cited).status is not Status.VERIFIED


@pytest.mark.parametrize(
    "text",
    [
        "The firm hired over 200 staff in 2023.",
        "The board failed to approve the merger.",
        "The board plans to approve the merger in May.",
        "Staff left the firm during the merger again.",
        "The deal almost closed in June.",
        "The board was blocked from approving the merger.",
        "The firm sold half its stake, as part of the deal, by 2023.",
        "Revenue rose by $5 million to $9 million.",
        "The move was unlikely.",
        "The fee is rarely charged, except in Europe.",
        "Analysts questioned whether the fee is charged.",
        "Although she objected, the plan passed because the board voted for it.",
        "Calls for the CEO to resign grew after he considered resigning.",
        "X, once one of the largest banks and formerly the second largest, aims to become "
        "the largest bank again until 2030, its former CEO believes.",
    ],
)
def test_verifies_each_span_quoted_verbatim(text: str) -> None:
    assert _judge(text, text, quote=text).status is Status.VERIFIED


# -- parts, levels and hedges that negate --------------------------------------------------------


@pytest.mark.parametrize(
    "cited",
    [
        "The firm sold half its stake in 2023.",
        "The firm sold part of its stake in 2023.",
        "The firm sold a portion of its stake in 2023.",
        "Luckily, they came along to be a part of it.",
    ],
)
def test_does_not_verify_the_whole_where_the_span_says_a_part(cited: str) -> None:
    claimed = (
        "Luckily, they came along to be it."
        if cited.startswith("Luckily")
        else "The firm sold its stake in 2023."
    )
    reason, detail = _unverified(claimed, cited, "support")
    assert reason == "support_qualifier_dropped"
    assert "a part" in detail


def test_does_not_verify_the_whole_where_the_span_ends_its_clause_with_a_part() -> None:
    # A change log's entry, edited: the part right after the claim's last words is its.
    span = "Dropping the separate build cuts the build times in half and simplifies the rules."
    claim = "Dropping the separate build cuts the build times in and simplifies the rules."
    reason, detail = _unverified(claim, span, "support")
    assert reason == "support_qualifier_dropped"
    assert "'half'" in detail
    assert _judge(span, span).status is Status.VERIFIED


def test_reads_as_part_of_as_no_part() -> None:
    assert dropped_part([], words("as part of the")) is None
    assert dropped_part([], words("half its")) is not None
    assert dropped_part(words("part of"), words("half of")) is None


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("Revenue rose by $5 million in 2023.", "Revenue rose to $5 million in 2023."),
        ("Revenue rose to $5 million in 2023.", "Revenue rose by $5 million in 2023."),
        ("The unit was sold to Siemens in 2023.", "The unit was sold by Siemens in 2023."),
    ],
)
def test_rejects_a_change_read_as_a_level_or_an_agent_as_a_recipient(
    claimed: str, cited: str
) -> None:
    reason, _ = _rejection(claimed, cited, "polarity")
    assert reason in ("antonym_mismatch", "direction_mismatch")


def test_does_not_let_a_hedge_of_the_claim_cover_one_that_negates() -> None:
    reason, _ = _rejection("The move was likely.", "The move was unlikely.", "polarity")
    assert reason == "hedge_mismatch"


# -- how often, doubt, exceptions ------------------------------------------------------------------


@pytest.mark.parametrize(
    "cited",
    [
        "The fee is sometimes charged.",
        "The fee is often charged.",
        "The fee is rarely charged.",
        "The fee is hardly ever charged.",
        "The CEO doubted that the fee is charged.",
        "Analysts questioned whether the fee is charged.",
    ],
)
def test_rejects_as_hedged_what_the_span_says_happens_at_times_or_doubts(cited: str) -> None:
    reason, _ = _rejection("The fee is charged.", cited, "polarity")
    assert reason == "hedge_mismatch"


def test_does_not_verify_rarely_over_a_plain_statement() -> None:
    assert _judge("The fee is rarely charged.", "The fee is charged.").status is not Status.VERIFIED


@pytest.mark.parametrize(
    "cited",
    [
        "Sales rose in 2023, except in Europe.",
        "Except in Europe, sales rose in 2023.",
        "Sales excluding Europe rose in 2023.",
    ],
)
def test_does_not_verify_what_the_span_says_with_an_exception(cited: str) -> None:
    # An exception narrows what the span says, it does not deny it: not verified, and no
    # contradiction either.
    verdict = _judge("Sales rose in 2023.", cited)
    assert verdict.status is Status.UNVERIFIED
    assert "negation_mismatch" not in {c.reason for c in verdict.checks}


def test_reads_no_exception_in_a_unit_note() -> None:
    text = "Revenue was 5 (in thousands, except per share data)."
    verdict = _judge("Revenue was 5.", text)
    assert "negation_mismatch" not in {c.reason for c in verdict.checks}


# -- causes, gerunds, an infinitive's subject -----------------------------------------------------


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("Sales rose because of higher prices.", "Sales rose despite higher prices."),
        ("Sales rose because prices fell.", "Sales rose although prices fell."),
        ("Sales rose, so prices fell.", "Sales rose because prices fell."),
        ("Because she objected, the plan passed.", "Although she objected, the plan passed."),
    ],
)
def test_rejects_a_cause_where_the_span_concedes_or_runs_the_other_way(
    claimed: str, cited: str
) -> None:
    reason, _ = _rejection(claimed, cited, "polarity")
    assert reason in ("antonym_mismatch", "direction_mismatch")


@pytest.mark.parametrize(
    "cited",
    [
        "The CEO considered resigning.",
        "The CEO proposed resigning.",
        "Calls for the CEO to resign grew.",
        "The CEO is thinking about resigning.",
        "The CEO is close to resigning.",
        "The CEO should have resigned.",
        "The CEO must resign.",
    ],
)
def test_rejects_as_done_what_the_span_only_weighs_or_calls_for(cited: str) -> None:
    reason, _ = _rejection("The CEO resigned.", cited, "polarity")
    assert reason == "hedge_mismatch"


def test_lets_a_gerund_claim_follow_its_governor() -> None:
    verdict = _judge("The CEO considered resigning.", "The CEO considered resigning in May.")
    assert verdict.status is Status.VERIFIED


def test_lets_a_factive_head_govern_a_gerund_the_claim_states() -> None:
    verdict = _judge("The firm closed the plant.", "The firm succeeded in closing the plant.")
    assert "hedge_mismatch" not in {c.reason for c in verdict.checks}
    verdict = _judge("The firm closed the plant.", "The firm was thinking of closing the plant.")
    assert "hedge_mismatch" in {c.reason for c in verdict.checks}


def test_does_not_verify_an_obligation_over_a_permission() -> None:
    verdict = _judge("Tenants must pay the fee.", "Tenants may pay the fee.")
    assert verdict.status is not Status.VERIFIED


# -- ranks, ends, pasts, beliefs, helps ------------------------------------------------------------


@pytest.mark.parametrize(
    "cited",
    [
        "X is one of the largest banks in Europe.",
        "X is among the largest banks in Europe.",
        "X is the second-largest bank in Europe.",
        "X is the former largest bank in Europe.",
    ],
)
def test_does_not_verify_first_place_where_the_span_ranks_it_lower(cited: str) -> None:
    reason, _ = _unverified("X is the largest bank in Europe.", cited, "support")
    assert reason == "support_qualifier_dropped"


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("X is the largest bank.", "X was the largest bank until 2020."),
        ("X is the largest bank.", "X aims to become the largest bank."),
        ("X is the largest bank.", "X is set to become the largest bank."),
        ("X is the largest bank.", "X used to be the largest bank."),
        ("The drug cures the disease.", "The drug helps cure the disease."),
        ("The drug cures the disease.", "The company claims the drug cures the disease."),
        ("The drug cures the disease.", "Doctors believe the drug cures the disease."),
    ],
)
def test_rejects_a_state_the_span_ends_aims_at_or_only_believes(claimed: str, cited: str) -> None:
    reason, _ = _rejection(claimed, cited, "polarity")
    assert reason in ("hedge_mismatch", "antonym_mismatch")


def test_does_not_verify_a_time_after_the_end_the_span_gives() -> None:
    # ``after`` stands where the span has ``until``: the claim's word does not align, so the
    # span's end is no established contradiction, and the claim is not verified.
    verdict = _judge("Prices stayed high after June.", "Prices stayed high until June.")
    assert verdict.status is Status.UNVERIFIED


def test_does_not_verify_the_ceo_where_the_span_says_the_former_ceo() -> None:
    reason, detail = _unverified(
        "The CEO approved the deal.", "The former CEO approved the deal.", "support"
    )
    assert reason == "support_qualifier_dropped"
    assert "a past" in detail


def test_does_not_verify_a_claim_resting_on_a_belief_it_does_not_state() -> None:
    verdict = _judge("The company claims the drug cures it.", "The drug cures it.")
    assert verdict.status is not Status.VERIFIED


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("The board voted for the merger.", "The board voted against the merger."),
        ("The project is on schedule.", "The project is behind schedule."),
        ("Costs came in within budget.", "Costs came in over budget."),
        ("The firm moved into the market.", "The firm moved out of the market."),
        ("Shares traded at par.", "Shares traded below par."),
    ],
)
def test_rejects_a_position_swapped_for_one_that_cannot_also_hold(claimed: str, cited: str) -> None:
    reason, _ = _rejection(claimed, cited, "polarity")
    assert reason in ("antonym_mismatch", "direction_mismatch")


@pytest.mark.parametrize(
    "cited",
    [
        "The study found a lack of evidence of harm.",
        "The study found an absence of evidence of harm.",
    ],
)
def test_rejects_evidence_where_the_span_finds_its_lack(cited: str) -> None:
    reason, _ = _rejection("The study found evidence of harm.", cited, "polarity")
    assert reason == "negation_mismatch"
