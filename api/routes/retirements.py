"""Changes to what receipts record they were answered with: retiring a model or tool version,
declaring a context-assembly version in force. Each expires the receipts it touches before it
answers (ledger/receipts/components.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from api.affected import expired_json
from api.deps import ChangeDeskDep, require
from api.expiry_schemas import ExpiredList
from api.openapi import answers
from ledger.keys.api_keys import Caller, Scope
from processes.change_desk import VersionChange

router = APIRouter(tags=["expiry"])
Admin = Annotated[Caller, Depends(require(Scope.ADMIN))]


class VersionChangeIn(BaseModel):
    """A model, tool or context-assembly version and why it changes."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="as receipts record it, 1 to 200 characters")
    version: str = Field(description="as receipts record it, 1 to 200 characters")
    reason: str = Field(description="1 to 2000 characters; shown in each expiry's detail")


class VersionChanged(BaseModel):
    """A retired model or tool version, or a context-assembly version declared in force, and
    the receipts it expired (the first 100 in ``expired``; page on with
    ``GET /v1/expiries?cause=``)."""

    kind: str = Field(description="model, tool or context_assembly")
    name: str
    version: str
    status: str = Field(description="retired, or in_force for a context assembly")
    position: int = Field(description="the change's log position (its cause is n<position>)")
    receipts_expired: int
    expired: ExpiredList


def _answer(kind: str, body: VersionChangeIn, status: str, change: VersionChange) -> dict[str, Any]:
    """What the change did, and the receipts it expired."""
    return {
        "kind": kind,
        "name": body.name,
        "version": body.version,
        "status": status,
        "position": change.position,
        "receipts_expired": change.settled.receipts_expired,
        "expired": expired_json(change.settled.expired),
    }


@router.post(
    "/v1/models/retire",
    status_code=201,
    response_model=None,
    responses=answers(VersionChanged, 409, statuses=(201,)),
)
async def retire_model(
    body: VersionChangeIn,
    desk: ChangeDeskDep,
    principal: Admin,
) -> dict[str, Any]:
    """Retire a model version (a signed event): every receipt recording it expires,
    ``model_retired``, before this answers; no receipt opens with it again (409). Retiring
    it twice is 409."""
    change = await desk.retire("model", body.name, body.version, body.reason, principal.actor)
    return _answer("model", body, "retired", change)


@router.post(
    "/v1/tools/retire",
    status_code=201,
    response_model=None,
    responses=answers(VersionChanged, 409, statuses=(201,)),
)
async def retire_tool(
    body: VersionChangeIn,
    desk: ChangeDeskDep,
    principal: Admin,
) -> dict[str, Any]:
    """Retire a tool version (a signed event): every receipt recording it (``name@version``,
    or the bare ``name``) expires, ``tool_retired``, before this answers; no receipt opens
    with it again (409). Retiring it twice is 409."""
    change = await desk.retire("tool", body.name, body.version, body.reason, principal.actor)
    return _answer("tool", body, "retired", change)


@router.post(
    "/v1/context-assemblies/declare",
    status_code=201,
    response_model=None,
    responses=answers(VersionChanged, 409, statuses=(201,)),
)
async def declare_context_assembly(
    body: VersionChangeIn,
    desk: ChangeDeskDep,
    principal: Admin,
) -> dict[str, Any]:
    """Declare a version of a context assembly in force (a signed event): every receipt
    recording another version of it expires, ``context_assembly_changed``, before this
    answers; no receipt opens with another version (409). Declaring the version already in
    force is 409."""
    change = await desk.declare(body.name, body.version, body.reason, principal.actor)
    return _answer("context_assembly", body, "in_force", change)
