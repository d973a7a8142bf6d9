"""An attacker with write access to the database: the service verifies what it reads back.

Each test edits the store or the read model behind the ledger's back, then asks the service
to authenticate, serve, sign or judge with what it edited. Every request is refused with the
500 problem ``ledger-integrity``, logged at error with the event's position, and nothing of
the edited content is served, signed or committed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from structlog.testing import capture_logs

from api.main import create_app
from api.services import open_ledger
from api.settings import Settings
from ledger.crypto.canonical import canonical_json
from ledger.crypto.signing import SigningKey
from ledger.eventlog.envelope import seal
from ledger.keys.api_keys import hash_secret, key_aggregate_id, new_secret
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import open_receipt, register
from tests.tamper import Tamperer

TEXT = "Revenue rose 2.2% to $4.5 million in fiscal 2023. The board did not approve a dividend."
PROBLEM = "https://provledger.dev/problems/ledger-integrity"
Restart = Callable[[], AbstractContextManager[tuple[TestClient, LedgerRuntime]]]


@pytest.fixture
def client(settings: Settings, runtime: LedgerRuntime) -> Iterator[TestClient]:
    """The service without its background poller: the transparency log moves only when asked,
    so an event a test edits is never logged before the edit (an edit of a logged event is
    refused at the next start instead: ``tests/integration/test_store_rollback.py``)."""
    quiet = settings.model_copy(update={"background": False})
    with TestClient(create_app(quiet, runtime), raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def headers(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return auth("ingest", "read", "claims:write", "audit:read", name="app")


@pytest.fixture
def restart(settings: Settings) -> Restart:
    """The service started again on the same database: nothing it verified is remembered.

    It runs no background poller, so its transparency log moves only when asked; a test that
    edits an event the transparency log already holds is refused at start instead (the log
    anchor, see ``tests/integration/test_store_rollback.py``)."""

    quiet = settings.model_copy(update={"background": False})

    @contextmanager
    def started() -> Iterator[tuple[TestClient, LedgerRuntime]]:
        runtime = open_ledger(quiet)
        try:
            app = create_app(quiet, runtime)
            with TestClient(app, raise_server_exceptions=False) as client:
                yield client, runtime
        finally:
            runtime.close()

    return started


def _rewrite(
    runtime: LedgerRuntime, position: int, change: Callable[[dict[str, Any]], None]
) -> None:
    """Edit the payload of the event at ``position`` in place, keeping its signature."""
    tamper = Tamperer(runtime)
    document = json.loads(tamper.state(position))
    change(document["body"]["payload"])
    tamper.set_state(position, canonical_json(document))


def _assert_refused(response: Any, reason: str, **position: object) -> dict[str, Any]:
    assert response.status_code == 500, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["type"] == PROBLEM
    assert set(body) == {"type", "title", "status", "detail", "reason", "position"}  # no content
    assert body["reason"] == reason
    assert body["detail"] == (
        "data the ledger read back failed verification; nothing was served or signed"
    )
    for name, value in position.items():
        assert body["position"][name] == value
    return body


def _integrity_logs(logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [entry for entry in logs if entry["event"] == "ledger_integrity"]


def _commit_verbatim(
    client: TestClient, headers: dict[str, str], receipt: str, span: dict[str, Any]
):  # type: ignore[no-untyped-def]
    body = {"claims": [{"text": span["text"], "bindings": [{"span_id": span["span_id"]}]}]}
    return client.post(f"/v1/receipts/{receipt}/claims", json=body, headers=headers)


# API keys ------------------------------------------------------------------------------------


def test_a_read_key_edited_to_admin_in_the_database_is_refused_as_ledger_integrity(
    client: TestClient, runtime: LedgerRuntime
) -> None:
    secret = runtime.api_keys.issue("reader", ["read"], "test:suite")
    position = runtime.ledger.last_position()
    reader = {"Authorization": f"Bearer {secret}"}
    retire = "/v1/policies/p1/retire"
    assert client.post(retire, json={"reason": "r"}, headers=reader).status_code == 403
    _rewrite(runtime, position, lambda payload: payload.update(scopes=["admin"]))

    # While the key is remembered and trusted (ledger/keys/cache.py) its rows are not read
    # again and the edit grants nothing (403: the scopes it was verified with); once the
    # watch's lease lapses, the rows are read and the edit is found (500).
    edited = client.post(retire, json={"reason": "r"}, headers=reader)
    assert edited.status_code in (403, 500), edited.text
    cache = runtime.api_keys.cache
    assert cache is not None
    cache.forget(key_aggregate_id("reader"))  # as in a process that has not verified it yet

    with capture_logs() as logs:
        read = client.get("/v1/sources/report", headers=reader)
        retired = client.post(retire, json={"reason": "r"}, headers=reader)

    for response in (read, retired):
        _assert_refused(
            response,
            "bad_signature",
            originator_id=str(key_aggregate_id("reader")),
            originator_version=1,
            notification_id=position,
        )
    assert runtime.ledger.last_position() == position
    [first, second] = _integrity_logs(logs)
    assert first["log_level"] == "error"
    assert (first["notification_id"], first["originator_version"]) == (position, 1)
    assert first["reason"] == "bad_signature"
    assert second["notification_id"] == position


def test_a_key_event_inserted_with_a_bad_signature_does_not_authenticate(
    client: TestClient, runtime: LedgerRuntime
) -> None:
    secret = new_secret("intruder")
    Tamperer(runtime).forge(
        key_aggregate_id("intruder"),
        1,
        "provledger.api_key.issued",
        {
            "originator_topic": "provledger.api_key",
            "name": "intruder",
            "scopes": ["admin"],
            "key_hash": hash_secret(secret),
        },
        kid=runtime.ledger.signing_key.kid,
    )

    with capture_logs() as logs:
        response = client.get("/v1/sources/report", headers={"Authorization": f"Bearer {secret}"})

    _assert_refused(
        response,
        "bad_signature",
        originator_id=str(key_aggregate_id("intruder")),
        originator_version=1,
        notification_id=runtime.ledger.last_position(),
    )
    [entry] = _integrity_logs(logs)
    assert entry["log_level"] == "error"
    assert entry["originator_id"] == str(key_aggregate_id("intruder"))


def test_a_key_event_inserted_under_an_unknown_key_does_not_authenticate(
    client: TestClient, runtime: LedgerRuntime
) -> None:
    secret = new_secret("intruder")
    forged = seal(
        SigningKey.generate(),
        originator_id=str(key_aggregate_id("intruder")),
        originator_version=1,
        topic="provledger.api_key.issued",
        recorded_at="2030-01-01T00:00:00.000000Z",
        actor="cli:admin",
        payload={
            "originator_topic": "provledger.api_key",
            "name": "intruder",
            "scopes": ["admin"],
            "key_hash": hash_secret(secret),
        },
        prev=None,
    )
    Tamperer(runtime).insert(
        key_aggregate_id("intruder"), 1, "provledger.api_key.issued", forged.to_state()
    )

    response = client.get("/v1/sources/report", headers={"Authorization": f"Bearer {secret}"})

    _assert_refused(response, "unknown_key", originator_version=1)


# Receipts and claims --------------------------------------------------------------------------


def test_a_claim_edited_in_the_database_is_neither_served_nor_signed(
    restart: Restart,
) -> None:
    with restart() as (client, runtime):
        secret = runtime.api_keys.issue("app", ["ingest", "read", "claims:write"], "t")
        headers = {"Authorization": f"Bearer {secret}"}
        spans, receipt, claim_id, position = _commit_one(client, runtime, headers)

        def falsify(payload: dict[str, Any]) -> None:
            payload["claims"][0]["text"] = "Revenue fell 9.2% to $4.5 million in fiscal 2023."

        _rewrite(runtime, position, falsify)

    with restart() as (again, restarted), capture_logs() as logs:
        served = again.get(f"/v1/claims/{claim_id}", headers=headers)
        as_of = again.get(
            f"/v1/claims/{claim_id}",
            params={"known_at": "2999-01-01T00:00:00Z"},
            headers=headers,
        )
        enveloped = again.get(f"/v1/receipts/{receipt}/envelope", headers=headers)
        committed = _commit_verbatim(again, headers, receipt, spans[1])
        last = restarted.ledger.last_position()

    for refused in (served, as_of, enveloped, committed):
        _assert_refused(refused, "bad_signature", notification_id=position)
        assert "fell 9.2%" not in refused.text
    assert last == position  # the refused commit wrote nothing
    assert len(_integrity_logs(logs)) == 4


def _commit_one(
    client: TestClient, runtime: LedgerRuntime, headers: dict[str, str]
) -> tuple[list[dict[str, Any]], str, str, int]:
    """Register a source, open a receipt and commit one verbatim claim: the spans, receipt id,
    claim id and the commit's notification id."""
    spans = register(client, headers, "report", TEXT)
    receipt = open_receipt(client, headers, [spans[0]["span_id"]])
    response = _commit_verbatim(client, headers, receipt, spans[0])
    assert response.status_code == 201, response.text
    claim_id = response.json()["committed"][0]["claim_id"]
    return spans, receipt, claim_id, runtime.ledger.last_position()


def test_a_claim_edited_after_the_service_verified_it_is_served_as_signed(
    client: TestClient, runtime: LedgerRuntime, headers: dict[str, str]
) -> None:
    spans = register(client, headers, "report", TEXT)
    receipt = open_receipt(client, headers, [spans[0]["span_id"]])
    response = _commit_verbatim(client, headers, receipt, spans[0])
    claim_id = response.json()["committed"][0]["claim_id"]
    _rewrite(
        runtime,
        runtime.ledger.last_position(),
        lambda payload: payload["claims"][0].update(text="Revenue fell 9.2%."),
    )

    served = client.get(f"/v1/claims/{claim_id}", headers=headers)

    # The receipt kept in memory was folded from verified events: the edit is not read.
    assert served.status_code == 200, served.text
    assert served.json()["text"] == spans[0]["text"]


# Sources and spans the gate reads ------------------------------------------------------------


def test_a_span_text_edited_in_the_read_model_refuses_the_commit_unjudged(
    client: TestClient, runtime: LedgerRuntime, headers: dict[str, str]
) -> None:
    spans = register(client, headers, "report", TEXT)
    receipt = open_receipt(client, headers, [spans[0]["span_id"]])
    position = runtime.ledger.last_position()
    Tamperer(runtime).read_model(
        "UPDATE registry_spans SET text = %s WHERE span_id = %s",
        "Revenue fell 9.2% to $4.5 million in fiscal 2023.",
        spans[0]["span_id"],
    )
    edited = {**spans[0], "text": "Revenue fell 9.2% to $4.5 million in fiscal 2023."}

    with capture_logs() as logs:
        response = _commit_verbatim(client, headers, receipt, edited)

    body = _assert_refused(response, "read_model_mismatch")
    assert body["position"] == {
        "table": "registry_spans",
        "span_id": spans[0]["span_id"],
        "source_id": "report",
    }
    assert runtime.ledger.last_position() == position
    [entry] = _integrity_logs(logs)
    assert entry["log_level"] == "error"
    assert "text" in entry["detail"]


def test_a_span_withdrawn_only_in_the_read_model_refuses_the_commit(
    client: TestClient, runtime: LedgerRuntime, headers: dict[str, str]
) -> None:
    spans = register(client, headers, "report", TEXT)
    receipt = open_receipt(client, headers, [spans[0]["span_id"]])
    Tamperer(runtime).read_model(
        "UPDATE registry_sources SET withdrawn_at = %s WHERE source_id = %s",
        "2024-01-01T00:00:00.000000Z",
        "report",
    )

    with capture_logs() as logs:
        response = _commit_verbatim(client, headers, receipt, spans[0])

    _assert_refused(response, "read_model_mismatch", source_id="report")
    [entry] = _integrity_logs(logs)
    assert entry["detail"].endswith("the row's withdrawn_at differ from the signed events")


def test_a_withdrawal_erased_from_the_read_model_is_still_judged_withdrawn(
    client: TestClient, runtime: LedgerRuntime, headers: dict[str, str]
) -> None:
    spans = register(client, headers, "report", TEXT)
    receipt = open_receipt(client, headers, [spans[0]["span_id"]])
    withdrawn = client.post(
        "/v1/sources/report/withdraw", json={"reason": "retracted"}, headers=headers
    )
    assert withdrawn.status_code == 200, withdrawn.text
    client.get("/v1/sources/report", headers=headers)  # the projection has seen it
    Tamperer(runtime).read_model(
        "UPDATE registry_sources SET withdrawn_at = NULL WHERE source_id = %s", "report"
    )

    response = _commit_verbatim(client, headers, receipt, spans[0])

    assert response.status_code == 422, response.text
    failed = [c for c in response.json()["rejected"][0]["checks"] if c["outcome"] == "fail"]
    assert [check["reason"] for check in failed] == ["source_withdrawn"]


def test_a_frozen_text_edited_in_its_version_event_refuses_the_commit(
    client: TestClient,
    runtime: LedgerRuntime,
    headers: dict[str, str],
    restart: Restart,
) -> None:
    spans = register(client, headers, "report", TEXT)
    version_position = runtime.ledger.last_position()
    receipt = open_receipt(client, headers, [spans[0]["span_id"]])
    _rewrite(
        runtime,
        version_position,
        lambda payload: payload.update(text=payload["text"].replace("rose 2.2%", "fell 9.2%")),
    )

    with restart() as (again, restarted):
        response = _commit_verbatim(again, headers, receipt, spans[0])
        last = restarted.ledger.last_position()

    _assert_refused(response, "bad_signature", notification_id=version_position)
    assert last == version_position + 1  # only the receipt's opening


def test_a_provenance_export_of_an_edited_source_is_refused(
    client: TestClient, runtime: LedgerRuntime, headers: dict[str, str]
) -> None:
    register(client, headers, "report", TEXT)
    version_position = runtime.ledger.last_position()
    _rewrite(runtime, version_position, lambda payload: payload.update(title="Forged"))

    for fmt in ("prov-json", "jsonl"):
        response = client.get(
            "/v1/sources/report/provenance", params={"format": fmt}, headers=headers
        )

        _assert_refused(response, "bad_signature", notification_id=version_position)
        assert "Forged" not in response.text


# Spans and versions served as they are read ----------------------------------------------


def test_a_span_text_edited_in_the_read_model_is_not_served(
    client: TestClient, runtime: LedgerRuntime, headers: dict[str, str]
) -> None:
    spans = register(client, headers, "report", TEXT)
    span_id = spans[0]["span_id"]
    assert client.get(f"/v1/spans/{span_id}", headers=headers).status_code == 200
    Tamperer(runtime).read_model(
        "UPDATE registry_spans SET text = %s WHERE span_id = %s",
        "Revenue fell 9.2% to $4.5 million in fiscal 2023.",
        span_id,
    )

    with capture_logs() as logs:
        response = client.get(f"/v1/spans/{span_id}", headers=headers)

    _assert_refused(response, "read_model_mismatch", span_id=span_id)
    assert "fell 9.2%" not in response.text
    [entry] = _integrity_logs(logs)
    assert "text" in entry["detail"]


def test_a_span_moved_in_the_read_model_is_not_served_with_its_context(
    client: TestClient, runtime: LedgerRuntime, headers: dict[str, str]
) -> None:
    spans = register(client, headers, "report", TEXT)
    span_id = spans[1]["span_id"]
    Tamperer(runtime).read_model(
        "UPDATE registry_spans SET start = start + 1 WHERE span_id = %s", span_id
    )

    response = client.get(f"/v1/spans/{span_id}/context", headers=headers)

    _assert_refused(response, "read_model_mismatch", span_id=span_id)


def test_a_frozen_text_edited_in_the_read_model_is_not_served(
    client: TestClient, runtime: LedgerRuntime, headers: dict[str, str]
) -> None:
    register(client, headers, "report", TEXT)
    assert client.get("/v1/sources/report/versions/1", headers=headers).status_code == 200
    Tamperer(runtime).read_model(
        "UPDATE registry_versions SET frozen_text = %s WHERE source_id = %s",
        TEXT.replace("rose 2.2%", "fell 9.2%"),
        "report",
    )

    response = client.get("/v1/sources/report/versions/1", headers=headers)

    _assert_refused(response, "read_model_mismatch", source_id="report")
    assert "fell 9.2%" not in response.text
