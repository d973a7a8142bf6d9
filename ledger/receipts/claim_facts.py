"""Claims as the memory room sees them: the :class:`~ledger.memory.ClaimSource` port.

The receipts read model says which receipt holds a claim id (an index, nothing more); the
claim itself, its status, its bindings and the principal its receipt was opened for come from
the receipt's verified events. A row that points at the wrong receipt finds no claim there.
"""

from __future__ import annotations

from collections.abc import Callable

from ledger.memory.sources import ClaimFacts
from ledger.receipts.entitlement import receipt_principal
from ledger.receipts.receipt_desk import ReceiptDesk


class ReceiptClaims:
    """Finds claims in verified receipts (``locate``: claim id -> receipt id, from the read
    model, or None)."""

    def __init__(
        self, desk: Callable[[], ReceiptDesk], locate: Callable[[str], str | None]
    ) -> None:
        self.desk = desk
        self.locate = locate

    def claim(self, claim_id: str) -> ClaimFacts | None:
        """The claim from its receipt's verified events, or None."""
        receipt_id = self.locate(claim_id)
        receipt = None if receipt_id is None else self.desk().find(receipt_id)
        if receipt is None:
            return None
        for committed, claims in ((True, receipt.claims), (False, receipt.rejected)):
            for claim in claims:
                if claim["claim_id"] == claim_id:
                    return ClaimFacts(
                        claim_id=claim_id,
                        receipt_id=receipt.receipt_id,
                        committed=committed,
                        status=str(claim["status"]),
                        principal=receipt_principal(receipt.context),
                        spans=tuple(
                            {
                                "span_id": b["span_id"],
                                "source_id": b["source_id"],
                                "version": b["version"],
                            }
                            for b in claim["bindings"]
                            if b["source_id"] is not None
                        ),
                    )
        return None
