"""The transparency log over HTTP: checkpoints, proofs and citation-chain bundles."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import PlainTextResponse

from api.deps import MAX_INT, AuditReader, ReadSideDep, Rfc3339, RuntimeDep, WitnessDep
from api.openapi import answers, problem_responses
from api.schemas import Bundle, ConsistencyProof, InclusionProof
from ledger.errors import InvalidInput
from ledger.eventlog.clock import ledger_time
from projections import transparency_queries as tq
from projections.bundle import build_bundle
from projections.service import ReadSide

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
    submitter: WitnessDep,
    read_side: ReadSideDep,
    _: AuditReader,
    at: Annotated[
        Rfc3339 | None, Query(description="latest checkpoint at or before (RFC 3339)")
    ] = None,
) -> PlainTextResponse:
    """The latest signed checkpoint (C2SP tlog-checkpoint note), or the latest at ``at``;
    with a witness configured, its verified cosignature line is appended once it has one."""
    moment = None if at is None else ledger_time("at", at)
    await run_in_threadpool(read_side.transparency.catch_up)
    if submitter is not None:
        await run_in_threadpool(submitter.run_once)
    async with read_side.async_engine.connect() as conn:
        row = await tq.latest_checkpoint(conn, moment)
    note, headers = row["note"], {"X-Tree-Size": str(row["size"])}
    if submitter is not None:
        line = submitter.cosignature_for(row["size"], bytes(row["root"]))
        state = submitter.status.state
        # an older checkpoint (``at``) than the one the witness cosigned carries no line
        headers["X-Witness-State"] = (
            "cosigned" if line else "none" if state == "cosigned" else state
        )
        note += line or ""
    return PlainTextResponse(note, headers=headers)


def _consistency(read_side: ReadSide, first: int, second: int) -> dict[str, Any]:
    with read_side.db.reads.connect() as conn:
        return tq.consistency(conn, first, second)


@router.get(
    "/v1/audit/proofs/inclusion", response_model=None, responses=answers(InclusionProof, 404)
)
def inclusion_proof(
    read_side: ReadSideDep,
    _: AuditReader,
    size: Annotated[int, Query(ge=1, le=MAX_INT, description="tree size (a checkpoint's size)")],
    index: Annotated[int | None, Query(ge=0, le=MAX_INT, description="leaf index")] = None,
    notification_id: Annotated[
        int | None, Query(ge=1, le=MAX_INT, description="or the event's id")
    ] = None,
) -> dict[str, Any]:
    """Inclusion proof of one leaf (by index or by notification id) in a tree of ``size``."""
    if (index is None) == (notification_id is None):
        raise InvalidInput("index", "one-of", "give exactly one of index and notification_id")
    read_side.transparency.catch_up()
    with read_side.db.reads.connect() as conn:
        if index is None:
            assert notification_id is not None
            index = tq.leaf_index_of(conn, notification_id)
        return tq.inclusion(conn, index, size)


@router.get(
    "/v1/audit/proofs/consistency",
    response_model=None,
    responses=answers(ConsistencyProof, 404),
)
def consistency_proof(
    read_side: ReadSideDep,
    _: AuditReader,
    first: Annotated[int, Query(ge=1, le=MAX_INT)],
    second: Annotated[int, Query(ge=1, le=MAX_INT)],
) -> dict[str, Any]:
    """Consistency proof that the tree of ``second`` leaves extends the tree of ``first``."""
    read_side.transparency.catch_up()
    return _consistency(read_side, first, second)


@router.get("/v1/claims/{claim_id}/bundle", response_model=None, responses=answers(Bundle, 404))
def bundle(
    claim_id: str,
    read_side: ReadSideDep,
    runtime: RuntimeDep,
    _: AuditReader,
    since_size: Annotated[
        int | None,
        Query(ge=1, le=MAX_INT, description="include a consistency proof from this size"),
    ] = None,
) -> dict[str, Any]:
    """One self-contained JSON document an auditor can verify offline."""
    return build_bundle(claim_id, read_side, runtime, since_size)
