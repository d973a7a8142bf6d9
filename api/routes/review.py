"""The review queue: claims a sampled entailment check did not fully support."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from sqlalchemy import select

from api.deps import MAX_INT, AuditReader, ReadSideDep
from api.openapi import answers
from api.schemas import ReviewPage
from projections.schema import review_queue

router = APIRouter(tags=["review"])


@router.get("/v1/review", response_model=None, responses=answers(ReviewPage))
async def review(
    read_side: ReadSideDep,
    _: AuditReader,
    after: Annotated[
        int, Query(ge=0, le=MAX_INT, description="return items after this position")
    ] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    """Entailment verdicts ``no`` and ``partial``, oldest first, paged by position."""
    async with read_side.async_engine.connect() as conn:
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
    items = [dict(row) for row in rows]
    return {"items": items, "next_after": items[-1]["position"] if items else after}
