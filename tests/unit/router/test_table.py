"""The router's decision table against a naive reference, and its budget arithmetic."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.errors import InvalidInput
from ledger.router import OUTCOMES, RouteRequest, declared_decision, route

REQUESTS = st.builds(
    RouteRequest,
    task=st.sampled_from(["lookup", "comparison", "question"]),
    corpus_tokens=st.integers(0, 10**7),
    operating_length_tokens=st.integers(1, 10**6),
    authoritative_source=st.booleans(),
    entitlement=st.sampled_from(["allowed", "partial", "denied"]),
    temporal_conflict=st.booleans(),
    untrusted_instructions=st.booleans(),
    compression_drops_exception=st.booleans(),
)


def naive_outcome(r: RouteRequest) -> str:
    """docs/router.md's table, written out as nested conditions."""
    if r.compression_drops_exception:
        return "redesign"
    if r.entitlement != "allowed" or not r.authoritative_source or r.temporal_conflict:
        return "ask_abstain_escalate"
    if r.task == "lookup":
        return "deterministic_state"
    if r.untrusted_instructions:
        return "hybrid_retrieval"
    if r.corpus_tokens <= r.operating_length_tokens * 70 // 100:
        return "long_context"
    return "hybrid_retrieval"


@given(REQUESTS)
def test_the_table_agrees_with_its_naive_statement_and_has_five_outcomes(
    request: RouteRequest,
) -> None:
    decision = route(request)
    assert decision.outcome.value == naive_outcome(request)
    assert decision.outcome.value in OUTCOMES
    assert route(request) == decision


@given(REQUESTS)
def test_the_budget_spends_the_operating_length_exactly_or_nothing(request: RouteRequest) -> None:
    decision = route(request)
    total = sum(decision.budget.values())
    if decision.outcome.value == "redesign":
        assert total == 0
    else:
        assert total == request.operating_length_tokens
    assert all(part >= 0 for part in decision.budget.values())


def test_a_long_context_budget_keeps_seventy_percent_for_evidence() -> None:
    decision = route(RouteRequest("comparison", 20_000, 128_001, True, "allowed"))
    assert decision.budget == {
        "evidence": 89_600,
        "background": 6_400,
        "instruction": 12_800,
        "verification": 19_201,
    }


def test_conditions_that_do_not_decide_are_still_recorded_as_reasons() -> None:
    request = RouteRequest(
        "lookup", 10, 1000, False, "denied", temporal_conflict=True, untrusted_instructions=True
    )
    decision = route(request)
    assert decision.row == "R2"
    assert decision.reasons == (
        "entitlement-denied",
        "untrusted-instructions-typed-as-data",
        "temporal-conflict",
        "authority-missing",
    )


def test_out_of_range_inputs_are_refused_naming_each_field() -> None:
    with pytest.raises(InvalidInput) as caught:
        route(RouteRequest("summary", -1, 0, True, "maybe"))
    assert [e["field"] for e in caught.value.errors] == [
        "task",
        "entitlement",
        "corpus_tokens",
        "operating_length_tokens",
    ]


def test_an_older_declared_abstain_reads_as_ask_abstain_escalate() -> None:
    decision = declared_decision("abstain")
    assert (decision["outcome"], decision["router"], decision["reasons"]) == (
        "ask_abstain_escalate",
        "declared",
        ["declared-by-client"],
    )
