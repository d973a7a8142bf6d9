"""Memory items over HTTP: recorded, read back verified, sealed into a receipt's pool and
packet, corrected and revoked with the receipts that used them expired before the answer."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import update

from ledger.memory.item import MemoryItem
from ledger.runtime import LedgerRuntime
from projections.database import ReadModelDatabase
from projections.schema import receipt_memory
from tests.e2e.flows import commit_verbatim, open_receipt, register

POLICY = "Refunds are allowed within 30 days of the charge. Disputed charges are excluded."
FUTURE = "2999-01-01T00:00:00Z"


def _item(source: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "purpose": "dispute-review",
        "scope": {"groups": ["support"]},
        "source": source,
        "text": "Customer 7 disputes the charge of 12 March <urgent>.",
        "expires_at": FUTURE,
        **extra,
    }


def _world(client: TestClient, auth: Any) -> tuple[dict[str, str], list[dict[str, Any]]]:
    headers = auth("ingest", "read", "claims:write", name="app")
    return headers, register(client, headers, "refund-policy", POLICY)


def _memory_events(runtime: LedgerRuntime) -> list[str]:
    topics = [MemoryItem.Recorded.TOPIC, MemoryItem.Corrected.TOPIC, MemoryItem.Revoked.TOPIC]
    return [
        n.topic
        for n in runtime.ledger.recorder.select_notifications(start=0, limit=100, topics=topics)
    ]


PRINCIPAL = {"groups": ["support"], "purpose": "dispute-review"}


def _open(client: TestClient, headers: dict[str, str], span_id: str, memory: list[str]) -> str:
    return open_receipt(
        client,
        headers,
        [span_id],
        purpose="dispute-review",
        principal=PRINCIPAL,
        memory=memory,
    )


def test_a_memory_item_is_recorded_signed_and_read_back_with_its_fields(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers, spans = _world(client, auth)

    recorded = client.post(
        "/v1/memory", json=_item([spans[1]["span_id"]], memory_id="mem_c7"), headers=headers
    )
    again = client.post(
        "/v1/memory", json=_item([spans[1]["span_id"]], memory_id="mem_c7"), headers=headers
    )
    other = client.post(
        "/v1/memory",
        json=_item([spans[1]["span_id"]], memory_id="mem_c7", text="Other."),
        headers=headers,
    )
    read = client.get("/v1/memory/mem_c7", headers=headers)

    assert recorded.status_code == 201, recorded.text
    assert (again.status_code, again.json()["changed"]) == (200, False)
    assert other.status_code == 409
    assert _memory_events(runtime) == [MemoryItem.Recorded.TOPIC]
    item = read.json()
    assert item["status"] == "active"
    assert item["version"] == 1
    assert item["scope"]["groups"] == ["support"]
    assert item["source"] == [
        {
            "kind": "span",
            "span_id": spans[1]["span_id"],
            "source_id": "refund-policy",
            "version": 1,
            "version_hash": item["source"][0]["version_hash"],
            "text_sha256": item["source"][0]["text_sha256"],
        }
    ]
    assert item["expires_at"] == "2999-01-01T00:00:00.000000Z"
    assert [v["version"] for v in item["versions"]] == [1]


def test_an_idempotency_key_without_a_memory_id_names_the_same_item_on_a_retry(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers, spans = _world(client, auth)
    keyed = {**headers, "Idempotency-Key": "remember-7"}

    first = client.post("/v1/memory", json=_item([spans[0]["span_id"]]), headers=keyed)
    retry = client.post("/v1/memory", json=_item([spans[0]["span_id"]]), headers=keyed)

    assert first.status_code == 201, first.text
    assert retry.status_code == 200
    assert retry.json()["memory_id"] == first.json()["memory_id"]
    assert first.json()["memory_id"].startswith("mem_")
    assert _memory_events(runtime) == [MemoryItem.Recorded.TOPIC]


def test_a_receipt_seals_memory_and_its_packet_shows_it_as_untrusted_data_after_the_evidence(
    client: TestClient, auth: Any
) -> None:
    headers, spans = _world(client, auth)
    client.post(
        "/v1/memory", json=_item([spans[1]["span_id"]], memory_id="mem_c7"), headers=headers
    )

    receipt_id = _open(client, headers, spans[0]["span_id"], ["mem_c7"])
    document = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()
    packet = client.get(f"/v1/receipts/{receipt_id}/context", headers=headers).json()

    assert [(m["memory_id"], m["version"]) for m in document["memory"]] == [("mem_c7", 1)]
    assert document["packet"]["format"] == "provledger.context/v2"
    assert packet["format"] == "provledger.context/v2"
    assert packet["prefix_sha256"] == packet["recorded_prefix_sha256"]
    text = packet["packet"]
    prefix = text[: packet["prefix_length"]]
    assert prefix.index("</evidence>") < prefix.index("<memory>") < prefix.index("</memory>")
    assert "<memory-policy>" in prefix
    assert (
        '<item id="mem_c7" version="1" purpose="dispute-review" '
        'expires_at="2999-01-01T00:00:00.000000Z" type="data" trust="untrusted">'
        "Customer 7 disputes the charge of 12 March &lt;urgent&gt;.</item>"
    ) in prefix
    assert packet["memory"][0]["text"] == "Customer 7 disputes the charge of 12 March <urgent>."
    access = client.get(f"/v1/receipts/{receipt_id}/access", headers=auth("audit:read"))
    assert access.status_code == 200, access.text
    assert {"ref": "memory[0]", "memory_id": "mem_c7", "version": 1, "allowed": True} in [
        {k: d.get(k) for k in ("ref", "memory_id", "version", "allowed")}
        for d in access.json()["decisions"]
    ]


def test_a_receipt_without_memory_keeps_the_v1_packet(client: TestClient, auth: Any) -> None:
    headers, spans = _world(client, auth)
    receipt_id = open_receipt(client, headers, [spans[0]["span_id"]])

    packet = client.get(f"/v1/receipts/{receipt_id}/context", headers=headers).json()

    assert packet["format"] == "provledger.context/v1"
    assert "<memory" not in packet["packet"]
    assert packet["memory"] == []


def test_a_correction_expires_the_receipts_that_used_the_version_before_it_answers(
    client: TestClient, auth: Any
) -> None:
    headers, spans = _world(client, auth)
    client.post(
        "/v1/memory", json=_item([spans[1]["span_id"]], memory_id="mem_c7"), headers=headers
    )
    used = _open(client, headers, spans[0]["span_id"], ["mem_c7"])
    commit_verbatim(client, headers, used, spans[0])

    corrected = client.post(
        "/v1/memory/mem_c7/versions",
        json={"reason": "the dispute was settled", "text": "Customer 7's dispute was settled."},
        headers=headers,
    )
    affected = client.get("/v1/memory/mem_c7/affected", headers=headers).json()
    status = client.get(f"/v1/receipts/{used}", headers=headers).json()["status"]
    fresh = _open(client, headers, spans[0]["span_id"], ["mem_c7"])

    assert corrected.status_code == 200, corrected.text
    assert corrected.json()["version"] == 2
    assert corrected.json()["receipts_expired"] == 1
    assert [v["reason"] for v in corrected.json()["versions"]] == [None, "the dispute was settled"]
    assert (status["status"], status["reason"]) == ("expired", "memory_corrected")
    assert status["expiries"][0]["detail"] == {
        "memory_id": "mem_c7",
        "version": 1,
        "corrected_by": 2,
    }
    assert affected["items"] == [
        {
            "receipt_id": used,
            "memory_version": 1,
            "status": "expired",
            "expiry_reason": "memory_corrected",
            "outcome": None,
            "actions": [],
        }
    ]
    named = corrected.json()["expired"]
    assert named["cause"] == f"n{corrected.json()['position']}"
    assert [(r["receipt_id"], r["reason"]) for r in named["items"]] == [(used, "memory_corrected")]
    sealed = client.get(f"/v1/receipts/{fresh}", headers=headers).json()["memory"]
    assert sealed[0]["version"] == 2
    same = client.post(
        "/v1/memory/mem_c7/versions",
        json={"reason": "again", "text": "Customer 7's dispute was settled."},
        headers=headers,
    )
    assert (same.json()["changed"], same.json()["version"]) == (False, 2)


def test_a_revocation_is_idempotent_with_its_reason_and_refused_with_another(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers, spans = _world(client, auth)
    client.post(
        "/v1/memory", json=_item([spans[1]["span_id"]], memory_id="mem_c7"), headers=headers
    )
    body = {"reason": "consent withdrawn"}

    first = client.post("/v1/memory/mem_c7/revoke", json=body, headers=headers)
    again = client.post("/v1/memory/mem_c7/revoke", json=body, headers=headers)
    other = client.post("/v1/memory/mem_c7/revoke", json={"reason": "other"}, headers=headers)
    correct = client.post(
        "/v1/memory/mem_c7/versions", json={"reason": "r", "text": "x"}, headers=headers
    )

    assert (first.status_code, first.json()["status"], first.json()["changed"]) == (
        200,
        "revoked",
        True,
    )
    assert again.json()["changed"] is False
    assert other.status_code == 409
    assert correct.status_code == 409
    assert _memory_events(runtime) == [MemoryItem.Recorded.TOPIC, MemoryItem.Revoked.TOPIC]


def test_memory_kept_from_a_committed_claim_records_the_claim_and_its_spans(
    client: TestClient, auth: Any
) -> None:
    headers, spans = _world(client, auth)
    receipt_id = open_receipt(client, headers, [spans[0]["span_id"]])
    claim = commit_verbatim(client, headers, receipt_id, spans[0])

    recorded = client.post("/v1/memory", json=_item([claim["claim_id"]]), headers=headers)

    assert recorded.status_code == 201, recorded.text
    assert recorded.json()["source"] == [
        {
            "kind": "claim",
            "claim_id": claim["claim_id"],
            "receipt_id": receipt_id,
            "status": "verified",
            "spans": [{"span_id": spans[0]["span_id"], "source_id": "refund-policy", "version": 1}],
        }
    ]


def test_the_memory_list_filters_by_purpose_and_status_and_pages_by_id(
    client: TestClient, auth: Any
) -> None:
    headers, spans = _world(client, auth)
    source = [spans[0]["span_id"]]
    for memory_id, purpose in (
        ("mem_a", "dispute-review"),
        ("mem_b", "billing"),
        ("mem_c", "billing"),
    ):
        client.post(
            "/v1/memory", json=_item(source, memory_id=memory_id, purpose=purpose), headers=headers
        )
    client.post("/v1/memory/mem_c/revoke", json={"reason": "gone"}, headers=headers)

    first = client.get("/v1/memory?limit=2", headers=headers).json()
    second = client.get(f"/v1/memory?limit=2&after={first['next']}", headers=headers).json()
    billing = client.get("/v1/memory?purpose=billing&status=active", headers=headers).json()
    revoked = client.get("/v1/memory?status=revoked", headers=headers).json()

    assert [i["memory_id"] for i in first["items"]] == ["mem_a", "mem_b"]
    assert [i["memory_id"] for i in second["items"]] == ["mem_c"]
    assert second["next"] is None
    assert [i["memory_id"] for i in billing["items"]] == ["mem_b"]
    assert [(i["memory_id"], i["status"]) for i in revoked["items"]] == [("mem_c", "revoked")]
    refused = client.get("/v1/memory?after=not-a-cursor", headers=headers)
    assert refused.status_code == 422


def test_an_edited_row_of_the_receipts_that_used_an_item_is_refused_not_served(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers, spans = _world(client, auth)
    client.post(
        "/v1/memory", json=_item([spans[1]["span_id"]], memory_id="mem_c7"), headers=headers
    )
    _open(client, headers, spans[0]["span_id"], ["mem_c7"])
    assert client.get("/v1/memory/mem_c7/affected", headers=headers).status_code == 200
    database = ReadModelDatabase.open(runtime.database)
    try:
        with database.sync.begin() as conn:  # as an attacker with the database would
            edited = conn.execute(update(receipt_memory).values(version=7))
        assert edited.rowcount == 1

        response = client.get("/v1/memory/mem_c7/affected", headers=headers)
    finally:
        database.close()

    assert response.status_code == 500, response.text
    assert response.json()["reason"] == "read_model_mismatch"
    assert "7" not in response.json()["detail"]
