"""Expiry and correction over HTTP: superseded and withdrawn sources, retired policies,
passed ``expires_at``, and what stood on a version."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice."


@pytest.fixture
def headers(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return auth("admin", name="ops")


@pytest.fixture
def span(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    body = {
        "source_id": "src",
        "title": "Src",
        "authority": "derived",
        "text": TEXT,
        "effective_from": "2024-01-01T00:00:00Z",
    }
    spans: list[dict[str, Any]] = client.post("/v1/sources", json=body, headers=headers).json()[
        "spans"
    ]
    return spans[0]


def _receipt(
    client: TestClient,
    headers: dict[str, str],
    span: dict[str, Any],
    commit: bool = True,
    **extra: Any,
) -> str:
    body = {
        "request": "q",
        "actor": "u",
        "purpose": "p",
        "route": "long_context",
        "model": {"name": "m", "version": "1"},
        "evidence": [span["span_id"]],
        "as_of": "2024-06-01T00:00:00Z",
        **extra,
    }
    response = client.post("/v1/receipts", json=body, headers=headers)
    assert response.status_code == 201, response.text
    receipt_id: str = response.json()["receipt_id"]
    if not commit:
        return receipt_id
    claim = {"text": span["text"], "bindings": [{"span_id": span["span_id"]}]}
    committed = client.post(
        f"/v1/receipts/{receipt_id}/claims", json={"claims": [claim]}, headers=headers
    )
    assert committed.status_code == 201, committed.text
    return receipt_id


def _status(client: TestClient, headers: dict[str, str], receipt_id: str) -> dict[str, Any]:
    status: dict[str, Any] = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()[
        "status"
    ]
    return status


def test_a_new_version_expires_receipts_that_stood_on_the_old_one(
    client: TestClient, headers: dict[str, str], span: dict[str, Any]
) -> None:
    receipt_id = _receipt(client, headers, span)
    client.post("/v1/sources/src/versions", json={"text": "Revenue fell."}, headers=headers)

    client.app.state.services.expiry.run_once()  # type: ignore[attr-defined]

    status = _status(client, headers, receipt_id)
    assert status["status"] == "expired"
    assert status["reason"] == "source_superseded"
    assert status["expiries"][0]["detail"] == {"source_id": "src", "version": 1, "superseded_by": 2}
    envelope = client.get(f"/v1/receipts/{receipt_id}/envelope", headers=headers).json()
    verdict = client.post("/v1/envelopes/verify", json=envelope, headers=headers).json()
    assert verdict["valid"] is True
    assert verdict["status"]["status"] == "expired"


def test_withdrawal_expires_receipts_with_its_reason(
    client: TestClient, headers: dict[str, str], span: dict[str, Any]
) -> None:
    receipt_id = _receipt(client, headers, span)
    client.post("/v1/sources/src/withdraw", json={"reason": "retracted"}, headers=headers)
    client.app.state.services.expiry.run_once()  # type: ignore[attr-defined]
    assert _status(client, headers, receipt_id)["reason"] == "source_withdrawn"


def test_an_access_change_expires_receipts_that_stood_on_the_source_without_naming_it(
    client: TestClient, headers: dict[str, str], span: dict[str, Any]
) -> None:
    receipt_id = _receipt(client, headers, span)
    changed = client.post("/v1/sources/src/access", json={"groups": ["audit"]}, headers=headers)
    assert changed.status_code == 200, changed.text
    client.app.state.services.expiry.run_once()  # type: ignore[attr-defined]
    status = _status(client, headers, receipt_id)
    assert status["reason"] == "source_access_changed"
    assert status["expiries"][0]["detail"] == {"source_id": "src"}


def test_retiring_a_policy_expires_its_receipts_and_blocks_new_ones(
    client: TestClient, headers: dict[str, str], span: dict[str, Any]
) -> None:
    rules = [{"id": "everyone", "effect": "allow"}]
    published = client.post(
        "/v1/policies", json={"policy_version": "policy-1", "rules": rules}, headers=headers
    )
    assert published.status_code == 201, published.text  # in force from now on
    first = _receipt(client, headers, span, policy_version="policy-1")
    second = _receipt(client, headers, span, request="another question")

    response = client.post(
        "/v1/policies/policy-1/retire", json={"reason": "replaced"}, headers=headers
    )

    assert response.status_code == 201
    assert response.json()["receipts_expired"] == 2
    assert _status(client, headers, first)["reason"] == "policy_retired"
    assert _status(client, headers, second)["reason"] == "policy_retired"
    again = client.post("/v1/policies/policy-1/retire", json={"reason": "x"}, headers=headers)
    assert again.status_code == 409
    body = {
        "request": "new",
        "actor": "u",
        "purpose": "p",
        "policy_version": "policy-1",
        "route": "abstain",
        "model": {"name": "m", "version": "1"},
        "evidence": [],
    }
    assert client.post("/v1/receipts", json=body, headers=headers).status_code == 409


def test_retiring_needs_admin(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    writer = auth("claims:write", "read", name="writer")
    response = client.post("/v1/policies/p/retire", json={"reason": "x"}, headers=writer)
    assert response.status_code == 403


def test_a_passed_expires_at_is_recorded_as_an_expiry(
    client: TestClient, headers: dict[str, str], span: dict[str, Any]
) -> None:
    # its expires_at has passed: it reads expired, so it takes no claims (409)
    receipt_id = _receipt(client, headers, span, commit=False, expires_at="2024-07-01T00:00:00Z")

    client.app.state.services.expiry.run_once()  # type: ignore[attr-defined]

    status = _status(client, headers, receipt_id)
    assert status["reason"] == "expires_at_passed"
    assert [e["cause"] for e in status["expiries"]] == ["expires_at"]


def test_affected_lists_the_receipts_and_claims_of_a_version(
    client: TestClient, headers: dict[str, str], span: dict[str, Any]
) -> None:
    receipt_id = _receipt(client, headers, span)
    client.app.state.services.read_side.receipts.catch_up()  # type: ignore[attr-defined]

    body = client.get("/v1/sources/src/versions/1/affected", headers=headers).json()

    assert body["receipt_count"] == 1
    [entry] = body["receipts"]
    assert entry["receipt_id"] == receipt_id
    assert entry["claims"][0]["span_ids"] == [span["span_id"]]
    assert client.get("/v1/sources/src/versions/7/affected", headers=headers).status_code == 404
