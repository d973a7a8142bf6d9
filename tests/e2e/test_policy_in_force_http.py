"""The ledger decides which access policy governs, not the caller: attackers first.

``access-2`` (everyone may see everything) was published, then ``access-3`` (the default
rules), which is now in force. A key pinned to group ``support`` names ``access-2`` to open a
receipt over ``case-4471`` and to retrieve from it; both are refused and write nothing. A
version never published is 422, not the default policy. Requests that name no version are
decided under the policy in force and record it; what a pinned key may read follows it too.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from ledger.access.policy import DEFAULT_ACCESS_POLICY
from ledger.runtime import LedgerRuntime
from tests.e2e.attacks import SUPPORT, leaks, world
from tests.e2e.flows import receipt_body

EVERYONE = [{"id": "everyone", "effect": "allow"}]


def _publish(client: TestClient, admin: dict[str, str], version: str, rules: Any) -> None:
    response = client.post(
        "/v1/policies", json={"policy_version": version, "rules": rules}, headers=admin
    )
    assert response.status_code == 201, response.text


def _default_rules() -> list[dict[str, Any]]:
    return DEFAULT_ACCESS_POLICY.rules_json()


def _retrieve(client: TestClient, headers: dict[str, str], **extra: Any) -> Any:
    body = {"query": "Project Falcon acquire Acme", "principal": {**SUPPORT, "destination": ""}}
    return client.post("/v1/retrieve", json={**body, **extra}, headers=headers)


def test_a_pinned_key_cannot_choose_a_more_permissive_policy_than_the_one_in_force(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    admin = auth("admin", name="admin")
    _publish(client, admin, "access-2", EVERYONE)
    _publish(client, admin, "access-3", _default_rules())
    before = w.position()

    opened = client.post(
        "/v1/receipts",
        json=receipt_body(
            [w.secret_span["span_id"]],
            policy_version="access-2",
            principal=SUPPORT,
            purpose="fraud-review",
        ),
        headers=w.support,
    )
    retrieved = _retrieve(client, w.support, policy_version="access-2")

    for response in (opened, retrieved):
        assert response.status_code == 409, response.text
        problem = response.json()
        assert problem["type"].endswith("/policy-not-in-force")
        assert "'access-3' is in force" in problem["detail"]
        assert leaks(problem) == []
    assert w.position() == before


def test_an_unknown_policy_version_is_422_not_the_default_policy(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    before = w.position()

    opened = client.post(
        "/v1/receipts",
        json=receipt_body([w.open_span["span_id"]], policy_version="policy-7"),
        headers=w.trusted,
    )
    retrieved = _retrieve(client, w.trusted, policy_version="policy-7")

    for response in (opened, retrieved):
        assert response.status_code == 422, response.text
        [error] = response.json()["errors"]
        assert (error["field"], error["rule"]) == ("policy_version", "published")
    assert w.position() == before


def test_requests_without_a_version_are_decided_under_the_policy_in_force_and_record_it(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    admin = auth("admin", "audit:read", name="admin")
    body = receipt_body([w.open_span["span_id"]], principal=SUPPORT, purpose="fraud-review")
    del body["policy_version"]
    first = client.post("/v1/receipts", json=body, headers=w.support)
    _publish(client, admin, "access-2", EVERYONE)
    second = client.post("/v1/receipts", json={**body, "request": "r2"}, headers=w.support)
    named = client.post(
        "/v1/receipts",
        json={**body, "request": "r3", "policy_version": "access-2"},
        headers=w.support,
    )

    assert first.status_code == second.status_code == named.status_code == 201
    assert first.json()["policy_version"] == "default"
    assert second.json()["policy_version"] == named.json()["policy_version"] == "access-2"
    record = client.get(f"/v1/receipts/{second.json()['receipt_id']}/access", headers=admin)
    assert (record.json()["policy_version"], record.json()["rules_from"]) == (
        "access-2",
        "published",
    )


def test_what_a_pinned_key_reads_follows_the_policy_in_force(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    admin = auth("admin", name="admin")
    _publish(client, admin, "access-2", EVERYONE)
    body = receipt_body(
        [w.secret_span["span_id"]], policy_version=None, principal=SUPPORT, purpose="fraud-review"
    )
    opened = client.post("/v1/receipts", json=body, headers=w.support)
    assert opened.status_code == 201, opened.text  # everyone sees everything under access-2
    receipt_id = opened.json()["receipt_id"]
    assert client.get("/v1/sources/case-4471", headers=w.support).status_code == 200

    _publish(client, admin, "access-3", _default_rules())

    packet = client.get(f"/v1/receipts/{receipt_id}/context", headers=w.support)
    assert packet.status_code == 403, packet.text
    assert packet.json()["errors"][0]["rule"] == "entitlement-group-mismatch"
    assert leaks(packet.json()) == []
    assert client.get("/v1/sources/case-4471", headers=w.support).status_code == 404
    retrieved = _retrieve(client, w.support)
    assert retrieved.status_code == 200, retrieved.text
    assert retrieved.json()["results"] == []
    assert leaks(retrieved.json()) == []


def test_retiring_the_policy_in_force_puts_the_one_before_it_back_in_force(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    admin = auth("admin", name="admin")
    _publish(client, admin, "access-2", EVERYONE)
    _publish(client, admin, "access-3", _default_rules())
    retired = client.post("/v1/policies/access-3/retire", json={"reason": "x"}, headers=admin)
    assert retired.status_code == 201, retired.text

    body = receipt_body([w.open_span["span_id"]], policy_version=None)
    opened = client.post("/v1/receipts", json=body, headers=w.trusted)
    named = client.post(
        "/v1/receipts",
        json={**body, "request": "r2", "policy_version": "access-3"},
        headers=w.trusted,
    )

    assert opened.json()["policy_version"] == "access-2"
    assert named.status_code == 409
    assert "retired" in named.json()["detail"]
