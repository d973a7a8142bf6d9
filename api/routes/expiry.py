"""Corrections: what stood on a source version, and retiring a policy."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from api.affected import expired_at
from api.deps import (
    MAX_INT32,
    ExpiryDeskDep,
    ExpiryProcessDep,
    OutcomeDeskDep,
    ReadSideDep,
    ReceiptDeskDep,
    SightDep,
    require,
)
from api.errors import Problem
from api.expiry_schemas import PolicyRetired
from api.openapi import answers
from api.pages import After, Limit, decode_cursor, encode_cursor
from ledger.errors import NotFound
from ledger.keys.api_keys import Caller, Scope
from projections.affected_queries import count_expired_by
from projections.claim_queries import affected_by_version
from projections.pages import page
from projections.pinned_view import pinned_view

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
    read_side: ReadSideDep,
    desk: ReceiptDeskDep,
    outcomes: OutcomeDeskDep,
    sight: SightDep,
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
    view = await pinned_view(caller.pins, sight, desk)
    if view is not None and not await view.sees_source(source_id):
        raise NotFound(f"source {source_id!r} has no version {version}")
    async with read_side.async_engine.connect() as conn:
        body = await affected_by_version(conn, source_id, version)
    if view is not None:
        readable = [r for r in body["receipts"] if await view.receipt_row(r)]
        body["receipts"] = readable
        body["receipt_count"] = len(readable)
        body["claim_count"] = sum(len(r["claims"]) for r in readable)
    ordered = sorted(body["receipts"], key=lambda row: str(row["receipt_id"]))
    rows = [r for r in ordered if not key or r["receipt_id"] > key[0]][: limit + 1]
    items, last = page(rows, limit, lambda row: row["receipt_id"])
    # Refused (500 ``ledger-integrity``) unless the verified events hold every row served.
    await run_in_threadpool(read_side.served_receipts.check_affected, items, source_id, version)
    hanging = await run_in_threadpool(outcomes.downstream, [row["receipt_id"] for row in items])
    items = [{**row, **hanging[row["receipt_id"]]} for row in items]
    return {
        **body,
        "items": items,
        "next": None if last is None else encode_cursor(name, [last]),
        "receipts": items,
    }


@router.post(
    "/v1/policies/{policy_version}/retire",
    status_code=201,
    response_model=None,
    responses=answers(PolicyRetired, 409, statuses=(201,)),
)
async def retire_policy(
    policy_version: str,
    body: RetireIn,
    principal: Admin,
    process: ExpiryProcessDep,
    desk: ExpiryDeskDep,
    read_side: ReadSideDep,
    outcomes: OutcomeDeskDep,
) -> dict[str, Any]:
    """Retire a policy version: every receipt opened under it expires before this answers
    (the first 100 named in ``expired``, each with its downstream actions), none opens
    again."""
    _, position = await run_in_threadpool(
        desk.retire_policy, policy_version, body.reason, principal.actor
    )
    await run_in_threadpool(process.settle, position)  # expire before answering
    expired = await expired_at(position, read_side, outcomes, None)
    async with read_side.async_engine.connect() as conn:
        count = await count_expired_by(conn, f"n{position}")
    return {
        "policy_version": policy_version,
        "status": "retired",
        "receipts_expired": count,
        "expired": expired,
    }
