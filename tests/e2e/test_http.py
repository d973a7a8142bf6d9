"""The REST skeleton over HTTP: probes, public keys, the event log, auth and problems."""

from __future__ import annotations

import base64
import json
import logging

import pytest
from fastapi.testclient import TestClient

from ledger.crypto.signing import Keyring
from ledger.runtime import LedgerRuntime

PROBLEM = "application/problem+json"


def test_health_needs_no_key(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "position": None}


def test_ready_reports_the_log_position(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    auth("read")
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["position"]) == ("ready", 1)
    assert body["checks"]["database"] == {"ok": True}


def test_public_keys_are_published_without_auth(client: TestClient, runtime: LedgerRuntime) -> None:
    response = client.get("/v1/keys")

    assert response.status_code == 200
    [key] = response.json()["keys"]
    assert key["kid"] == runtime.ledger.signing_key.kid
    assert key["status"] == "active"
    assert base64.b64decode(key["public_key"]) == runtime.ledger.signing_key.public_key
    Keyring.from_json(response.json())  # a saved response is a usable keyring


def test_events_need_a_key(client: TestClient) -> None:
    response = client.get("/v1/events")

    assert response.status_code == 401
    assert response.headers["content-type"] == PROBLEM
    assert response.headers["www-authenticate"] == "Bearer"
    assert "missing Authorization header" in response.json()["detail"]


@pytest.mark.parametrize(
    "header",
    ["Bearer plk.nobody." + "A" * 43, "Bearer not-a-key", "Basic dXNlcjpwYXNz", "Bearer "],
)
def test_unknown_or_malformed_credentials_get_401(client: TestClient, header: str) -> None:
    response = client.get("/v1/events", headers={"Authorization": header})
    assert response.status_code == 401
    assert response.json()["status"] == 401


def test_a_revoked_key_gets_401(client: TestClient, auth, runtime: LedgerRuntime) -> None:  # type: ignore[no-untyped-def]
    headers = auth("audit:read")
    runtime.api_keys.revoke("client", "leaked", "test:suite")
    response = client.get("/v1/events", headers=headers)
    assert response.status_code == 401
    assert response.json()["detail"] == "unknown or revoked API key"


def test_a_key_without_the_scope_gets_403(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/v1/events", headers=auth("read", "ingest"))

    assert response.status_code == 403
    assert response.headers["content-type"] == PROBLEM
    assert "lacks the 'audit:read' scope" in response.json()["detail"]


@pytest.mark.parametrize("scope", ["audit:read", "admin"])
def test_events_come_back_as_stored_and_signed(
    client: TestClient,
    auth,
    runtime: LedgerRuntime,
    scope: str,  # type: ignore[no-untyped-def]
) -> None:
    headers = auth(scope)
    runtime.api_keys.issue("second", ["read"], "test:suite")

    page = client.get("/v1/events", params={"after": 0, "limit": 1}, headers=headers).json()
    assert [e["notification_id"] for e in page["events"]] == [1]
    assert page["next_after"] == 1
    assert page["last_position"] == 2

    rest = client.get("/v1/events", params={"after": 1}, headers=headers).json()
    [event] = rest["events"]
    stored = runtime.ledger.read_log(1, 1)[0]
    assert event["stored"] == json.loads(stored.state)
    assert event["stored"]["signature"]["kid"] == runtime.ledger.signing_key.kid
    assert event["topic"] == "provledger.api_key.issued"


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "query.limit"),
        ({"limit": 1001}, "query.limit"),
        ({"after": -1}, "query.after"),
        ({"after": "x"}, "query.after"),
    ],
)
def test_bad_paging_gets_a_problem_naming_the_field(
    client: TestClient,
    auth,
    params: dict[str, object],
    field: str,  # type: ignore[no-untyped-def]
) -> None:
    response = client.get("/v1/events", params=params, headers=auth("audit:read"))

    assert response.status_code == 422
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["title"] == "Invalid request"
    assert body["errors"][0]["field"] == field
    assert body["errors"][0]["rule"]


def test_unknown_paths_get_problem_json(client: TestClient) -> None:
    response = client.get("/v1/nothing-here")
    assert response.status_code == 404
    assert response.headers["content-type"] == PROBLEM


def test_request_id_is_echoed_or_generated(client: TestClient) -> None:
    assert (
        client.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["x-request-id"]
        == "abc-123"
    )
    generated = client.get("/healthz", headers={"X-Request-ID": "bad id\n"}).headers["x-request-id"]
    assert len(generated) == 32


def test_secrets_never_reach_the_log(
    client: TestClient,
    auth,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    headers = auth("audit:read")
    secret = headers["Authorization"].removeprefix("Bearer ")
    with caplog.at_level(logging.DEBUG):
        client.get("/v1/events", headers=headers)
        client.get("/v1/events", headers={"Authorization": headers["Authorization"] + "x"})
    captured = capsys.readouterr()
    assert secret not in caplog.text
    assert secret not in captured.out + captured.err


@pytest.mark.parametrize(
    "path",
    [
        "/v1/events?after=99999999999999999999999",
        "/v1/review?after=99999999999999999999999",
        "/v1/audit/proofs/inclusion?size=1&index=99999999999999999999999",
    ],
)
def test_positions_beyond_a_database_integer_are_422(
    client: TestClient,
    auth,  # type: ignore[no-untyped-def]
    path: str,
) -> None:
    response = client.get(path, headers=auth("audit:read"))
    assert response.status_code == 422
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["errors"][0]["rule"] == "less_than_equal"
