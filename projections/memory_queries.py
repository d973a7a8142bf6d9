"""Read-only queries of memory items: the list, the receipts that used an item, and what the
expiry process asks.

Rows are an index: an item itself (text, scope, sources) is read from its verified events by
``GET /v1/memory/{memory_id}``; who may see a listed item is decided from those events too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, RowMapping, and_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from projections.schema import (
    memory_items,
    memory_versions,
    receipt_claims,
    receipt_memory,
    receipts,
)


@dataclass(frozen=True)
class MemoryFilter:
    """``GET /v1/memory`` filters; ``None`` means any."""

    purpose: str | None = None
    status: str | None = None  # active | expired | revoked


def memory_status(row: RowMapping | dict[str, Any], now: str) -> str:
    """``revoked``, ``expired`` (its current version's ``expires_at`` passed) or ``active``."""
    if row["revoked_at"] is not None:
        return "revoked"
    return "expired" if row["expires_at"] <= now else "active"


def _summary(row: RowMapping, now: str) -> dict[str, Any]:
    return {
        "memory_id": row["memory_id"],
        "purpose": row["purpose"],
        "version": row["current_version"],
        "status": memory_status(row, now),
        "expires_at": row["expires_at"],
        "recorded_at": row["recorded_at"],
        "updated_at": row["updated_at"],
        "revoked_at": row["revoked_at"],
        "position": row["position"],
    }


async def list_memory(
    conn: AsyncConnection, where: MemoryFilter, after: str, limit: int, now: str
) -> list[dict[str, Any]]:
    """Up to ``limit + 1`` item summaries after memory id ``after``, by memory id."""
    query = select(memory_items).where(memory_items.c.memory_id > after)
    if where.purpose is not None:
        query = query.where(memory_items.c.purpose == where.purpose)
    if where.status == "revoked":
        query = query.where(memory_items.c.revoked_at.is_not(None))
    elif where.status == "expired":
        query = query.where(memory_items.c.revoked_at.is_(None), memory_items.c.expires_at <= now)
    elif where.status == "active":
        query = query.where(memory_items.c.revoked_at.is_(None), memory_items.c.expires_at > now)
    rows = (
        (await conn.execute(query.order_by(memory_items.c.memory_id).limit(limit + 1)))
        .mappings()
        .all()
    )
    return [_summary(row, now) for row in rows]


async def receipts_using(
    conn: AsyncConnection, memory_id: str, after: str, limit: int
) -> list[dict[str, Any]]:
    """Up to ``limit + 1`` receipts whose pool sealed a version of the item, by receipt id,
    each with the version it sealed and its expiry status."""
    rows = (
        await conn.execute(
            select(
                receipt_memory.c.receipt_id,
                receipt_memory.c.version,
                receipts.c.expired_at,
                receipts.c.expiry_reason,
            )
            .join(receipts, receipts.c.receipt_id == receipt_memory.c.receipt_id)
            .where(receipt_memory.c.memory_id == memory_id, receipt_memory.c.receipt_id > after)
            .order_by(receipt_memory.c.receipt_id)
            .limit(limit + 1)
        )
    ).all()
    return [
        {
            "receipt_id": receipt_id,
            "memory_version": version,
            "status": "expired" if expired_at else "open",
            "expiry_reason": reason,
        }
        for receipt_id, version, expired_at, reason in rows
    ]


# The expiry process ----------------------------------------------------------------------------


def memory_id_of(conn: Connection, aggregate_id: str) -> str:
    """The memory id of an item's aggregate."""
    return str(
        conn.execute(
            select(memory_items.c.memory_id).where(memory_items.c.aggregate_id == aggregate_id)
        ).scalar_one()
    )


def receipts_sealing(
    conn: Connection, memory_id: str, before: int, version: int | None = None
) -> list[str]:
    """Receipts opened before log position ``before`` whose pool sealed the item (the given
    version only, when one is given). One opened after it is the opening's own to expire (the
    expiry process's check of an opening), so each change expires a receipt once."""
    condition = and_(receipt_memory.c.memory_id == memory_id, receipt_memory.c.position < before)
    if version is not None:
        condition = and_(condition, receipt_memory.c.version == version)
    rows = conn.execute(
        select(receipt_memory.c.receipt_id).where(condition).order_by(receipt_memory.c.receipt_id)
    ).scalars()
    return [str(receipt_id) for receipt_id in rows]


def memory_changes(conn: Connection, memory_ids: list[str]) -> dict[str, dict[str, Any]]:
    """For each item: the log position of its revocation (or None) and of each version."""
    found: dict[str, dict[str, Any]] = {}
    if not memory_ids:
        return found
    for memory_id, revoked in conn.execute(
        select(memory_items.c.memory_id, memory_items.c.revoked_position).where(
            memory_items.c.memory_id.in_(memory_ids)
        )
    ):
        found[str(memory_id)] = {"revoked": revoked, "versions": {}}
    for memory_id, version, position in conn.execute(
        select(
            memory_versions.c.memory_id, memory_versions.c.version, memory_versions.c.position
        ).where(memory_versions.c.memory_id.in_(memory_ids))
    ):
        found[str(memory_id)]["versions"][int(version)] = int(position)
    return found


def memory_due(conn: Connection, now: str) -> list[tuple[str, str, int, str]]:
    """``(receipt_id, memory_id, version, expires_at)`` of every receipt not yet expired whose
    pool sealed a memory version whose ``expires_at`` has passed."""
    rows = conn.execute(
        select(
            receipt_memory.c.receipt_id,
            receipt_memory.c.memory_id,
            receipt_memory.c.version,
            memory_versions.c.expires_at,
        )
        .join(
            memory_versions,
            and_(
                memory_versions.c.memory_id == receipt_memory.c.memory_id,
                memory_versions.c.version == receipt_memory.c.version,
            ),
        )
        .join(receipts, receipts.c.receipt_id == receipt_memory.c.receipt_id)
        .where(memory_versions.c.expires_at <= now, receipts.c.expired_at.is_(None))
        .order_by(receipt_memory.c.receipt_id, receipt_memory.c.memory_id)
    ).all()
    return [(str(r), str(m), int(v), str(e)) for r, m, v, e in rows]


def receipt_of_claim(engine: Engine, claim_id: str) -> str | None:
    """The receipt the read model says holds ``claim_id`` (None: none does)."""
    with engine.connect() as conn:
        value = conn.execute(
            select(receipt_claims.c.receipt_id).where(receipt_claims.c.claim_id == claim_id)
        ).scalar()
    return None if value is None else str(value)


__all__ = [
    "MemoryFilter",
    "list_memory",
    "memory_changes",
    "memory_due",
    "memory_id_of",
    "memory_status",
    "receipt_of_claim",
    "receipts_sealing",
    "receipts_using",
]
