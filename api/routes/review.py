"""The review queue: claims a sampled entailment check did not fully support."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from api.deps import AuditReader, ReviewReadDeskDep
from api.errors import Problem
from api.pages import After, Page, position_cursor

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
    desk: ReviewReadDeskDep,
    _: AuditReader,
    after: After = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    """Entailment verdicts ``no`` and ``partial``, oldest first, paged by position (the
    cursor is a position in decimal)."""
    start = position_cursor(after)
    items, last = await desk.queue(start, limit)
    return {
        "items": items,
        "next": None if last is None else str(last),
        "next_after": items[-1]["position"] if items else start,
    }
