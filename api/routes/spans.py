"""A span by id, and its neighbouring sentences: ``GET /v1/spans/{span_id}`` and
``/context``. Every span served is first checked against the verified version it belongs to
(``projections/span_read_desk.py``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from api.deps import AsOfDep, SpanReadDeskDep, require
from api.openapi import answers
from api.schemas import SpanContext, SpanDetail
from ledger.keys.api_keys import Caller, Scope

router = APIRouter(tags=["sources"])

Reader = Annotated[Caller, Depends(require(Scope.READ))]


@router.get("/v1/spans/{span_id}", response_model=None, responses=answers(SpanDetail, 404))
async def get_span(
    span_id: str, desk: SpanReadDeskDep, caller: Reader, as_of: AsOfDep
) -> dict[str, Any]:
    """A span with its source, version, hash, breadcrumb, page and status (as of)."""
    return await desk.get_span(span_id, as_of, caller.pins)


@router.get("/v1/spans/{span_id}/context", response_model=None, responses=answers(SpanContext, 404))
async def get_span_context(
    span_id: str,
    desk: SpanReadDeskDep,
    caller: Reader,
    window: Annotated[int, Query(ge=0, le=50)] = 2,
) -> dict[str, Any]:
    """The span and its neighbouring sentences."""
    return await desk.span_context(span_id, window, caller.pins)
