"""Recording an inference's prompt-cache usage on its receipt: ``POST .../usage``.

A commit may carry ``usage`` too (recorded in the same save as its claims); this desk records
it for an inference whose claims are committed apart, or not at all. Each call is a signed
``provledger.receipt.usage_recorded`` event tied to the receipt's stable-prefix hash. An
expired receipt still takes usage: the tokens were spent whatever became of the receipt.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from ledger.access.attributes import Pins
from ledger.errors import ConcurrentWrite, Conflict, InvalidInput
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.usage import Usage

ATTEMPTS = 10


@dataclass(frozen=True)
class UsageResult:
    """What was recorded (``replayed``: the answer to a repeated ``Idempotency-Key``)."""

    receipt_id: str
    record: dict[str, Any]
    replayed: bool
    position: int


class UsageDesk:
    """Records usage on receipts (``ledger.receipts.receipt.Receipt.UsageRecorded``)."""

    def __init__(self, receipts: ReceiptDesk) -> None:
        self.receipts = receipts

    def record(
        self,
        receipt_id: str,
        usage: Usage,
        actor: str,
        idempotency_key: str | None,
        fingerprint: str,
        pins: Pins | None = None,
    ) -> UsageResult:
        """Record ``usage`` on the receipt. A receipt a key with ``pins`` may not read is
        refused as a missing one; the same ``Idempotency-Key`` with the same body answers the
        first record, with another body it is 422 (``Idempotency-Key`` / ``same-request``)."""
        errors = usage.errors()
        if errors:
            raise InvalidInput.many(errors)
        for _ in range(ATTEMPTS):
            receipt = self.receipts.read(receipt_id, pins)
            known = None if idempotency_key is None else receipt.usage_keys.get(idempotency_key)
            if known is not None:
                if not hmac.compare_digest(known["fingerprint"], fingerprint):
                    raise InvalidInput(
                        "Idempotency-Key",
                        "same-request",
                        "this Idempotency-Key was used for a different request",
                    )
                return UsageResult(receipt_id, known["record"], True, 0)
            idempotency = None
            if idempotency_key is not None:
                idempotency = {"key": idempotency_key, "fingerprint": fingerprint}
            receipt.record_usage(usage.to_json(), idempotency, actor)
            try:
                recordings = self.receipts.ledger.commit(receipt)
            except Conflict:
                continue  # a concurrent write to the receipt: read it again
            self.receipts.snapshots.keep(receipt)
            return UsageResult(receipt_id, receipt.usage[-1], False, recordings[-1].notification.id)
        raise ConcurrentWrite(f"receipt {receipt_id} is being written by others; retry")
