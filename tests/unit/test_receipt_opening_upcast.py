"""A receipt opened before receipts were per inference (``Opened`` class version 1) still
reads, with its content-derived id and no inference id."""

from __future__ import annotations

from uuid import uuid4

from ledger.eventlog.store import event_from_body
from ledger.receipts.document import check_receipt_payload, receipt_payload
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_ids import opening_content, receipt_id_for


def _version_1_body() -> dict[str, object]:
    context = {
        "request": "q",
        "actor": "u",
        "purpose": "p",
        "policy_version": "1",
        "route": "long_context",
        "model": {"name": "m", "version": "1"},
        "tools": [],
        "budget": None,
    }
    as_of = "2024-03-01T00:00:00.000000Z"
    receipt_id = receipt_id_for(opening_content(context, [], [], as_of, None))
    return {
        "originator_id": str(uuid4()),
        "originator_version": 1,
        "recorded_at": "2026-11-29T12:00:00.000000Z",
        "actor": "key:app",
        "topic": Receipt.Opened.TOPIC,
        "payload": {
            "originator_topic": "provledger.receipt",
            "receipt_id": receipt_id,
            "context": context,
            "pool": [],
            "excluded": [],
            "as_of": as_of,
            "expires_at": None,
        },
    }


def test_a_version_1_opening_reads_with_no_inference_id_and_keeps_its_content_id() -> None:
    body = _version_1_body()

    receipt = event_from_body(Receipt.Opened, body).mutate(None)  # type: ignore[attr-defined]

    assert receipt.receipt_id == body["payload"]["receipt_id"]  # type: ignore[index]
    assert receipt.inference_id is None
    assert receipt.request_fingerprint is None
    assert receipt.opened_by == "key:app"


def test_the_envelope_payload_of_a_version_1_receipt_still_checks_its_content_id() -> None:
    receipt = event_from_body(Receipt.Opened, _version_1_body()).mutate(None)  # type: ignore[attr-defined]

    document, reasons = check_receipt_payload(receipt_payload(receipt))

    assert reasons == []
    assert document is not None
    assert document["inference_id"] is None
