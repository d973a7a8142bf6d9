"""Idempotency keys of receipt openings: one signed record per caller and key.

``POST /v1/receipts`` with ``Idempotency-Key`` records, in the same transaction as the
receipt's opening, which receipt the key opened and the fingerprint of the request that did.
A retry reads the record back through the verified event store (an edited record fails its
signature and is refused, never trusted) and answers the same receipt, or refuses a different
request under the same key.
"""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from ledger.eventlog.aggregate import LedgerAggregate
from ledger.eventlog.topics import aggregate_topic

_NAMESPACE = uuid5(NAMESPACE_URL, "https://provledger.dev/ns/receipt-open-key")


def open_key_aggregate_id(opened_by: str, key: str) -> UUID:
    """The aggregate id of ``key`` as used by the caller ``opened_by``."""
    return uuid5(_NAMESPACE, f"{opened_by}\x00{key}")


@aggregate_topic("provledger.receipt_open_key")
class OpenKey(LedgerAggregate):
    """An Idempotency-Key that opened a receipt."""

    class Recorded(Aggregate.Created, LedgerAggregate.Event):
        """The key opened ``receipt_id`` for the request with ``request_fingerprint``."""

        TOPIC = "provledger.receipt_open_key.recorded"
        key: str
        receipt_id: str
        request_fingerprint: str

    def __init__(self, key: str, receipt_id: str, request_fingerprint: str, actor: str) -> None:
        self.key = key
        self.receipt_id = receipt_id
        self.request_fingerprint = request_fingerprint
        self.opened_by = actor

    @classmethod
    def record(cls, key: str, receipt_id: str, request_fingerprint: str, actor: str) -> OpenKey:
        """Record that ``actor`` opened ``receipt_id`` under ``key``."""
        return cls._create(
            cls.Recorded,
            id=open_key_aggregate_id(actor, key),
            key=key,
            receipt_id=receipt_id,
            request_fingerprint=request_fingerprint,
            actor=actor,
        )
