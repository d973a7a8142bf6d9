"""Read-only queries of the receipts read model: lists of receipts and of claims.

A listed row is a summary from the read model, for finding things (rendered by the rules of
``ledger.receipts.summaries``); the page served is checked against the receipts' verified
events by ``ledger.receipts.served_rows``. The receipt and the claim themselves (text,
checks, bindings) are read from verified events by ``GET /v1/receipts/{id}`` and
``GET /v1/claims/{id}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import RowMapping, Select, and_, exists, func, or_, select, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

from ledger.receipts.summaries import receipt_summary, receipt_summary_at
from projections.schema import claim_bindings, receipt_claims, receipts


@dataclass(frozen=True)
class ReceiptFilter:
    """``GET /v1/receipts`` filters; ``None`` means any. Times are ledger-format strings."""

    actor: str | None = None
    purpose: str | None = None
    policy_version: str | None = None
    status: str | None = None  # open | expired
    opened_after: str | None = None
    opened_before: str | None = None
    opened_from: str | None = None  # inclusive, where ``opened_after`` is exclusive


def _receipt_json(row: RowMapping, now: str) -> dict[str, Any]:
    return {**receipt_summary(row, now), "position": row["position"]}


def _filtered(query: Select[Any], where: ReceiptFilter) -> Select[Any]:
    """``query`` narrowed by every filter of ``where`` except the status."""
    for column, value in (
        (receipts.c.actor, where.actor),
        (receipts.c.purpose, where.purpose),
        (receipts.c.policy_version, where.policy_version),
    ):
        if value is not None:
            query = query.where(column == value)
    if where.opened_after is not None:
        query = query.where(receipts.c.opened_at > where.opened_after)
    if where.opened_from is not None:
        query = query.where(receipts.c.opened_at >= where.opened_from)
    if where.opened_before is not None:
        query = query.where(receipts.c.opened_at < where.opened_before)
    return query


async def list_receipts(
    conn: AsyncConnection, where: ReceiptFilter, after: int, limit: int, now: str
) -> list[dict[str, Any]]:
    """Up to ``limit + 1`` receipts opened after log position ``after``, oldest first."""
    query = _filtered(select(receipts).where(receipts.c.position > after), where)
    passed = and_(receipts.c.expires_at.is_not(None), receipts.c.expires_at <= now)
    if where.status == "expired":
        query = query.where(or_(receipts.c.expired_at.is_not(None), passed))
    elif where.status == "open":
        query = query.where(receipts.c.expired_at.is_(None), ~passed)
    rows = (
        (await conn.execute(query.order_by(receipts.c.position).limit(limit + 1))).mappings().all()
    )
    return [_receipt_json(row, now) for row in rows]


async def receipts_as_at(
    conn: AsyncConnection,
    where: ReceiptFilter,
    now: str,
    *,
    before: int | None = None,
    limit: int = 50,
) -> tuple[list[dict[str, Any]], int | None]:
    """A page of receipts newest first, opened before log position ``before`` (the cursor),
    each with its status as it stood at ``now`` (a ledger time: the present, or a moment
    replayed), its request (null in a read model built before the column) and its counts of
    committed and of refused (quarantined) claims; and the cursor of the next page (None at
    the end). Unlike :func:`list_receipts`, an expiry recorded after ``now`` leaves a receipt
    open."""
    expired = or_(
        and_(receipts.c.expired_at.is_not(None), receipts.c.expired_at <= now),
        and_(receipts.c.expires_at.is_not(None), receipts.c.expires_at <= now),
    )

    def claims(committed: int) -> Any:
        return (
            select(func.count())
            .where(receipt_claims.c.receipt_id == receipts.c.receipt_id)
            .where(receipt_claims.c.committed == committed)
            .scalar_subquery()
        )

    query = _filtered(
        select(receipts, claims(1).label("claim_count"), claims(0).label("refused_count")),
        where,
    )
    if where.status == "expired":
        query = query.where(expired)
    elif where.status == "open":
        query = query.where(~expired)
    if before is not None:
        query = query.where(receipts.c.position < before)
    query = query.order_by(receipts.c.position.desc()).limit(limit + 1)
    rows = (await conn.execute(query)).mappings().all()
    found = []
    for row in rows[:limit]:
        found.append(
            {
                **receipt_summary_at(row, now),
                "position": row["position"],
                "claim_count": int(row["claim_count"]),
                "refused_count": int(row["refused_count"]),
            }
        )
    more = len(rows) > limit
    return found, int(found[-1]["position"]) if more else None


async def list_claims(
    conn: AsyncConnection,
    after: Sequence[int],
    limit: int,
    receipt_id: str | None = None,
    source_id: str | None = None,
    status: str | None = None,
) -> list[dict[str, Any]]:
    """Up to ``limit + 1`` claims after the sort key ``after`` (log position, ordinal), in log
    order; ``source_id`` keeps claims with a binding to that source. The claims of one receipt
    (``receipt_id``) come in its commit order, by ordinal alone: a commit that quarantines a
    claim records it in an event after the committed ones, whatever its place."""
    c = receipt_claims.c
    query = select(
        c.claim_id,
        c.receipt_id,
        c.ordinal,
        c.status,
        c.committed,
        c.client_ref,
        c.claim_type,
        c.recorded_at,
        c.position,
    )
    order = [c.position, c.ordinal] if receipt_id is None else [c.ordinal]
    if after:
        query = query.where(tuple_(*order) > tuple_(*after[-len(order) :]))
    if receipt_id is not None:
        query = query.where(c.receipt_id == receipt_id)
    if status is not None:
        query = query.where(c.status == status)
    if source_id is not None:
        query = query.where(
            exists().where(
                claim_bindings.c.claim_id == c.claim_id, claim_bindings.c.source_id == source_id
            )
        )
    rows = (await conn.execute(query.order_by(*order).limit(limit + 1))).mappings().all()
    return [
        {
            "claim_id": row["claim_id"],
            "receipt_id": row["receipt_id"],
            "ordinal": row["ordinal"],
            "status": row["status"],
            "committed": bool(row["committed"]),
            "client_ref": row["client_ref"],
            "type": row["claim_type"],
            "recorded_at": row["recorded_at"],
            "position": row["position"],
        }
        for row in rows
    ]
