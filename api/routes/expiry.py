"""Corrections: what stood on a source version, and retiring a policy."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel, ConfigDict

from api.deps import MAX_INT32, ExpiryDeskDep, ExpiryProcessDep, ReadSideDep, require
from api.openapi import answers
from api.schemas import AffectedOut, PolicyRetired
from ledger.keys.api_keys import Principal, Scope
from projections.claim_queries import affected_by_version

router = APIRouter(tags=["expiry"])
Reader = Annotated[Principal, Depends(require(Scope.READ))]
Admin = Annotated[Principal, Depends(require(Scope.ADMIN))]


class RetireIn(BaseModel):
    """``POST /v1/policies/{policy_version}/retire``."""

    model_config = ConfigDict(extra="forbid")
    reason: str


@router.get(
    "/v1/sources/{source_id}/versions/{version}/affected",
    response_model=None,
    responses=answers(AffectedOut, 404),
)
async def affected(
    source_id: str,
    version: Annotated[int, Path(ge=1, le=MAX_INT32)],
    read_side: ReadSideDep,
    _: Reader,
) -> dict[str, Any]:
    """Every receipt and committed claim that stood on this source version."""
    async with read_side.async_engine.connect() as conn:
        return await affected_by_version(conn, source_id, version)


@router.post(
    "/v1/policies/{policy_version}/retire",
    status_code=201,
    response_model=None,
    responses=answers(PolicyRetired, 409, statuses=(201,)),
)
def retire_policy(
    policy_version: str,
    body: RetireIn,
    principal: Admin,
    process: ExpiryProcessDep,
    desk: ExpiryDeskDep,
) -> dict[str, Any]:
    """Retire a policy version: every receipt opened under it expires, none opens again."""
    desk.retire_policy(policy_version, body.reason, principal.actor)
    before = process.expired
    process.run_once()  # expire at once rather than at the next poll
    return {
        "policy_version": policy_version,
        "status": "retired",
        "receipts_expired": process.expired - before,
    }
