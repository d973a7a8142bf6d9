"""Corrections: what stood on a source version, and retiring a policy."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel, ConfigDict, Field

from api.affected import expired_json
from api.deps import MAX_INT32, AffectedReadDeskDep, ChangeDeskDep, require
from api.errors import Problem
from api.expiry_schemas import PolicyRetired
from api.openapi import answers
from api.pages import After, Limit, decode_cursor, encode_cursor
from ledger.keys.api_keys import Caller, Scope

router = APIRouter(tags=["expiry"])
Reader = Annotated[Caller, Depends(require(Scope.READ))]
Admin = Annotated[Caller, Depends(require(Scope.ADMIN))]


class RetireIn(BaseModel):
    """``POST /v1/policies/{policy_version}/retire``."""

    model_config = ConfigDict(extra="forbid")
    reason: str


class AffectedPage(BaseModel):
    """Receipts (with their committed claims) that stood on a source version, a page at a
    time by receipt id; the counts are over every page."""

    source_id: str
    version: int
    items: list[dict[str, Any]] = Field(
        description="[{receipt_id, status, expiry_reason, outcome, actions, claims: [{claim_id, "
        "status, span_ids}]}]: outcome (decision, reviewer, recorded_by, at; null when none) "
        "and actions ({action_id, kind, target, recorded_at}) from the receipt's verified events"
    )
    next: str | None = Field(description="pass as ?after= for the next page; null on the last")
    receipts: list[dict[str, Any]] = Field(description="deprecated: the same as items")
    receipt_count: int
    claim_count: int


@router.get(
    "/v1/sources/{source_id}/versions/{version}/affected",
    response_model=AffectedPage,
    responses={
        401: {"model": Problem, "description": "no or unknown API key"},
        403: {"model": Problem, "description": "the key lacks the read scope"},
        404: {
            "model": Problem,
            "description": "no such source version (or, to a key with pins, one it may not see)",
        },
        422: {"model": Problem, "description": "invalid input (errors names field and rule)"},
    },
)
async def affected(
    source_id: str,
    version: Annotated[int, Path(ge=1, le=MAX_INT32)],
    desk: AffectedReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Every receipt and committed claim that stood on this source version, each receipt with
    its outcome and downstream actions (a pinned key: a source it may not see is one the
    ledger does not hold; only receipts it may read, and the counts over those,
    docs/access.md)."""
    name = f"affected:{source_id}:{version}"
    key = decode_cursor(name, after, (str,))
    found = await desk.standing_on(source_id, version, key[0] if key else None, limit, caller.pins)
    return {
        **found.body,
        "items": found.items,
        "next": None if found.last is None else encode_cursor(name, [found.last]),
        "receipts": found.items,
    }


@router.post(
    "/v1/policies/{policy_version}/retire",
    status_code=201,
    response_model=None,
    responses=answers(PolicyRetired, 409, statuses=(201,)),
)
async def retire_policy(
    policy_version: str, body: RetireIn, principal: Admin, desk: ChangeDeskDep
) -> dict[str, Any]:
    """Retire a policy version: every receipt opened under it expires before this answers
    (the first 100 named in ``expired``, each with its downstream actions), none opens
    again."""
    settled = await desk.retire_policy(policy_version, body.reason, principal.actor)
    return {
        "policy_version": policy_version,
        "status": "retired",
        "receipts_expired": settled.receipts_expired,
        "expired": expired_json(settled.expired),
    }
