"""The receipts read model: receipts, their claims and each claim's bindings.

It answers "which receipt holds this claim" and "which claims stood on this source version";
the full claim, with every check result, is read from the receipt's own events.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, insert, update

from ledger.audit.log_verify import StoredRow
from ledger.eventlog.clock import format_time
from ledger.receipts.components import recorded_parts
from ledger.receipts.receipt import Receipt
from projections.runner import Projection
from projections.schema import (
    RECEIPT_TABLES,
    claim_bindings,
    prompt_cache,
    receipt_claims,
    receipt_expiries,
    receipt_memory,
    receipt_parts,
    receipts,
    review_queue,
)

_INSERT_RECEIPT = insert(receipts)
_INSERT_CLAIMS = insert(receipt_claims)
_INSERT_BINDINGS = insert(claim_bindings)
_INSERT_REVIEW = insert(review_queue)
_INSERT_PARTS = insert(receipt_parts)
_INSERT_EXPIRY = insert(receipt_expiries)
_INSERT_MEMORY = insert(receipt_memory)
_INSERT_PREFIX = insert(prompt_cache)
_ADD_USAGE = (
    update(prompt_cache)
    .where(prompt_cache.c.prefix_sha256 == bindparam("b_prefix"))
    .values(
        calls=prompt_cache.c.calls + 1,
        input_tokens=prompt_cache.c.input_tokens + bindparam("b_input"),
        cache_write_tokens=prompt_cache.c.cache_write_tokens + bindparam("b_write"),
        cache_read_tokens=prompt_cache.c.cache_read_tokens + bindparam("b_read"),
        last_at=bindparam("b_at"),
        position=bindparam("b_position"),
    )
)
UNRECORDED_PREFIX = "unrecorded"
"""The prefix row of usage on receipts opened before packets recorded a prefix hash."""
_EXPIRE = (
    update(receipts)
    .where(receipts.c.receipt_id == bindparam("b_receipt"))
    .values(expired_at=bindparam("b_at"), expiry_reason=bindparam("b_reason"))
)
_MOVE_BINDING = (
    update(claim_bindings)
    .where(
        claim_bindings.c.claim_id == bindparam("b_claim"),
        claim_bindings.c.ord == bindparam("b_ord"),
    )
    .values(
        span_id=bindparam("b_span"),
        source_id=bindparam("b_source"),
        version=bindparam("b_version"),
    )
)
_RECOMMIT = (
    update(receipt_claims)
    .where(receipt_claims.c.claim_id == bindparam("b_claim"))
    .values(committed=1)
)
_SET_STATUS = (
    update(receipt_claims)
    .where(receipt_claims.c.claim_id == bindparam("b_claim"))
    .values(status=bindparam("b_status"))
)


class ReceiptsProjection(Projection):
    """Builds ``receipts``, ``receipt_claims``, ``claim_bindings``, ``review_queue``,
    ``receipt_parts`` and ``receipt_expiries``."""

    name = "receipts"
    topics = (
        Receipt.Opened.TOPIC,
        Receipt.ClaimsCommitted.TOPIC,
        Receipt.ClaimsRejected.TOPIC,
        Receipt.Expired.TOPIC,
        Receipt.ClaimRepaired.TOPIC,
        Receipt.RepairFailed.TOPIC,
        Receipt.EntailmentJudged.TOPIC,
        Receipt.UsageRecorded.TOPIC,
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

    # Over 60 lines on purpose: one branch per receipt event type, each writing its rows; a
    # dispatch table would only scatter them.
    def apply(self, conn: Connection, event: Any, notification: StoredRow) -> None:
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
                    "actor": event.context["actor"],
                    "purpose": event.context["purpose"],
                    "inference_id": event.inference_id,
                    "opened_by": event.actor,
                    "request": event.context["request"],
                },
            )
            conn.execute(
                _INSERT_PARTS,
                [
                    {"receipt_id": event.receipt_id, "ord": ord_, **part.to_row()}
                    for ord_, part in enumerate(recorded_parts(event.context))
                ],
            )
            for entry in event.context.get("memory", ()):
                conn.execute(
                    _INSERT_MEMORY,
                    {
                        "receipt_id": event.receipt_id,
                        "memory_id": entry["memory_id"],
                        "version": entry["version"],
                        "position": notification.id,
                    },
                )
            return
        if isinstance(event, Receipt.UsageRecorded):
            self._usage(conn, event, recorded_at, notification.id)
            return
        receipt_id = self._receipt_id(conn, aggregate_id)
        if isinstance(event, Receipt.Expired):
            conn.execute(
                _EXPIRE.where(receipts.c.expired_at.is_(None)),
                {"b_receipt": receipt_id, "b_at": recorded_at, "b_reason": event.reason},
            )
            conn.execute(
                _INSERT_EXPIRY,
                {
                    "receipt_id": receipt_id,
                    "cause": event.cause,
                    "reason": event.reason,
                    "recorded_at": recorded_at,
                    "position": notification.id,
                },
            )
            return
        if isinstance(event, Receipt.EntailmentJudged):
            if event.verdict in ("no", "partial"):
                conn.execute(
                    _INSERT_REVIEW,
                    {
                        "position": notification.id,
                        "claim_id": event.claim_id,
                        "receipt_id": receipt_id,
                        "claim_text": event.claim_text,
                        "verdict": event.verdict,
                        "verifier": event.verifier,
                        "model": event.model,
                        "judged_at": recorded_at,
                    },
                )
            return
        if isinstance(event, (Receipt.ClaimRepaired, Receipt.RepairFailed)):
            self.flush(conn)  # the claim's rows may still be pending in this batch
            self._repair(conn, event)
            return
        committed = isinstance(event, Receipt.ClaimsCommitted)
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

    def _repair(self, conn: Connection, event: Any) -> None:
        if isinstance(event, Receipt.ClaimRepaired):
            binding = event.new_binding
            conn.execute(
                _MOVE_BINDING,
                {
                    "b_claim": event.claim_id,
                    "b_ord": event.binding_index,
                    "b_span": binding["span_id"],
                    "b_source": binding["source_id"],
                    "b_version": binding["version"],
                },
            )
            status = event.status
            if status != "rejected":  # a repaired quarantined claim is now committed
                conn.execute(_RECOMMIT, {"b_claim": event.claim_id})
        else:
            status = "unverified"
        conn.execute(
            _SET_STATUS.where(receipt_claims.c.status == "verified")
            if status == "unverified"
            else _SET_STATUS,
            {"b_claim": event.claim_id, "b_status": status},
        )

    def _usage(self, conn: Connection, event: Any, at: str, position: int) -> None:
        """Add one inference's usage to its prefix's row (the first one inserts it)."""
        usage = event.usage
        prefix = event.prefix_sha256 or UNRECORDED_PREFIX
        counts = {
            "b_input": usage["input_tokens"],
            "b_write": usage["cache_creation_input_tokens"],
            "b_read": usage["cache_read_input_tokens"],
        }
        added = conn.execute(
            _ADD_USAGE, {"b_prefix": prefix, "b_at": at, "b_position": position, **counts}
        )
        if added.rowcount:
            return
        conn.execute(
            _INSERT_PREFIX,
            {
                "prefix_sha256": prefix,
                "calls": 1,
                "input_tokens": counts["b_input"],
                "cache_write_tokens": counts["b_write"],
                "cache_read_tokens": counts["b_read"],
                "first_at": at,
                "last_at": at,
                "position": position,
            },
        )

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
