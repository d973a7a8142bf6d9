"""The outcome desk: records a receipt's outcome (the rules in ``ledger/receipts/outcomes.py``)
and reads what hangs off receipts (their outcome and downstream actions)."""

from __future__ import annotations

from typing import Any

from ledger.access.attributes import Pins
from ledger.errors import (
    ConcurrentWrite,
    Conflict,
    LedgerIntegrityError,
)
from ledger.receipts.document import receipt_status
from ledger.receipts.outcomes import (
    ATTEMPTS,
    OutcomeRequest,
    check_outcome,
    check_same_actions,
    downstream,
    outcome_view,
    same_as_latest,
)
from ledger.receipts.receipt_desk import ReceiptDesk


class OutcomeDesk:
    """Records outcomes on receipts and reads what hangs off them."""

    def __init__(self, receipts: ReceiptDesk) -> None:
        self.receipts = receipts

    def record(
        self, receipt_id: str, request: OutcomeRequest, actor: str, pins: Pins | None = None
    ) -> tuple[dict[str, Any], bool]:
        """Record ``request`` as the receipt's outcome; returns the answer and whether an
        event was written. A receipt a key with ``pins`` may not read is refused as a missing
        one; nothing is written on any refusal."""
        check_outcome(request)
        for _ in range(ATTEMPTS):
            receipt = self.receipts.read(receipt_id, pins)
            if same_as_latest(receipt, request):
                return outcome_view(receipt), False
            check_same_actions(receipt, request)
            receipt.record_outcome(
                request.decision,
                request.reviewer,
                [a.to_json() for a in request.actions],
                actor,
            )
            try:
                self.receipts.ledger.commit(receipt)
            except Conflict:
                continue  # a concurrent write to the receipt: read it again and decide again
            # Read back: the outcome's time is the one the store recorded and signed.
            return outcome_view(self.receipts.get(receipt_id)), True
        raise ConcurrentWrite(f"receipt {receipt_id} is being written by others; retry")

    def downstream(self, receipt_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Each receipt's status, latest outcome and actions, from its verified events (the
        ids come from a read model: one the ledger does not hold is ``read_model_mismatch``,
        never served)."""
        found: dict[str, dict[str, Any]] = {}
        for receipt_id in receipt_ids:
            receipt = self.receipts.find(receipt_id)
            if receipt is None:
                raise LedgerIntegrityError(
                    "read_model_mismatch",
                    f"the read model names receipt {receipt_id!r}, which the ledger does not hold",
                    {"table": "receipts", "receipt_id": receipt_id},
                )
            status = receipt_status(receipt)
            found[receipt_id] = {
                "status": status["status"],
                "expiry_reason": status["reason"],
                **downstream(receipt),
            }
        return found
