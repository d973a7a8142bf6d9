"""Memory items over HTTP: record, correct, revoke, read, list, and the receipts that used one
(docs/memory.md)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from api.affected import expired_json
from api.bodies import AccessIn, AccessOut, checked_idempotency_key
from api.deps import ChangeDeskDep, MemoryDeskDep, MemoryReadDeskDep, Rfc3339, require
from api.openapi import answers
from api.pages import After, Limit, Page, decode_cursor, encode_cursor
from ledger.eventlog.clock import format_time
from ledger.keys.api_keys import Caller, Scope
from ledger.memory.item import MemoryItem
from ledger.memory.memory_desk import MemoryDraft
from processes.change_desk import MemoryChange

router = APIRouter(tags=["memory"])
Writer = Annotated[Caller, Depends(require(Scope.CLAIMS_WRITE))]
Reader = Annotated[Caller, Depends(require(Scope.READ))]
SourceIds = list[Annotated[str, Field(max_length=40)]]


class MemoryIn(BaseModel):
    """``POST /v1/memory``: a memory item and its first version."""

    model_config = ConfigDict(extra="forbid")
    memory_id: str | None = Field(
        default=None,
        description="mem_ + up to 124 of [A-Za-z0-9._:-]; default: made from the "
        "Idempotency-Key (a retry names the same item), else a new one",
    )
    purpose: str = Field(max_length=64, description="why it is kept (a token, as a principal's)")
    scope: AccessIn = Field(
        description="who may use it: access attributes the policy decides on as a source's; "
        "purposes default to [purpose]"
    )
    source: SourceIds = Field(
        max_length=100, description="span and claim ids it came from (1 to 100)"
    )
    text: str = Field(description="what is kept (at most 4,000 characters)")
    expires_at: Rfc3339 = Field(description="until when it stands (in the future)")


class MemoryVersionIn(BaseModel):
    """``POST /v1/memory/{memory_id}/versions``: a correction; a field left out keeps the
    current version's."""

    model_config = ConfigDict(extra="forbid")
    reason: str = Field(description="why it is corrected (1 to 2,000 characters)")
    purpose: str | None = Field(default=None, max_length=64)
    scope: AccessIn | None = None
    source: SourceIds | None = Field(default=None, max_length=100)
    text: str | None = None
    expires_at: Rfc3339 | None = None


class RevokeMemoryIn(BaseModel):
    """``POST /v1/memory/{memory_id}/revoke``."""

    model_config = ConfigDict(extra="forbid")
    reason: str = Field(description="why it no longer stands (1 to 2,000 characters)")


class MemoryVersionOut(BaseModel):
    """One version of a memory item."""

    version: int
    purpose: str
    scope: AccessOut
    source: list[dict[str, Any]] = Field(
        description="{kind: span, span_id, source_id, version, version_hash, text_sha256} or "
        "{kind: claim, claim_id, receipt_id, status, spans}"
    )
    text: str
    text_sha256: str
    expires_at: str
    recorded_at: str
    reason: str | None = Field(description="why it corrected the version before (null: first)")


class MemoryOut(BaseModel):
    """A memory item: its current version's fields, its status and every version."""

    memory_id: str
    status: Literal["active", "expired", "revoked"]
    version: int
    purpose: str
    scope: AccessOut
    source: list[dict[str, Any]]
    text: str
    text_sha256: str
    expires_at: str
    recorded_at: str = Field(description="when the item was first recorded")
    revoked_at: str | None
    revoke_reason: str | None
    versions: list[MemoryVersionOut]


class MemoryWriteOut(MemoryOut):
    """A memory write's answer: the item, whether anything was written, and what the write
    expired before it answered."""

    changed: bool = Field(description="false when nothing was written (the same write again)")
    position: int = Field(description="the log position of the write (or the last one)")
    receipts_expired: int = Field(description="receipts this write expired")
    expired: dict[str, Any] = Field(
        description="{cause, items, next}: the first 100 receipts it expired, each with its "
        "reason, status, outcome and downstream actions; GET /v1/expiries?cause= pages on"
    )


class MemorySummary(BaseModel):
    """A memory item as ``GET /v1/memory`` lists it (from the read model)."""

    memory_id: str
    purpose: str
    version: int
    status: Literal["active", "expired", "revoked"]
    expires_at: str
    recorded_at: str
    updated_at: str
    revoked_at: str | None
    position: int


class MemoryUse(BaseModel):
    """A receipt whose pool sealed a version of the item, with its outcome and downstream
    actions."""

    receipt_id: str
    memory_version: int
    status: Literal["open", "expired"]
    expiry_reason: str | None
    outcome: dict[str, Any] | None
    actions: list[dict[str, Any]]


class MemoryAffectedPage(BaseModel):
    """Receipts that used a memory item, a page at a time by receipt id."""

    memory_id: str
    items: list[MemoryUse]
    next: str | None = Field(description="pass as ?after= for the next page; null on the last")


def memory_json(item: MemoryItem) -> dict[str, Any]:
    """The item as the API shows it."""
    current = item.current.to_json()
    return {
        "memory_id": item.memory_id,
        "status": item.status(format_time(datetime.now(UTC))),
        **{key: current[key] for key in ("version", "purpose", "scope", "source", "text")},
        "text_sha256": current["text_sha256"],
        "expires_at": current["expires_at"],
        "recorded_at": item.versions[0].recorded_at,
        "revoked_at": item.revoked_at,
        "revoke_reason": item.revoke_reason,
        "versions": [version.to_json() for version in item.versions],
    }


@router.post(
    "/v1/memory",
    status_code=201,
    response_model=None,
    responses=answers(MemoryWriteOut, 409, statuses=(201, 200)),
)
def record_memory(
    body: MemoryIn,
    desk: MemoryDeskDep,
    principal: Writer,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
) -> JSONResponse:
    """Record a memory item (201); the same item again answers it (200) and writes nothing."""
    draft = MemoryDraft(
        purpose=body.purpose,
        scope=body.scope.to_access("scope"),
        source=list(body.source),
        text=body.text,
        expires_at=body.expires_at,
    )
    write = desk.record(
        draft,
        principal.actor,
        principal.pins,
        body.memory_id,
        checked_idempotency_key(idempotency_key),
    )
    answer = {
        **memory_json(write.item),
        "changed": write.changed,
        "position": write.position,
        "receipts_expired": 0,  # a new item was used by no receipt yet
        "expired": {"cause": None, "items": [], "next": None},
    }
    return JSONResponse(answer, status_code=201 if write.changed else 200)


@router.post(
    "/v1/memory/{memory_id}/versions",
    response_model=None,
    responses=answers(MemoryWriteOut, 404, 409),
)
async def correct_memory(
    memory_id: str, body: MemoryVersionIn, desk: ChangeDeskDep, principal: Writer
) -> dict[str, Any]:
    """Correct a memory item by a new version; the receipts that used the version before
    expire (``memory_corrected``) before this answers (``expired``: the first 100, each with
    its downstream actions)."""
    draft = MemoryDraft(
        purpose=body.purpose,
        scope=None if body.scope is None else body.scope.to_access("scope"),
        source=None if body.source is None else list(body.source),
        text=body.text,
        expires_at=body.expires_at,
    )
    change = await desk.correct_memory(
        memory_id, draft, body.reason, principal.actor, principal.pins
    )
    return _written(change)


@router.post(
    "/v1/memory/{memory_id}/revoke",
    response_model=None,
    responses=answers(MemoryWriteOut, 404, 409),
)
async def revoke_memory(
    memory_id: str, body: RevokeMemoryIn, desk: ChangeDeskDep, principal: Writer
) -> dict[str, Any]:
    """Revoke a memory item: no receipt may use it again, and every receipt that did expires
    (``memory_revoked``) before this answers (``expired``: the first 100, each with its
    downstream actions). Revoking again with the same reason writes nothing; with another
    reason it is 409."""
    change = await desk.revoke_memory(memory_id, body.reason, principal.actor, principal.pins)
    return _written(change)


def _written(change: MemoryChange) -> dict[str, Any]:
    """A correction's or revocation's answer, once the expiries it causes are recorded."""
    return {
        **memory_json(change.write.item),
        "changed": change.write.changed,
        "position": change.write.position,
        "receipts_expired": change.settled.receipts_expired,
        "expired": expired_json(change.settled.expired),
    }


@router.get("/v1/memory/{memory_id}", response_model=None, responses=answers(MemoryOut, 404))
def get_memory(memory_id: str, desk: MemoryDeskDep, caller: Reader) -> dict[str, Any]:
    """The memory item from its verified events (to a key with pins, an item it may not see
    is one the ledger does not hold)."""
    return memory_json(desk.read(memory_id, caller.pins))


@router.get("/v1/memory", response_model=Page[MemorySummary])
async def list_memory_route(
    desk: MemoryReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
    purpose: Annotated[str | None, Query(max_length=64)] = None,
    status: Annotated[Literal["active", "expired", "revoked"] | None, Query()] = None,
) -> dict[str, Any]:
    """Memory items by id, filtered, a page at a time (a pinned key: only items it may see,
    decided from their verified events)."""
    key = decode_cursor("memory", after, (str,))
    found = await desk.items(purpose, status, key[0] if key else "", limit, caller.pins)
    last = found.last
    return {"items": found.items, "next": None if last is None else encode_cursor("memory", [last])}


@router.get(
    "/v1/memory/{memory_id}/affected",
    response_model=MemoryAffectedPage,
    responses=answers(MemoryAffectedPage, 404),
)
async def memory_affected(
    memory_id: str,
    desk: MemoryReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Every receipt whose pool sealed a version of the item, with the version, the
    receipt's expiry status, its outcome and downstream actions (a pinned key: an item it may
    not see is one the ledger does not hold; only receipts it may read)."""
    name = f"memory-affected:{memory_id}"
    key = decode_cursor(name, after, (str,))
    found = await desk.uses(memory_id, key[0] if key else "", limit, caller.pins)
    return {
        "memory_id": memory_id,
        "items": found.items,
        "next": None if found.last is None else encode_cursor(name, [found.last]),
    }
