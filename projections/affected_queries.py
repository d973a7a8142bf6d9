"""Which receipts a change touches: those that recorded a model, tool or context-assembly
version, were opened under a policy or by an API key, or were expired by one change.

Read-only; each list is ordered by receipt id and read a page at a time (``after`` the last
receipt id served, ``limit + 1`` rows so the caller knows whether more follow). The rows only
name receipts: what hangs off each (status, outcome, actions) is read from its verified events.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from projections.schema import receipt_expiries, receipt_parts, receipts

ReadConnection = AsyncConnection
"""The read-model connection these queries take (what ``api/`` names it, running no SQL)."""


async def _page(
    conn: AsyncConnection, query: Select[Any], column: Any, after: str | None, limit: int
) -> list[dict[str, Any]]:
    if after is not None:
        query = query.where(column > after)
    rows = await conn.execute(query.order_by(column).limit(limit + 1))
    return [dict(row._mapping) for row in rows]


def recorded_versions(kind: str, version: str) -> ColumnElement[bool]:
    """The rows of ``receipt_parts`` a change of ``version`` reaches: that version, and for a
    tool also the bare name (a receipt recording it cannot show it used another version)."""
    condition = receipt_parts.c.version == version
    if kind == "tool":
        condition = condition | receipt_parts.c.version.is_(None)
    return condition


async def receipts_recording(
    conn: AsyncConnection, kind: str, name: str, version: str, after: str | None, limit: int
) -> list[dict[str, Any]]:
    """Receipts recording ``version`` of the model, tool or context assembly ``name``."""
    query = (
        select(receipt_parts.c.receipt_id)
        .where(
            receipt_parts.c.kind == kind,
            receipt_parts.c.name == name,
            recorded_versions(kind, version),
        )
        .distinct()
    )
    return await _page(conn, query, receipt_parts.c.receipt_id, after, limit)


async def receipts_under_policy(
    conn: AsyncConnection, policy_version: str, after: str | None, limit: int
) -> list[dict[str, Any]]:
    """Receipts opened under ``policy_version``."""
    query = select(receipts.c.receipt_id).where(receipts.c.policy_version == policy_version)
    return await _page(conn, query, receipts.c.receipt_id, after, limit)


async def receipts_opened_by(
    conn: AsyncConnection, opened_by: str, after: str | None, limit: int
) -> list[dict[str, Any]]:
    """Receipts an API key (``key:<name>``) opened."""
    query = select(receipts.c.receipt_id).where(receipts.c.opened_by == opened_by)
    return await _page(conn, query, receipts.c.receipt_id, after, limit)


async def receipts_expired_by(
    conn: AsyncConnection, cause: str, after: str | None, limit: int
) -> list[dict[str, Any]]:
    """Receipts one change expired (its cause, ``n<id>``), with the reason it gave each."""
    query = select(receipt_expiries.c.receipt_id, receipt_expiries.c.reason).where(
        receipt_expiries.c.cause == cause
    )
    return await _page(conn, query, receipt_expiries.c.receipt_id, after, limit)


async def count_expired_by(conn: AsyncConnection, cause: str) -> int:
    """How many receipts one change expired."""
    query = (
        select(func.count()).select_from(receipt_expiries).where(receipt_expiries.c.cause == cause)
    )
    return int((await conn.execute(query)).scalar_one())
