"""Read-only queries of the review queue: claims a sampled entailment check did not fully
support."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from projections.schema import review_queue


async def review_items(conn: AsyncConnection, after: int, limit: int) -> list[dict[str, Any]]:
    """The queue's rows after position ``after``, oldest first, at most ``limit``."""
    rows = (
        (
            await conn.execute(
                select(review_queue)
                .where(review_queue.c.position > after)
                .order_by(review_queue.c.position)
                .limit(limit)
            )
        )
        .mappings()
        .all()
    )
    return [dict(row) for row in rows]
