"""The receipt index read model: who opened each receipt, for what, under which policy.

The ``receipts`` read model answers "which receipt holds this claim"; an auditor browsing
receipts also filters on the actor and purpose the receipt was opened for, which only the
``opened`` event carries. This projection keeps one row per receipt with those fields. It is
caught up on demand by its reader (the console), from its own tracking row, so the write
path never waits for it. Rows are keyed by receipt id and written with delete-then-insert, so
re-applying an event after a rebuild leaves one row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    Engine,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
)

from ledger.audit.log_verify import StoredRow
from ledger.eventlog.clock import format_time
from ledger.receipts.receipt import Receipt
from projections.runner import Projection
from projections.schema import claim_bindings, receipt_claims, receipts

index_metadata = MetaData()

receipt_index = Table(
    "receipt_index",
    index_metadata,
    Column("receipt_id", String(40), primary_key=True),
    Column("position", BigInteger, nullable=False),
    Column("actor", Text, nullable=False),
    Column("purpose", Text, nullable=False),
    Column("policy_version", Text, nullable=False),
    Column("route", String(32), nullable=False),
    Column("model", Text, nullable=False),
    Column("opened_at", String(32), nullable=False),
    Column("pool_size", Integer, nullable=False),
    Index("ix_receipt_index_actor", "actor"),
    Index("ix_receipt_index_purpose", "purpose"),
    Index("ix_receipt_index_opened", "opened_at"),
    Index("ix_receipt_index_position", "position"),
)


def create_tables(engine: Engine) -> None:
    """Create the index table if it is missing (its own metadata: an optional read model)."""
    index_metadata.create_all(engine)


class ReceiptIndexProjection(Projection):
    """Builds ``receipt_index`` from ``receipt opened`` events."""

    name = "receipt_index"
    topics = (Receipt.Opened.TOPIC,)

    def apply(self, conn: Connection, event: Any, notification: StoredRow) -> None:
        """One row per opened receipt."""
        context = event.context
        model = context.get("model") or {}
        conn.execute(delete(receipt_index).where(receipt_index.c.receipt_id == event.receipt_id))
        conn.execute(
            insert(receipt_index),
            {
                "receipt_id": event.receipt_id,
                "position": notification.id,
                "actor": context["actor"],
                "purpose": context["purpose"],
                "policy_version": context["policy_version"],
                "route": context["route"],
                "model": f"{model.get('name', '')} {model.get('version', '')}".strip(),
                "opened_at": format_time(event.timestamp),
                "pool_size": len(event.pool),
            },
        )

    def reset(self, conn: Connection) -> None:
        """Delete every row."""
        conn.execute(receipt_index.delete())


@dataclass(frozen=True)
class ReceiptFilter:
    """What an auditor narrows the receipt list to; None leaves a field unfiltered.

    ``status`` is ``open`` or ``expired`` (as of ``now``); ``opened_from`` and ``opened_to``
    bound the opening time (ledger times, inclusive and exclusive)."""

    actor: str | None = None
    purpose: str | None = None
    policy_version: str | None = None
    status: str | None = None
    opened_from: str | None = None
    opened_to: str | None = None


@dataclass(frozen=True)
class ReceiptPage:
    """One page of the list, newest first, and the cursor of the next page (None at the end)."""

    rows: list[dict[str, Any]]
    next_cursor: int | None


def list_receipts(
    conn: Connection,
    wanted: ReceiptFilter,
    now: str,
    *,
    before: int | None = None,
    limit: int = 50,
) -> ReceiptPage:
    """Receipts matching ``wanted``, newest first, after the cursor ``before`` (a position);
    a receipt's status is the one it had at ``now`` (a ledger time)."""
    expired = or_(
        and_(receipts.c.expired_at.is_not(None), receipts.c.expired_at <= now),
        and_(receipts.c.expires_at.is_not(None), receipts.c.expires_at <= now),
    )
    claim_count = (
        select(func.count())
        .where(receipt_claims.c.receipt_id == receipt_index.c.receipt_id)
        .where(receipt_claims.c.committed == 1)
        .scalar_subquery()
    )
    query = (
        select(
            receipt_index,
            receipts.c.expires_at,
            receipts.c.expired_at,
            receipts.c.expiry_reason,
            claim_count.label("claim_count"),
        )
        .join(receipts, receipts.c.receipt_id == receipt_index.c.receipt_id)
        .order_by(receipt_index.c.position.desc())
        .limit(limit + 1)
    )
    conditions = []
    if wanted.actor is not None:
        conditions.append(receipt_index.c.actor == wanted.actor)
    if wanted.purpose is not None:
        conditions.append(receipt_index.c.purpose == wanted.purpose)
    if wanted.policy_version is not None:
        conditions.append(receipt_index.c.policy_version == wanted.policy_version)
    if wanted.status == "expired":
        conditions.append(expired)
    elif wanted.status == "open":
        conditions.append(~expired)
    if wanted.opened_from is not None:
        conditions.append(receipt_index.c.opened_at >= wanted.opened_from)
    if wanted.opened_to is not None:
        conditions.append(receipt_index.c.opened_at < wanted.opened_to)
    if before is not None:
        conditions.append(receipt_index.c.position < before)
    if conditions:
        query = query.where(*conditions)
    found = [dict(row) for row in conn.execute(query).mappings()]
    for row in found:
        ended = [t for t in (row["expired_at"], row["expires_at"]) if t is not None]
        row["status"] = "expired" if any(t <= now for t in ended) else "open"
    more = len(found) > limit
    page = found[:limit]
    return ReceiptPage(page, int(page[-1]["position"]) if more else None)


def receipts_citing(conn: Connection, source_ids: Sequence[str]) -> dict[str, int]:
    """How many committed claims cite each of ``source_ids`` (any version)."""
    if not source_ids:
        return {}
    rows = conn.execute(
        select(claim_bindings.c.source_id, func.count(func.distinct(claim_bindings.c.claim_id)))
        .join(receipt_claims, receipt_claims.c.claim_id == claim_bindings.c.claim_id)
        .where(claim_bindings.c.source_id.in_(list(source_ids)), receipt_claims.c.committed == 1)
        .group_by(claim_bindings.c.source_id)
    ).all()
    return {str(source_id): int(count) for source_id, count in rows}
