"""The transparency log over HTTP: checkpoints, proofs and citation-chain bundles."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse

from api.deps import MAX_INT, AuditReadDeskDep, AuditReader, Rfc3339
from api.openapi import answers, problem_responses
from api.schemas import Bundle, ConsistencyProof, InclusionProof
from ledger.eventlog.clock import ledger_time

router = APIRouter(tags=["audit"])


@router.get(
    "/v1/audit/checkpoint",
    response_class=PlainTextResponse,
    responses={
        200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
        **problem_responses(404),
    },
)
async def checkpoint(
    desk: AuditReadDeskDep,
    _: AuditReader,
    at: Annotated[
        Rfc3339 | None, Query(description="latest checkpoint at or before (RFC 3339)")
    ] = None,
) -> PlainTextResponse:
    """The latest signed checkpoint (C2SP tlog-checkpoint note), or the latest at ``at``;
    with a witness configured, its verified cosignature line is appended once it has one."""
    signed = await desk.checkpoint(None if at is None else ledger_time("at", at))
    headers = {"X-Tree-Size": str(signed.size)}
    if signed.witness_standing is not None:
        headers["X-Witness-State"] = signed.witness_standing
    return PlainTextResponse(signed.note, headers=headers)


@router.get(
    "/v1/audit/proofs/inclusion", response_model=None, responses=answers(InclusionProof, 404)
)
def inclusion_proof(
    desk: AuditReadDeskDep,
    _: AuditReader,
    size: Annotated[int, Query(ge=1, le=MAX_INT, description="tree size (a checkpoint's size)")],
    index: Annotated[int | None, Query(ge=0, le=MAX_INT, description="leaf index")] = None,
    notification_id: Annotated[
        int | None, Query(ge=1, le=MAX_INT, description="or the event's id")
    ] = None,
) -> dict[str, Any]:
    """Inclusion proof of one leaf (by index or by notification id) in a tree of ``size``."""
    return desk.inclusion(size, index, notification_id)


@router.get(
    "/v1/audit/proofs/consistency",
    response_model=None,
    responses=answers(ConsistencyProof, 404),
)
def consistency_proof(
    desk: AuditReadDeskDep,
    _: AuditReader,
    first: Annotated[int, Query(ge=1, le=MAX_INT)],
    second: Annotated[int, Query(ge=1, le=MAX_INT)],
) -> dict[str, Any]:
    """Consistency proof that the tree of ``second`` leaves extends the tree of ``first``."""
    return desk.consistency(first, second)


@router.get("/v1/claims/{claim_id}/bundle", response_model=None, responses=answers(Bundle, 404))
def bundle(
    claim_id: str,
    desk: AuditReadDeskDep,
    _: AuditReader,
    since_size: Annotated[
        int | None,
        Query(ge=1, le=MAX_INT, description="include a consistency proof from this size"),
    ] = None,
) -> dict[str, Any]:
    """One self-contained JSON document an auditor can verify offline."""
    return desk.bundle(claim_id, since_size)
