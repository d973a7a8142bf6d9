"""Context receipts: the sealed record of one inference and the claims committed under it.

A receipt is opened with the evidence pool the model was shown (sealed: span ids, their
source versions, version hashes and hashes of the verbatim span text) and then receives
claims. Every commit attempt leaves a signed event: accepted claims in ``ClaimsCommitted``,
rejected ones in ``ClaimsRejected``, so auditors can count both.
"""

from __future__ import annotations

import hashlib
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from ledger.aggregate import LedgerAggregate
from ledger.canonical import canonical_json
from ledger.topics import aggregate_topic

_NAMESPACE = uuid5(NAMESPACE_URL, "https://provledger.dev/ns/receipt")
RECEIPT_PREFIX = "rcpt_"
CLAIM_PREFIX = "clm_"


def receipt_id_for(opening: dict[str, Any]) -> str:
    """Content-derived receipt id: ``rcpt_`` + 32 hex digits of SHA-256 of the RFC 8785 form
    of the opening content (context, sealed pool, exclusions, as_of, expires_at)."""
    return RECEIPT_PREFIX + hashlib.sha256(canonical_json(opening)).hexdigest()[:32]


def receipt_aggregate_id(receipt_id: str) -> UUID:
    """The aggregate id of a receipt."""
    return uuid5(_NAMESPACE, receipt_id)


def claim_id_for(receipt_id: str, ordinal: int, claim: dict[str, Any]) -> str:
    """Content-derived claim id: the receipt, the claim's ordinal in it and its content."""
    digest = hashlib.sha256(
        receipt_id.encode() + b"\x00" + str(ordinal).encode() + b"\x00" + canonical_json(claim)
    )
    return CLAIM_PREFIX + digest.hexdigest()[:24]


@aggregate_topic("provledger.receipt")
class Receipt(LedgerAggregate):
    """One inference's receipt and its claims."""

    class Opened(Aggregate.Created, LedgerAggregate.Event):
        """The receipt was opened and its evidence pool sealed."""

        TOPIC = "provledger.receipt.opened"
        receipt_id: str
        context: dict[str, Any]
        pool: list[dict[str, Any]]
        excluded: list[dict[str, str]]
        as_of: str
        expires_at: str | None

    class ClaimsCommitted(LedgerAggregate.Event):
        """Claims passed the gate (verified or unverified) and were committed together."""

        TOPIC = "provledger.receipt.claims_committed"
        mode: str
        claims: list[dict[str, Any]]
        rendered_answer: str | None
        render_check: dict[str, Any] | None
        idempotency: dict[str, Any] | None

        def apply(self, aggregate: Receipt) -> None:
            aggregate.claims.extend(self.claims)
            aggregate.remember(self.idempotency)

    class ClaimsRejected(LedgerAggregate.Event):
        """Claims the gate rejected: quarantined, never committed, kept for audit."""

        TOPIC = "provledger.receipt.claims_rejected"
        mode: str
        claims: list[dict[str, Any]]
        render_check: dict[str, Any] | None
        idempotency: dict[str, Any] | None

        def apply(self, aggregate: Receipt) -> None:
            aggregate.rejected.extend(self.claims)
            aggregate.remember(self.idempotency)

    def __init__(
        self,
        receipt_id: str,
        context: dict[str, Any],
        pool: list[dict[str, Any]],
        excluded: list[dict[str, str]],
        as_of: str,
        expires_at: str | None,
    ) -> None:
        self.receipt_id = receipt_id
        self.context = context
        self.pool = pool
        self.pool_index = {entry["span_id"]: entry for entry in pool}
        self.excluded = excluded
        self.as_of = as_of
        self.expires_at = expires_at
        self.claims: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        self.idempotency: dict[str, dict[str, Any]] = {}

    @classmethod
    def open(
        cls,
        context: dict[str, Any],
        pool: list[dict[str, Any]],
        excluded: list[dict[str, str]],
        as_of: str,
        expires_at: str | None,
        actor: str,
    ) -> Receipt:
        """Open a receipt; its id is derived from everything it seals."""
        receipt_id = receipt_id_for(opening_content(context, pool, excluded, as_of, expires_at))
        return cls._create(
            cls.Opened,
            id=receipt_aggregate_id(receipt_id),
            receipt_id=receipt_id,
            context=context,
            pool=pool,
            excluded=excluded,
            as_of=as_of,
            expires_at=expires_at,
            actor=actor,
        )

    @property
    def next_ordinal(self) -> int:
        """Ordinal of the next claim (accepted and rejected claims share the count)."""
        return len(self.claims) + len(self.rejected)

    def remember(self, idempotency: dict[str, Any] | None) -> None:
        """Keep the first answer given under an idempotency key."""
        if idempotency is not None:
            self.idempotency.setdefault(idempotency["key"], idempotency)

    def commit(
        self,
        mode: str,
        accepted: list[dict[str, Any]],
        rejected: list[dict[str, Any]],
        rendered_answer: str | None,
        render_check: dict[str, Any] | None,
        idempotency: dict[str, Any] | None,
        actor: str,
    ) -> None:
        """Record one commit attempt: accepted and rejected claims in their own events."""
        if accepted:
            self.trigger_event(
                self.ClaimsCommitted,
                mode=mode,
                claims=accepted,
                rendered_answer=rendered_answer,
                render_check=render_check,
                idempotency=None if rejected else idempotency,
                actor=actor,
            )
        if rejected:
            self.trigger_event(
                self.ClaimsRejected,
                mode=mode,
                claims=rejected,
                render_check=render_check,
                idempotency=idempotency,
                actor=actor,
            )


def opening_content(
    context: dict[str, Any],
    pool: list[dict[str, Any]],
    excluded: list[dict[str, str]],
    as_of: str,
    expires_at: str | None,
) -> dict[str, Any]:
    """What a receipt id is derived from."""
    return {
        "context": context,
        "pool": pool,
        "excluded": excluded,
        "as_of": as_of,
        "expires_at": expires_at,
    }
