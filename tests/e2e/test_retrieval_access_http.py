"""``POST /v1/retrieve`` honours entitlements: attackers first.

A restricted source (group ``investigations``) holds the best answer to the query. A
principal outside the group must never see it (not in results, scores or snippets; only a
safe code and a count in ``exclusions``), a key may not claim the group without pinning it,
and a retrieval made for one principal may not be turned into a receipt for another.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.access.attributes import Pins
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import receipt_body, register

SECRET = (
    "Northwind revenue rose to $4.5 million in 2019 after the invoice review. "
    "Northwind revenue in 2019 was restated."
)
OPEN = "Revenue rose to $3.1 million in 2019. The office moved in March."
INSIDE = {"groups": ["investigations"], "purpose": "fraud-review", "destination": "internal"}
OUTSIDE = {"groups": ["support"], "purpose": "fraud-review", "destination": "internal"}
QUERY = "revenue in 2019"


def _pinned(runtime: LedgerRuntime, name: str, **pins: list[str]) -> dict[str, str]:
    secret = runtime.api_keys.issue(
        name, ["retrieve", "claims:write", "read"], "test:suite", Pins.parse(pins)
    )
    return {"Authorization": f"Bearer {secret}"}


@pytest.fixture
def trusted(client: TestClient, auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Registers an open and a restricted source; returns an unpinned retrieving key."""
    ingest = auth("ingest", name="ingester")
    register(client, ingest, "report", OPEN)
    register(client, ingest, "case-4471", SECRET, access={"groups": ["investigations"]})
    headers: dict[str, str] = auth("retrieve", "claims:write", "read", name="trusted-app")
    return headers


def _retrieve(
    client: TestClient, headers: dict[str, str], principal: dict[str, Any], **extra: Any
) -> Any:
    body = {"query": QUERY, "principal": principal, "k": 10, **extra}
    return client.post("/v1/retrieve", json=body, headers=headers)


def test_a_restricted_source_never_reaches_a_principal_outside_its_group(
    client: TestClient, trusted: dict[str, str]
) -> None:
    response = _retrieve(client, trusted, OUTSIDE)

    assert response.status_code == 200, response.text
    body = response.json()
    assert {r["source_id"] for r in body["results"]} == {"report"}
    assert "Northwind" not in json.dumps(body["results"])
    assert "case-4471" not in response.text
    # Both spans of the restricted source were candidates (k was not reached): counted, once.
    assert {"code": "entitlement-group-mismatch", "count": 2} in body["exclusions"]
    assert all(
        e["code"] in {"entitlement-group-mismatch", "lexical-gate"} for e in body["exclusions"]
    )


def test_a_withheld_source_takes_no_rank_from_the_spans_a_principal_sees(
    client: TestClient, trusted: dict[str, str]
) -> None:
    inside = _retrieve(client, trusted, INSIDE).json()
    outside = _retrieve(client, trusted, OUTSIDE).json()

    # For the insider a restricted span ranks first in BM25 ...
    assert any(
        r["scores"]["bm25"]["rank"] == 1 for r in inside["results"] if r["source_id"] == "case-4471"
    )
    # ... for the outsider it is not there to rank: the open span is first in both lists.
    [best] = [r for r in outside["results"] if r["source_id"] == "report"]
    assert (best["scores"]["bm25"]["rank"], best["scores"]["dense"]["rank"]) == (1, 1)
    assert best["scores"]["rrf"] == round(2 / 61, 8)


def test_a_restricted_source_reaches_a_principal_inside_its_group(
    client: TestClient, trusted: dict[str, str]
) -> None:
    body = _retrieve(client, trusted, INSIDE).json()

    assert "case-4471" in {r["source_id"] for r in body["results"]}
    assert all(not e["code"].startswith("entitlement-") for e in body["exclusions"])


def test_the_recorded_retrieval_names_the_policy_version_and_the_exclusion_codes(
    client: TestClient, trusted: dict[str, str]
) -> None:
    body = _retrieve(client, trusted, OUTSIDE).json()
    services = client.app.state.services  # type: ignore[attr-defined]

    recorded = services.retrieval.get(body["retrieval_id"])

    assert recorded.policy_version == "default"
    assert recorded.exclusions == body["exclusions"]
    assert {r["source_id"] for r in recorded.results} == {"report"}


def test_a_published_policy_named_by_the_request_decides(
    client: TestClient, trusted: dict[str, str], auth
) -> None:  # type: ignore[no-untyped-def]
    rules = [
        {
            "id": "no-external",
            "effect": "deny",
            "code": "entitlement-destination-mismatch",
            "when": [{"in": ["principal.destination", ["external"]]}],
        },
        {"id": "everyone", "effect": "allow"},
    ]
    published = client.post(
        "/v1/policies",
        json={"policy_version": "access-2", "rules": rules},
        headers=auth("admin", name="admin"),
    )
    assert published.status_code == 201, published.text
    external = {**OUTSIDE, "destination": "external"}

    denied = _retrieve(client, trusted, external, policy_version="access-2").json()
    allowed = _retrieve(client, trusted, OUTSIDE, policy_version="access-2").json()

    assert denied["results"] == []
    assert {e["code"] for e in denied["exclusions"]} == {"entitlement-destination-mismatch"}
    assert "case-4471" in {r["source_id"] for r in allowed["results"]}  # no group rule here
    services = client.app.state.services  # type: ignore[attr-defined]
    assert services.retrieval.get(denied["retrieval_id"]).policy_version == "access-2"


def test_a_pinned_key_claiming_a_group_it_does_not_pin_is_refused_and_writes_nothing(
    client: TestClient, trusted: dict[str, str], runtime: LedgerRuntime
) -> None:
    support = _pinned(runtime, "support-app", groups=["support"], purposes=["fraud-review"])
    before = runtime.ledger.last_position()

    response = _retrieve(client, support, {**OUTSIDE, "groups": ["support", "investigations"]})

    assert response.status_code == 403
    problem = response.json()
    assert problem["type"].endswith("/principal-not-pinned")
    assert problem["errors"][0]["field"] == "principal.groups"
    assert runtime.ledger.last_position() == before
    allowed = _retrieve(client, support, OUTSIDE)
    assert allowed.status_code == 200
    assert {r["source_id"] for r in allowed.json()["results"]} == {"report"}


def test_a_retrieval_for_one_principal_cannot_open_a_receipt_for_a_narrower_one(
    client: TestClient, trusted: dict[str, str], runtime: LedgerRuntime
) -> None:
    retrieved = _retrieve(client, trusted, INSIDE).json()
    assert "case-4471" in {r["source_id"] for r in retrieved["results"]}
    before = runtime.ledger.last_position()

    def opening(principal: dict[str, Any]) -> Any:
        body = receipt_body(
            [], retrieval_id=retrieved["retrieval_id"], purpose="fraud-review", principal=principal
        )
        body.pop("evidence")
        return client.post("/v1/receipts", json=body, headers=trusted)

    widened = opening({"groups": ["support"], "purpose": "fraud-review"})

    assert widened.status_code == 403
    problem = widened.json()
    assert problem["type"].endswith("/entitlement-denied")
    assert {e["rule"] for e in problem["errors"]} == {"entitlement-group-mismatch"}
    assert all(e["field"].startswith("retrieval_id[") for e in problem["errors"])
    assert "Northwind" not in widened.text
    assert "case-4471" not in widened.text
    assert runtime.ledger.last_position() == before
    same = opening({"groups": ["investigations"], "purpose": "fraud-review"})
    assert same.status_code == 201, same.text


def test_a_retrieval_of_another_api_key_is_refused_even_for_the_same_principal(
    client: TestClient, trusted: dict[str, str], runtime: LedgerRuntime
) -> None:
    cases = _pinned(runtime, "case-app", groups=["investigations"], purposes=["fraud-review"])
    other = _pinned(runtime, "case-app-2", groups=["investigations"], purposes=["fraud-review"])
    retrieved = _retrieve(client, cases, INSIDE).json()
    body = receipt_body(
        [],
        retrieval_id=retrieved["retrieval_id"],
        purpose="fraud-review",
        principal={"groups": ["investigations"], "purpose": "fraud-review"},
    )
    body.pop("evidence")
    before = runtime.ledger.last_position()

    refused = client.post("/v1/receipts", json=body, headers=other)

    assert refused.status_code == 403
    assert "another actor" in refused.json()["detail"]
    assert runtime.ledger.last_position() == before
    assert client.post("/v1/receipts", json=body, headers=cases).status_code == 201
