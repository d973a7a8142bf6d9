"""The review queue: claims a sampled entailment check did not fully support."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from api.deps import AuditReader, ReadSideDep
from api.errors import Problem
from api.pages import After, Page, position_cursor
from projections.pages import page
from projections.review_queries import review_items

router = APIRouter(tags=["review"])


class ReviewItem(BaseModel):
    """A claim an entailment check did not fully support."""

    position: int
    claim_id: str
    receipt_id: str
    claim_text: str
    verdict: str = Field(description="no or partial")
    verifier: str
    model: str
    judged_at: str


class ReviewPage(Page[ReviewItem]):
    """A page of the review queue."""

    next_after: int = Field(description="deprecated: the last position of the page (or after)")


@router.get(
    "/v1/review",
    response_model=ReviewPage,
    responses={
        401: {"model": Problem, "description": "no or unknown API key"},
        403: {"model": Problem, "description": "the key lacks the audit:read scope"},
        422: {"model": Problem, "description": "invalid input (errors names field and rule)"},
    },
)
async def review(
    read_side: ReadSideDep,
    _: AuditReader,
    after: After = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    """Entailment verdicts ``no`` and ``partial``, oldest first, paged by position (the
    cursor is a position in decimal)."""
    start = position_cursor(after)
    async with read_side.async_engine.connect() as conn:
        rows = await review_items(conn, start, limit + 1)
    items, last = page(rows, limit, lambda row: row["position"])
    # Refused (500 ``ledger-integrity``) unless the verified events hold every entry served.
    await run_in_threadpool(read_side.served_receipts.check_review, items)
    return {
        "items": items,
        "next": None if last is None else str(last),
        "next_after": items[-1]["position"] if items else start,
    }
