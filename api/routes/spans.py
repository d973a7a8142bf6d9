"""A span by id, and its neighbouring sentences: ``GET /v1/spans/{span_id}`` and
``/context``. Every span served is first checked against the verified version it belongs to."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.concurrency import run_in_threadpool

from api.deps import AsOfDep, ReadSideDep, SightDep, require
from api.openapi import answers
from api.schemas import SpanContext, SpanDetail
from ledger.keys.api_keys import Caller, Scope
from projections import span_queries as queries
from projections.pinned_view import pinned_read

router = APIRouter(tags=["sources"])

Reader = Annotated[Caller, Depends(require(Scope.READ))]


@router.get("/v1/spans/{span_id}", response_model=None, responses=answers(SpanDetail, 404))
async def get_span(
    span_id: str, read_side: ReadSideDep, sight: SightDep, caller: Reader, as_of: AsOfDep
) -> dict[str, Any]:
    """A span with its source, version, hash, breadcrumb, page and status (as of)."""
    async with read_side.async_engine.connect() as conn:
        body = await queries.get_span(conn, span_id, as_of)
    await pinned_read(sight, caller.pins, body["source_id"], queries.missing_span(span_id, as_of))
    await run_in_threadpool(
        read_side.span_resolver.check_served,
        body["source_id"],
        body["version"],
        [body],
        body["version_hash"],
    )
    await run_in_threadpool(read_side.served.check_span, body, as_of.known_at)
    return body


@router.get("/v1/spans/{span_id}/context", response_model=None, responses=answers(SpanContext, 404))
async def get_span_context(
    span_id: str,
    read_side: ReadSideDep,
    sight: SightDep,
    caller: Reader,
    window: Annotated[int, Query(ge=0, le=50)] = 2,
) -> dict[str, Any]:
    """The span and its neighbouring sentences."""
    async with read_side.async_engine.connect() as conn:
        body = await queries.get_span_context(conn, span_id, window)
    await pinned_read(sight, caller.pins, body["source_id"], queries.missing_span(span_id))
    served = [body["span"], *body["before"], *body["after"]]
    await run_in_threadpool(
        read_side.span_resolver.check_served, body["source_id"], body["version"], served
    )
    return body
