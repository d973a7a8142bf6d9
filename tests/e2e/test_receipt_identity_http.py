"""Receipts are per inference: each opening is a new receipt; retries are recognised by
``inference_id`` or ``Idempotency-Key``, never by content. SQLite and PostgreSQL."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from ledger.crypto.canonical import canonical_json
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import commit_verbatim, receipt_body, register
from tests.tamper import Tamperer

TEXT = "Revenue rose 2.2% to $4.5 million in fiscal 2023. The board did not approve a dividend."
CONFLICT = "https://provledger.dev/problems/conflict"


@pytest.fixture
def client(settings: Settings, runtime: LedgerRuntime) -> Iterator[TestClient]:
    """No background poller: an event a test edits is read back before anything logs it."""
    quiet = settings.model_copy(update={"background": False})
    with TestClient(create_app(quiet, runtime), raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def headers(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return auth("ingest", "read", "claims:write", name="app")


@pytest.fixture
def span(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    return register(client, headers, "report", TEXT)[0]


def _open(client: TestClient, headers: dict[str, str], body: dict[str, Any], key: str = ""):  # type: ignore[no-untyped-def]
    extra = {"Idempotency-Key": key} if key else {}
    return client.post("/v1/receipts", json=body, headers={**headers, **extra})


def _assert_conflict(response: Any, field: str, rule: str) -> None:
    assert response.status_code == 409, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"] == CONFLICT
    [error] = problem["errors"]
    assert (error["field"], error["rule"]) == (field, rule)


def test_two_inferences_with_the_same_content_get_two_receipts_and_keep_their_claims_apart(
    client: TestClient, headers: dict[str, str], span: dict[str, Any]
) -> None:
    body = receipt_body([span["span_id"]])

    first = _open(client, headers, body)
    second = _open(client, headers, body)

    assert (first.status_code, second.status_code) == (201, 201)
    ids = {first.json()["receipt_id"], second.json()["receipt_id"]}
    assert len(ids) == 2
    assert first.json()["inference_id"] != second.json()["inference_id"]
    for receipt_id in ids:
        commit_verbatim(client, headers, receipt_id, span)
    for receipt_id in ids:
        claims = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()["claims"]
        assert len(claims) == 1


def test_a_repeated_inference_id_with_the_same_body_answers_the_same_receipt(
    client: TestClient, headers: dict[str, str], span: dict[str, Any], runtime: LedgerRuntime
) -> None:
    body = receipt_body([span["span_id"]], inference_id="inf-7781")
    first = _open(client, headers, body)
    position = runtime.ledger.last_position()

    again = _open(client, headers, body)

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert first.json()["inference_id"] == "inf-7781"
    assert runtime.ledger.last_position() == position


def test_a_repeated_inference_id_with_another_body_is_a_conflict_and_writes_nothing(
    client: TestClient, headers: dict[str, str], span: dict[str, Any], runtime: LedgerRuntime
) -> None:
    _open(client, headers, receipt_body([span["span_id"]], inference_id="inf-1"))
    position = runtime.ledger.last_position()

    response = _open(client, headers, receipt_body([], inference_id="inf-1"))

    _assert_conflict(response, "inference_id", "unique-per-caller")
    assert runtime.ledger.last_position() == position


def test_the_same_inference_id_from_another_api_key_opens_its_own_receipt(
    client: TestClient, headers: dict[str, str], span: dict[str, Any], auth
) -> None:  # type: ignore[no-untyped-def]
    other = auth("claims:write", name="other-app")
    body = receipt_body([span["span_id"]], inference_id="inf-1")

    mine = _open(client, headers, body)
    theirs = _open(client, other, body)

    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert mine.json()["receipt_id"] != theirs.json()["receipt_id"]
    assert (mine.json()["opened_by"], theirs.json()["opened_by"]) == ("key:app", "key:other-app")


def test_a_retry_with_the_same_idempotency_key_and_body_answers_the_first_receipt(
    client: TestClient, headers: dict[str, str], span: dict[str, Any], runtime: LedgerRuntime
) -> None:
    body = receipt_body([span["span_id"]])
    first = _open(client, headers, body, key="open-1")
    position = runtime.ledger.last_position()

    again = _open(client, headers, body, key="open-1")

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["receipt_id"] == first.json()["receipt_id"]
    assert runtime.ledger.last_position() == position


def test_the_same_idempotency_key_with_another_body_is_a_conflict_naming_the_rule(
    client: TestClient, headers: dict[str, str], span: dict[str, Any], runtime: LedgerRuntime
) -> None:
    _open(client, headers, receipt_body([span["span_id"]]), key="open-1")
    position = runtime.ledger.last_position()

    changed = _open(client, headers, receipt_body([span["span_id"]], purpose="other"), "open-1")
    other_inference = _open(
        client, headers, receipt_body([span["span_id"]], inference_id="x"), "open-1"
    )

    _assert_conflict(changed, "Idempotency-Key", "same-request")
    _assert_conflict(other_inference, "Idempotency-Key", "same-request")
    assert runtime.ledger.last_position() == position


def test_a_malformed_idempotency_key_or_inference_id_is_invalid_input(
    client: TestClient, headers: dict[str, str], span: dict[str, Any]
) -> None:
    bad_key = _open(client, headers, receipt_body([span["span_id"]]), key="no spaces")
    bad_id = _open(client, headers, receipt_body([span["span_id"]], inference_id="a/b"))

    assert bad_key.status_code == 422
    assert bad_key.json()["errors"][0]["field"] == "Idempotency-Key"
    assert bad_id.status_code == 422
    assert bad_id.json()["errors"][0] == {
        "field": "inference_id",
        "rule": "pattern",
        "message": "inference_id must match ^[A-Za-z0-9._:-]{1,128}$",
    }


def test_an_idempotency_record_edited_in_the_database_does_not_let_another_body_through(
    client: TestClient, headers: dict[str, str], span: dict[str, Any], runtime: LedgerRuntime
) -> None:
    _open(client, headers, receipt_body([span["span_id"]]), key="open-1")
    changed = receipt_body([span["span_id"]], purpose="other")
    position = runtime.ledger.last_position()  # the key's record is the last event written
    tamper = Tamperer(runtime)
    stored = json.loads(tamper.state(position))
    assert stored["body"]["topic"] == "provledger.receipt_open_key.recorded"
    # The attacker makes the record claim it was made for the changed body.
    probe = _open(client, headers, changed, key="open-1").json()["errors"][0]
    assert probe["rule"] == "same-request"
    stored["body"]["payload"]["request_fingerprint"] = "sha256:" + "0" * 64
    tamper.set_state(position, canonical_json(stored))

    response = _open(client, headers, changed, key="open-1")

    assert response.status_code == 500, response.text
    assert response.json()["type"] == "https://provledger.dev/problems/ledger-integrity"
    assert runtime.ledger.last_position() == position


def test_the_envelope_of_a_per_inference_receipt_verifies(
    client: TestClient, headers: dict[str, str], span: dict[str, Any], auth
) -> None:  # type: ignore[no-untyped-def]
    receipt_id = _open(client, headers, receipt_body([span["span_id"]])).json()["receipt_id"]
    envelope = client.get(f"/v1/receipts/{receipt_id}/envelope", headers=headers).json()

    verdict = client.post("/v1/envelopes/verify", json=envelope, headers=auth("audit:read"))

    assert verdict.json()["valid"] is True, verdict.json()
    assert verdict.json()["receipt_id"] == receipt_id


def test_concurrent_openings_with_one_idempotency_key_open_one_receipt(
    client: TestClient, headers: dict[str, str], span: dict[str, Any]
) -> None:
    body = receipt_body([span["span_id"]])
    answers: list[tuple[int, str]] = []

    def open_once() -> None:
        response = _open(client, headers, body, key="race-1")
        answers.append((response.status_code, response.json().get("receipt_id", response.text)))

    threads = [threading.Thread(target=open_once) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(status for status, _ in answers) == [200, 200, 200, 201]
    assert len({receipt_id for _, receipt_id in answers}) == 1
