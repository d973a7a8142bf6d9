"""A committed claim rendered for a reader."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from api.deps import AsOfDep, ClaimReadDeskDep, require
from api.errors import Problem
from api.openapi import answers
from api.pages import After, Limit, Page, decode_cursor, encode_cursor
from api.schemas import ClaimView
from ledger.keys.api_keys import Caller, Scope

router = APIRouter(tags=["claims"])
Reader = Annotated[Caller, Depends(require(Scope.READ))]


class ClaimSummary(BaseModel):
    """A claim as ``GET /v1/claims`` lists it (from the read model; the claim itself, with its
    text, checks and rendered bindings, is ``GET /v1/claims/{claim_id}``)."""

    claim_id: str
    receipt_id: str
    ordinal: int
    status: str = Field(description="verified, unverified or rejected")
    committed: bool = Field(description="false for a quarantined or rejected claim")
    client_ref: str | None
    type: str
    recorded_at: str
    position: int


@router.get(
    "/v1/claims",
    response_model=Page[ClaimSummary],
    responses={
        401: {"model": Problem, "description": "no or unknown API key"},
        403: {"model": Problem, "description": "the key lacks the read scope"},
        422: {"model": Problem, "description": "invalid input (errors names field and rule)"},
    },
)
async def list_claims_route(
    desk: ClaimReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
    receipt_id: Annotated[str | None, Query(max_length=40)] = None,
    source_id: Annotated[str | None, Query(max_length=128)] = None,
    status: Annotated[Literal["verified", "unverified", "rejected"] | None, Query()] = None,
) -> dict[str, Any]:
    """Claims in the order they were recorded, filtered, a page at a time (a pinned key: only
    claims of receipts it may read, docs/access.md)."""
    key = decode_cursor("claims", after, (int, int))
    items, last = await desk.claims_page(key, limit, caller.pins, receipt_id, source_id, status)
    return {"items": items, "next": None if last is None else encode_cursor("claims", last)}


@router.get("/v1/claims/{claim_id}", response_model=None, responses=answers(ClaimView, 404))
async def get_claim(
    claim_id: str, desk: ClaimReadDeskDep, caller: Reader, as_of: AsOfDep
) -> dict[str, Any]:
    """The claim with, per binding, its document, breadcrumb, excerpt and warnings, as it
    stood at ``known_at`` (committed, repaired, its receipt expired or not)."""
    return await desk.claim(claim_id, caller.pins, as_of)
