"""A receipt's outcome over HTTP: attackers and bad input first, then amendments and reads.

An outcome names the decision, the reviewer and the downstream actions taken on a receipt's
answer. A key that may not read the receipt, a key without ``claims:write`` and a malformed
outcome are refused and write nothing; an outcome may be amended by a later one, an action id
keeps its action for good, and the receipt (its document, envelope and as-of reads) shows
them.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.runtime import LedgerRuntime
from tests.e2e.attacks import SUPPORT, pinned
from tests.e2e.flows import commit_verbatim, open_receipt, receipt_body, register

TEXT = "Refunds are allowed within 30 days of the charge. Disputed charges are excluded."
OUTCOME = {
    "decision": "refund approved",
    "reviewer": "rev-17",
    "actions": [
        {"action_id": "act-1", "kind": "refund", "target": "charge-881"},
        {"action_id": "act-2", "kind": "email", "target": "customer-42"},
    ],
}


def _receipt(client: TestClient, headers: dict[str, str], **extra: Any) -> str:
    spans = register(client, headers, "refunds", TEXT)
    receipt_id = open_receipt(client, headers, [s["span_id"] for s in spans], **extra)
    commit_verbatim(client, headers, receipt_id, spans[0])
    return receipt_id


def _outcome(
    client: TestClient, headers: dict[str, str], receipt_id: str, body: dict[str, Any]
) -> Any:
    return client.post(f"/v1/receipts/{receipt_id}/outcome", json=body, headers=headers)


def test_a_pinned_key_records_no_outcome_on_a_receipt_it_may_not_read(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    trusted = auth("ingest", "read", "claims:write", name="app")
    investigator = {"roles": [], "groups": ["investigations"], "purpose": "fraud-review"}
    receipt_id = _receipt(client, trusted, purpose="fraud-review", principal=investigator)
    support = pinned(runtime, "support-app", ["read", "claims:write"], groups=["support"])
    before = runtime.ledger.last_position()

    denied = _outcome(client, support, receipt_id, OUTCOME)
    missing = _outcome(client, support, "rcpt_" + "0" * 32, OUTCOME)

    assert denied.status_code == 404, denied.text
    assert denied.text.replace(receipt_id, "ID") == missing.text.replace("rcpt_" + "0" * 32, "ID")
    assert runtime.ledger.last_position() == before
    assert "outcome" not in client.get(f"/v1/receipts/{receipt_id}", headers=trusted).json()


def test_a_key_without_claims_write_records_no_outcome(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    receipt_id = _receipt(client, auth("ingest", "claims:write", name="app"))
    reader = auth("read", name="reader")
    before = runtime.ledger.last_position()

    refused = _outcome(client, reader, receipt_id, OUTCOME)

    assert refused.status_code == 403, refused.text
    assert runtime.ledger.last_position() == before


@pytest.mark.parametrize(
    ("change", "field", "rule"),
    [
        ({"decision": " "}, "decision", "non-empty"),
        ({"decision": "x" * 2001}, "decision", "max-length"),
        ({"reviewer": ""}, "reviewer", "non-empty"),
        ({"reviewer": "r" * 201}, "reviewer", "max-length"),
        (
            {"actions": [OUTCOME["actions"][0], {**OUTCOME["actions"][1], "action_id": "act-1"}]},
            "actions[1].action_id",
            "unique",
        ),
        (
            {"actions": [{"action_id": "act 1", "kind": "refund", "target": "c"}]},
            "actions[0].action_id",
            "pattern",
        ),
        (
            {"actions": [{"action_id": "a", "kind": "Refund!", "target": "c"}]},
            "actions[0].kind",
            "pattern",
        ),
        (
            {"actions": [{"action_id": "a", "kind": "refund", "target": "t" * 501}]},
            "actions[0].target",
            "max-length",
        ),
        (
            {
                "actions": [
                    {"action_id": f"a{i}", "kind": "email", "target": "c"} for i in range(101)
                ]
            },
            "actions",
            "max-items",
        ),
    ],
)
def test_a_malformed_outcome_is_422_naming_the_field_and_rule_and_writes_nothing(
    client: TestClient,
    auth: Any,
    runtime: LedgerRuntime,
    change: dict[str, Any],
    field: str,
    rule: str,
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id = _receipt(client, headers)
    before = runtime.ledger.last_position()

    refused = _outcome(client, headers, receipt_id, {**OUTCOME, **change})

    assert refused.status_code == 422, refused.text
    assert refused.json()["type"].endswith("/invalid-input")
    assert {"field": field, "rule": rule} in [
        {"field": e["field"], "rule": e["rule"]} for e in refused.json()["errors"]
    ]
    assert runtime.ledger.last_position() == before


def test_an_outcome_with_an_unknown_field_is_422(client: TestClient, auth: Any) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id = _receipt(client, headers)

    refused = _outcome(client, headers, receipt_id, {**OUTCOME, "approved": True})

    assert refused.status_code == 422
    assert refused.json()["errors"][0]["field"] == "approved"


def test_an_outcome_is_a_signed_event_the_receipt_and_its_envelope_show(
    client: TestClient, auth: Any
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id = _receipt(client, headers)

    recorded = _outcome(client, headers, receipt_id, OUTCOME)

    assert recorded.status_code == 201, recorded.text
    body = recorded.json()
    assert body["outcome"]["decision"] == "refund approved"
    assert body["outcome"]["reviewer"] == "rev-17"
    assert body["outcome"]["recorded_by"] == "key:app"
    assert [a["action_id"] for a in body["actions"]] == ["act-1", "act-2"]
    receipt = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()
    assert receipt["outcome"] == body["outcome"]
    assert receipt["actions"] == body["actions"]
    envelope = client.get(f"/v1/receipts/{receipt_id}/envelope", headers=headers).json()
    payload = json.loads(base64.b64decode(envelope["payload"]))
    assert payload["outcome"]["decision"] == "refund approved"
    verified = client.post(
        "/v1/envelopes/verify",
        json=envelope,
        headers=auth("audit:read", name="auditor"),
    ).json()
    assert verified["valid"], verified
    events = client.get(
        "/v1/events", params={"limit": 1000}, headers=auth("audit:read", name="auditor-2")
    ).json()["items"]
    assert [e["topic"] for e in events].count("provledger.receipt.outcome_recorded") == 1


def test_a_later_outcome_amends_the_decision_and_keeps_every_action(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id = _receipt(client, headers)
    first = _outcome(client, headers, receipt_id, OUTCOME).json()
    amended = {
        "decision": "refund reversed on review",
        "reviewer": "rev-3",
        "actions": [{"action_id": "act-3", "kind": "refund_reversal", "target": "charge-881"}],
    }

    second = _outcome(client, headers, receipt_id, amended)

    assert second.status_code == 201, second.text
    body = second.json()
    assert body["outcome"]["decision"] == "refund reversed on review"
    assert [o["decision"] for o in body["outcomes"]] == ["refund approved", amended["decision"]]
    assert [a["action_id"] for a in body["actions"]] == ["act-1", "act-2", "act-3"]
    assert body["actions"][0]["recorded_at"] == first["outcome"]["at"]
    # the same body again is a retry: answered, nothing written
    before = runtime.ledger.last_position()
    again = _outcome(client, headers, receipt_id, amended)
    assert again.status_code == 200
    assert again.json() == body
    assert runtime.ledger.last_position() == before
    # as the ledger knew it before the amendment: the first decision
    known = client.get(
        f"/v1/receipts/{receipt_id}",
        params={"known_at": first["outcome"]["at"]},
        headers=headers,
    ).json()
    assert known["outcome"]["decision"] == "refund approved"
    assert len(known["outcomes"]) == 1


def test_an_action_id_keeps_its_action_and_a_changed_one_is_409(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id = _receipt(client, headers)
    _outcome(client, headers, receipt_id, OUTCOME)
    before = runtime.ledger.last_position()
    moved = {
        "decision": "refund approved",
        "actions": [{"action_id": "act-1", "kind": "refund", "target": "charge-999"}],
    }

    refused = _outcome(client, headers, receipt_id, moved)

    assert refused.status_code == 409, refused.text
    assert refused.json()["errors"] == [
        {
            "field": "actions[0].action_id",
            "rule": "same-action",
            "message": "action 'act-1' was recorded on this receipt as refund on 'charge-881'; "
            "give a new action a new id",
        }
    ]
    assert runtime.ledger.last_position() == before


def test_an_outcome_may_be_recorded_on_an_expired_receipt(client: TestClient, auth: Any) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id = _receipt(client, headers)
    client.post("/v1/sources/refunds/versions", json={"text": "No refunds."}, headers=headers)

    recorded = _outcome(client, headers, receipt_id, OUTCOME)

    assert recorded.status_code == 201, recorded.text
    assert recorded.json()["status"]["status"] == "expired"
    assert recorded.json()["status"]["at"] < recorded.json()["outcome"]["at"]


def test_an_outcome_of_an_unknown_receipt_is_404(client: TestClient, auth: Any) -> None:
    headers = auth("claims:write", name="app")

    missing = _outcome(client, headers, "rcpt_" + "1" * 32, OUTCOME)

    assert missing.status_code == 404
    assert missing.json()["detail"] == "no receipt 'rcpt_11111111111111111111111111111111'"


def test_a_receipt_body_for_a_principal_shows_its_outcome_to_its_pinned_key(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    ingester = auth("ingest", name="ingester")
    spans = register(client, ingester, "refunds", TEXT)
    support = pinned(runtime, "support-app", ["read", "claims:write"], groups=["support"])
    body = receipt_body([spans[0]["span_id"]], purpose="fraud-review", principal=SUPPORT)
    receipt_id = client.post("/v1/receipts", json=body, headers=support).json()["receipt_id"]

    recorded = _outcome(client, support, receipt_id, OUTCOME)

    assert recorded.status_code == 201, recorded.text
    assert recorded.json()["outcome"]["recorded_by"] == "key:support-app"
