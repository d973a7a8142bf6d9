"""Rebuild a receipt from its signed event bodies alone: no store, no database.

Used by the offline bundle verifier (the claim an auditor checks must be the one the receipt's
signed events record) and by the bundle builder (the envelope it seals is the receipt as of
the events the bundle carries). Event classes come from a fixed table of receipt topics, never
from resolving a topic string found in the input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ledger.errors import ReceiptReplayError
from ledger.eventlog.store import event_from_body
from ledger.receipts.receipt import Receipt

RECEIPT_AGGREGATE_TOPIC = "provledger.receipt"
RECEIPT_EVENTS: dict[str, type[Any]] = {
    cls.TOPIC: cls
    for cls in (
        Receipt.Opened,
        Receipt.AccessDecided,
        Receipt.ClaimsCommitted,
        Receipt.ClaimsRejected,
        Receipt.Expired,
        Receipt.ClaimRepaired,
        Receipt.RepairFailed,
        Receipt.EntailmentJudged,
        Receipt.TransformationRecorded,
        Receipt.OutcomeRecorded,
        Receipt.UsageRecorded,
    )
}


def replay_receipt(bodies: Sequence[dict[str, Any]]) -> Receipt:
    """The receipt the event bodies (one aggregate, in version order, from version 1) build."""
    receipt: Receipt | None = None
    for body in bodies:
        where = f"v{body.get('originator_version')}"
        topic = body.get("topic")
        cls = RECEIPT_EVENTS.get(topic) if isinstance(topic, str) else None
        if cls is None:
            raise ReceiptReplayError(f"{where}: {topic!r} is not a receipt event")
        opened = cls is Receipt.Opened
        if opened != (receipt is None):
            raise ReceiptReplayError(
                f"{where}: {topic} "
                + ("opens a receipt that is already open" if opened else "precedes its opening")
            )
        payload = body.get("payload")
        if opened and (
            not isinstance(payload, dict)
            or payload.get("originator_topic") != RECEIPT_AGGREGATE_TOPIC
        ):
            raise ReceiptReplayError(f"{where}: the opening does not name a receipt aggregate")
        try:
            receipt = event_from_body(cls, body).mutate(receipt)  # type: ignore[attr-defined]
        except Exception as exc:  # any failure to replay signed input means: not a receipt
            raise ReceiptReplayError(f"{where}: {topic} does not apply: {exc!r}") from exc
    if receipt is None:
        raise ReceiptReplayError("no events")
    return receipt
