"""The receipts read model: receipts, their claims and each claim's bindings.

It answers "which receipt holds this claim" and "which claims stood on this source version";
the full claim, with every check result, is read from the receipt's own events.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Notification
from sqlalchemy import Connection, insert

from ledger.receipts import Receipt
from ledger.store import format_time
from projections.runner import Projection
from projections.schema import RECEIPT_TABLES, claim_bindings, receipt_claims, receipts

_INSERT_RECEIPT = insert(receipts)
_INSERT_CLAIMS = insert(receipt_claims)
_INSERT_BINDINGS = insert(claim_bindings)


class ReceiptsProjection(Projection):
    """Builds ``receipts``, ``receipt_claims`` and ``claim_bindings``."""

    name = "receipts"
    topics = (
        Receipt.Opened.TOPIC,
        Receipt.ClaimsCommitted.TOPIC,
        Receipt.ClaimsRejected.TOPIC,
    )

    def __init__(self) -> None:
        self._receipt_ids: dict[str, str] = {}
        self._claims: list[dict[str, Any]] = []
        self._bindings: list[dict[str, Any]] = []

    def forget(self) -> None:
        """Drop caches and unwritten rows."""
        self._receipt_ids.clear()
        self._claims.clear()
        self._bindings.clear()

    def apply(self, conn: Connection, event: Any, notification: Notification) -> None:
        """Dispatch on the event type."""
        recorded_at = format_time(event.timestamp)
        aggregate_id = str(notification.originator_id)
        if isinstance(event, Receipt.Opened):
            self._receipt_ids[aggregate_id] = event.receipt_id
            conn.execute(
                _INSERT_RECEIPT,
                {
                    "receipt_id": event.receipt_id,
                    "aggregate_id": aggregate_id,
                    "policy_version": event.context["policy_version"],
                    "route": event.context["route"],
                    "as_of": event.as_of,
                    "expires_at": event.expires_at,
                    "opened_at": recorded_at,
                    "position": notification.id,
                },
            )
            return
        committed = isinstance(event, Receipt.ClaimsCommitted)
        receipt_id = self._receipt_id(conn, aggregate_id)
        for claim in event.claims:
            self._claims.append(
                {
                    "claim_id": claim["claim_id"],
                    "receipt_id": receipt_id,
                    "ordinal": claim["ordinal"],
                    "status": claim["status"],
                    "committed": 1 if committed else 0,
                    "client_ref": claim["client_ref"],
                    "claim_type": claim["type"],
                    "recorded_at": recorded_at,
                    "position": notification.id,
                }
            )
            self._bindings.extend(
                {
                    "claim_id": claim["claim_id"],
                    "ord": index,
                    "span_id": binding["span_id"],
                    "source_id": binding["source_id"],
                    "version": binding["version"],
                    "role": binding["role"],
                }
                for index, binding in enumerate(claim["bindings"])
            )

    def flush(self, conn: Connection) -> None:
        """Write the claim and binding rows of the batch."""
        if self._claims:
            conn.execute(_INSERT_CLAIMS, self._claims)
            self._claims.clear()
        if self._bindings:
            conn.execute(_INSERT_BINDINGS, self._bindings)
            self._bindings.clear()

    def _receipt_id(self, conn: Connection, aggregate_id: str) -> str:
        cached = self._receipt_ids.get(aggregate_id)
        if cached is None:
            cached = str(
                conn.execute(
                    receipts.select()
                    .with_only_columns(receipts.c.receipt_id)
                    .where(receipts.c.aggregate_id == aggregate_id)
                ).scalar_one()
            )
            self._receipt_ids[aggregate_id] = cached
        return cached

    def reset(self, conn: Connection) -> None:
        """Delete every receipts row."""
        for table in reversed(RECEIPT_TABLES):
            conn.execute(table.delete())
