"""Re-attribution (repair) of claims, and locating the spans behind cited chunks."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field, model_validator

from api.deps import MAX_INT32, LocateDeskDep, RepairDeskDep, require
from api.openapi import answers
from api.schemas import LocateOut, RepairOut
from ledger.attribution.locate import DEFAULT_CONFIDENCE, DEFAULT_THRESHOLD
from ledger.attribution.locate_desk import ChunkRequest
from ledger.keys.api_keys import Caller, Scope

router = APIRouter(tags=["attribution"])
Writer = Annotated[Caller, Depends(require(Scope.CLAIMS_WRITE))]
Reader = Annotated[Caller, Depends(require(Scope.READ))]
MAX_CHUNKS = 100
MAX_CHUNK_SPANS = 2000


@router.post(
    "/v1/receipts/{receipt_id}/claims/{claim_id}/repair",
    response_model=None,
    responses=answers(RepairOut, 404, 409),
)
def repair_claim(
    receipt_id: str,
    claim_id: str,
    desk: RepairDeskDep,
    principal: Writer,
) -> dict[str, Any]:
    """Try to move a misattributed claim's binding to a span of the sealed pool."""
    return desk.repair(receipt_id, claim_id, principal.actor, principal.pins)


class ChunkIn(BaseModel):
    """A cited chunk: its span ids, or a source version and a character range."""

    model_config = ConfigDict(extra="forbid")
    span_ids: list[str] | None = Field(default=None, max_length=MAX_CHUNK_SPANS)
    source_id: str | None = None
    version: int | None = Field(default=None, strict=True, ge=1, le=MAX_INT32)
    start: int | None = Field(default=None, strict=True, ge=0, le=MAX_INT32)
    end: int | None = Field(default=None, strict=True, ge=0, le=MAX_INT32)

    @model_validator(mode="after")
    def _one_form(self) -> ChunkIn:
        ranged = (self.source_id, self.version, self.start, self.end)
        if self.span_ids is None and None in ranged:
            raise ValueError("give span_ids, or source_id, version, start and end")
        if self.span_ids is not None and any(v is not None for v in ranged):
            raise ValueError("give span_ids or a range, not both")
        return self


class LocateIn(BaseModel):
    """``POST /v1/locate``."""

    model_config = ConfigDict(extra="forbid")
    answer: str = Field(max_length=100_000)
    chunks: dict[str, ChunkIn] = Field(max_length=MAX_CHUNKS)
    threshold: float = Field(default=DEFAULT_THRESHOLD, strict=True, gt=0, le=1)
    confidence: float = Field(default=DEFAULT_CONFIDENCE, strict=True, ge=0, le=1)


@router.post("/v1/locate", response_model=None, responses=answers(LocateOut))
def locate_spans(body: LocateIn, desk: LocateDeskDep, caller: Reader) -> dict[str, Any]:
    """For each sentence of an answer with ``[n]`` markers, the best span of the cited chunks
    by content-word overlap when it reaches the threshold and no other span of those chunks
    is a close rival (its posterior reaches ``confidence``), else null. To a pinned key a
    source it may not see does not exist: its span ids are unknown, its ranges empty."""
    chunks = {
        key: ChunkRequest(
            None if chunk.span_ids is None else tuple(chunk.span_ids),
            chunk.source_id,
            chunk.version,
            chunk.start,
            chunk.end,
        )
        for key, chunk in body.chunks.items()
    }
    located = desk.locate(body.answer, chunks, body.threshold, body.confidence, caller.pins)
    return {
        "threshold": body.threshold,
        "confidence": body.confidence,
        "sentences": [
            {
                "sentence": item.located.sentence,
                "start": item.located.start,
                "end": item.located.end,
                "markers": list(item.located.markers),
                "span_id": item.located.span_id,
                "score": item.located.score,
                "confidence": item.located.confidence,
                "source_id": item.source[0] if item.source else None,
                "version": item.source[1] if item.source else None,
            }
            for item in located
        ],
    }
