"""The router's scenarios (docs/router.md): each decided by ``POST /v1/route`` and recorded,
signed, on the receipt it routes."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.e2e.flows import receipt_body, register

BASE: dict[str, Any] = {
    "corpus_tokens": 20_000,
    "operating_length_tokens": 128_000,
    "authoritative_source": True,
    "entitlement": "allowed",
}

SCENARIOS: dict[str, tuple[dict[str, Any], str, list[str]]] = {
    # A current entitlement with a stable identifier and an authoritative field.
    "clean-lookup": ({"task": "lookup"}, "deterministic_state", ["known-fact-lookup"]),
    # Every clause of a short current contract set compared by an authorised analyst.
    "bounded-global-comparison": (
        {"task": "comparison"},
        "long_context",
        ["bounded-corpus-fits-operating-length"],
    ),
    # Several governed products with unknown passages and linked exceptions.
    "retrieval-heavy": (
        {"task": "question", "corpus_tokens": 5_000_000},
        "hybrid_retrieval",
        ["corpus-exceeds-operating-length"],
    ),
    # No source of record for a required fact.
    "missing-authority": (
        {"task": "question", "authoritative_source": False},
        "ask_abstain_escalate",
        ["authority-missing"],
    ),
    # Search surfaced a restricted document: the gate excluded it with a safe code.
    "entitlement-leak": (
        {"task": "question", "entitlement": "partial"},
        "ask_abstain_escalate",
        ["entitlement-partial"],
    ),
    # Two authentic policies disagree at the decision time.
    "temporal-conflict": (
        {"task": "comparison", "temporal_conflict": True},
        "ask_abstain_escalate",
        ["temporal-conflict"],
    ),
    # An external file says to ignore policy: it stays typed data in a bounded hybrid route.
    "indirect-injection": (
        {"task": "question", "untrusted_instructions": True},
        "hybrid_retrieval",
        ["untrusted-instructions-typed-as-data"],
    ),
    # A summary drops the exception that changes eligibility.
    "compression-loss": (
        {"task": "question", "compression_drops_exception": True},
        "redesign",
        ["compression-drops-exception"],
    ),
    # History holds a corrected state: reconstruct it from the authority, not from memory.
    "stale-memory": (
        {"task": "lookup", "corpus_tokens": 300},
        "deterministic_state",
        ["known-fact-lookup"],
    ),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_each_scenario_routes_to_its_outcome_and_the_receipt_records_why(
    client: TestClient, auth, name: str
) -> None:  # type: ignore[no-untyped-def]
    changes, outcome, reasons = SCENARIOS[name]
    headers = auth("ingest", "read", "claims:write", name="app")
    spans = register(client, headers, f"doc-{name}", "Refunds are allowed within 30 days.")
    routing = {**BASE, **changes}

    answered = client.post("/v1/route", json=routing, headers=headers)
    assert answered.status_code == 200, answered.text
    decision = answered.json()
    assert (decision["outcome"], decision["reasons"]) == (outcome, reasons)

    candidates = []
    if name == "entitlement-leak":
        restricted = register(
            client, headers, "restricted-doc", "Internal note.", access={"groups": ["legal"]}
        )
        candidates = [restricted[0]["span_id"]]
    body = receipt_body([spans[0]["span_id"]], routing=routing, candidates=candidates)
    del body["route"]
    opened = client.post("/v1/receipts", json=body, headers=headers)
    assert opened.status_code == 201, opened.text
    receipt = opened.json()
    assert receipt["route"] == outcome
    assert receipt["route_decision"] == decision
    stored = client.get(f"/v1/receipts/{receipt['receipt_id']}", headers=headers).json()
    assert stored["route_decision"]["reasons"] == reasons
    if name == "entitlement-leak":
        assert receipt["excluded"] == [
            {"ref": "entitlement", "reason_code": "entitlement-group-mismatch"}
        ]


def test_routing_may_not_claim_a_better_entitlement_than_the_gate_found(
    client: TestClient, auth
) -> None:  # type: ignore[no-untyped-def]
    headers = auth("ingest", "read", "claims:write", name="app")
    spans = register(client, headers, "public", "Refunds are allowed within 30 days.")
    restricted = register(client, headers, "restricted", "Internal.", access={"groups": ["x"]})
    body = receipt_body(
        [spans[0]["span_id"]],
        routing={**BASE, "task": "question"},
        candidates=[restricted[0]["span_id"]],
    )
    del body["route"]
    response = client.post("/v1/receipts", json=body, headers=headers)
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "routing.entitlement"
    assert response.json()["errors"][0]["rule"] == "matches-access-decision"


def test_a_declared_route_must_be_the_routers_outcome(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    headers = auth("ingest", "read", "claims:write", name="app")
    spans = register(client, headers, "public", "Refunds are allowed within 30 days.")
    body = receipt_body(
        [spans[0]["span_id"]], route="long_context", routing={**BASE, "task": "lookup"}
    )
    response = client.post("/v1/receipts", json=body, headers=headers)
    assert response.status_code == 422
    assert response.json()["errors"][0] == {
        "field": "route",
        "rule": "matches-router",
        "message": "route 'long_context' is not the router's outcome 'deterministic_state' "
        "(row R6); omit route or send the outcome",
    }


def test_the_router_refuses_inputs_outside_its_table(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    headers = auth("read", name="reader")
    response = client.post(
        "/v1/route", json={**BASE, "task": "summary", "corpus_tokens": -1}, headers=headers
    )
    assert response.status_code == 422
    assert {e["field"] for e in response.json()["errors"]} == {"task", "corpus_tokens"}
