"""Provenance export: W3C PROV-JSON, or the underlying signed events as JSON lines."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, PlainTextResponse

from api.deps import AuditReader, ProvenanceReadDeskDep
from api.openapi import problem_responses
from projections.provenance_read_desk import ProvenanceExport

router = APIRouter(tags=["provenance"])
PROVENANCE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "W3C PROV-JSON, or the signed events as JSON lines (`format=jsonl`)",
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "application/x-ndjson": {"schema": {"type": "string"}},
        },
    },
    **problem_responses(404),
}
Format = Annotated[Literal["prov-json", "jsonl"], Query(description="prov-json or jsonl")]


def _answer(export: ProvenanceExport, fmt: str) -> Any:
    if fmt == "jsonl":
        return PlainTextResponse(export.lines, media_type="application/x-ndjson")
    return JSONResponse(export.document, media_type="application/json")


@router.get(
    "/v1/receipts/{receipt_id}/provenance", response_model=None, responses=PROVENANCE_RESPONSES
)
def receipt_prov(
    receipt_id: str,
    desk: ProvenanceReadDeskDep,
    _: AuditReader,
    format: Format = "prov-json",
) -> Any:
    """The receipt's provenance: its claims, spans, source versions, activities and agents."""
    return _answer(desk.receipt(receipt_id), format)


@router.get(
    "/v1/sources/{source_id}/provenance", response_model=None, responses=PROVENANCE_RESPONSES
)
def source_prov(
    source_id: str,
    desk: ProvenanceReadDeskDep,
    _: AuditReader,
    format: Format = "prov-json",
) -> Any:
    """The source's provenance: versions, supersessions, and the claims that stood on it."""
    return _answer(desk.source(source_id), format)
