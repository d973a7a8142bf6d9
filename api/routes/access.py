"""Entitlements over HTTP: source access attributes, access policies, protected decisions."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from api.affected import expired_json
from api.bodies import AccessIn, AccessOut
from api.deps import (
    AuditReader,
    PolicyDeskDep,
    ReceiptDeskDep,
    SourceChangeDeskDep,
    require,
)
from api.expiry_schemas import ExpiredList
from api.openapi import access_problems
from ledger.access.policy_desk import policy_json
from ledger.keys.api_keys import Caller, Scope

router = APIRouter(tags=["access"])

Ingester = Annotated[Caller, Depends(require(Scope.INGEST))]
Reader = Annotated[Caller, Depends(require(Scope.READ))]
Admin = Annotated[Caller, Depends(require(Scope.ADMIN))]


class AccessChangeOut(BaseModel):
    """The result of ``POST /v1/sources/{source_id}/access``."""

    source_id: str
    access: AccessOut
    changed: bool = Field(description="false when the attributes were already these")
    position: int = Field(description="the log position of the change (or the last one)")
    expired: ExpiredList = Field(
        description="the receipts the change expired (the first 100, each with its downstream "
        "actions; cause null when nothing changed)"
    )


class PolicyIn(BaseModel):
    """``POST /v1/policies``: a new access policy version (see docs/access.md)."""

    model_config = ConfigDict(extra="forbid")
    policy_version: str
    rules: list[dict[str, Any]] = Field(description="ordered rules; the first that applies decides")
    description: str = ""


class PolicyOut(BaseModel):
    """A policy version: its rules (null for one never published) and status."""

    policy_version: str
    status: str = Field(description="published or retired")
    published: bool
    description: str
    rules: list[dict[str, Any]] | None
    retired_reason: str | None
    recorded_at: str


class AccessDecisionOut(BaseModel):
    """One protected decision: which span of which source (or which memory item version),
    allowed or not, by which rule."""

    ref: str = Field(description="evidence[i], candidates[i] or memory[i] of the opening request")
    span_id: str | None = Field(default=None, description="a span's decision")
    source_id: str | None = Field(default=None, description="a span's decision")
    memory_id: str | None = Field(default=None, description="a memory item's decision")
    version: int = Field(description="the source version, or the memory item version")
    allowed: bool
    code: str | None
    rule: str


class AccessRecordOut(BaseModel):
    """The entitlement gate's protected record for one receipt (``audit:read`` only)."""

    receipt_id: str
    policy_version: str
    rules_from: str = Field(description="published (the version's rules) or default")
    principal: dict[str, Any]
    decisions: list[AccessDecisionOut]
    at: str


@router.post(
    "/v1/sources/{source_id}/access",
    response_model=AccessChangeOut,
    responses=access_problems(401, 403, 404, 422),
)
async def change_access(
    source_id: str,
    body: AccessIn,
    desk: SourceChangeDeskDep,
    principal: Ingester,
) -> dict[str, Any]:
    """Replace a source's access attributes (a signed ``access changed`` event; no event
    when they are already these); the receipts whose claims stood on it are expired before
    this answers (``expired``: the first 100, each with its downstream actions)."""
    source, changed, position, expired = await desk.change_access(  # read-your-writes
        source_id, body.to_access(), principal.actor, principal.pins
    )
    return {
        "source_id": source_id,
        "access": source.access.to_json(),
        "changed": changed,
        "position": position,
        "expired": expired_json(expired),
    }


@router.post(
    "/v1/policies",
    status_code=201,
    response_model=PolicyOut,
    responses=access_problems(401, 403, 409, 422),
)
def publish_policy(body: PolicyIn, desk: PolicyDeskDep, principal: Admin) -> dict[str, Any]:
    """Publish an access policy version; the newest published version not retired is the
    policy in force, which decides every receipt and retrieval (docs/access.md). A version is
    published once."""
    recorded = desk.publish_recorded(
        body.policy_version, body.rules, body.description, principal.actor
    )
    return policy_json(recorded)  # as recorded (ledger time)


@router.get(
    "/v1/policies/{policy_version}",
    response_model=PolicyOut,
    responses=access_problems(401, 403, 404, 422),
)
def get_policy(policy_version: str, desk: PolicyDeskDep, _: Reader) -> dict[str, Any]:
    """A published or retired policy version (``default`` is built in: see docs/access.md)."""
    return policy_json(desk.get(policy_version))


@router.get(
    "/v1/receipts/{receipt_id}/access",
    response_model=AccessRecordOut,
    responses=access_problems(401, 403, 404, 500),
)
def receipt_access(receipt_id: str, desk: ReceiptDeskDep, _: AuditReader) -> dict[str, Any]:
    """The protected entitlement decisions of a receipt: for each evidence and candidate span,
    its source, the decision and the rule that made it (from the receipt's verified events)."""
    return {"receipt_id": receipt_id, **desk.access_record(receipt_id)}
