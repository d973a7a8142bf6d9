"""A receipt's context packet: ``GET /v1/receipts/{receipt_id}/context``, its sealed pool in a
stable order, rendered from verified events (docs/receipts.md#the-context-packet)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from api.deps import ReceiptReadDeskDep, require
from api.openapi import access_problems
from ledger.keys.api_keys import Caller, Scope

router = APIRouter(tags=["receipts"])

Reader = Annotated[Caller, Depends(require(Scope.READ))]


class ManifestEntryOut(BaseModel):
    """One source version of the corpus manifest."""

    source_id: str
    version: int
    version_hash: str
    title: str
    authority: str
    effective_from: str


class EvidenceOut(BaseModel):
    """One span as the packet shows it: data, untrusted, with its id."""

    span_id: str
    source_id: str
    version: int
    type: Literal["data"]
    trust: Literal["untrusted"]
    text: str


class TransformationShownOut(BaseModel):
    """A transformation as the packet shows it: its output, data and untrusted, with the ids
    of the spans it consumed."""

    transformation_id: str
    method: str
    inputs: list[str] = Field(description="the span ids of its inputs")
    type: Literal["data"]
    trust: Literal["untrusted"]
    output: str


class MemoryItemOut(BaseModel):
    """One memory version as the packet shows it: data, untrusted, never evidence."""

    memory_id: str
    version: int
    purpose: str
    expires_at: str
    type: Literal["data"]
    trust: Literal["untrusted"]
    text: str


class ContextPacketOut(BaseModel):
    """A receipt's context packet (docs/receipts.md#the-context-packet)."""

    receipt_id: str
    format: str
    packet: str = Field(description="the packet text: send it as is")
    prefix_length: int = Field(description="characters of the stable prefix (through </evidence>)")
    prefix_sha256: str = Field(description="sha256 of the UTF-8 stable prefix")
    recorded_prefix_sha256: str | None = Field(
        description="what the receipt recorded when it was opened (null for older receipts)"
    )
    manifest: list[ManifestEntryOut]
    evidence: list[EvidenceOut]
    transformations: list[TransformationShownOut] = Field(
        description="the receipt's transformations of its evidence, in the order recorded"
    )
    memory: list[MemoryItemOut] = Field(
        default_factory=list, description="memory items (format provledger.context/v2 only)"
    )
    query: str


@router.get(
    "/v1/receipts/{receipt_id}/context",
    response_model=ContextPacketOut,
    responses=access_problems(401, 403, 404, 409, 500),
)
def get_context_packet(
    receipt_id: str, desk: ReceiptReadDeskDep, principal: Reader
) -> dict[str, Any]:
    """The sealed pool as a context packet in a stable order (instructions and citation policy,
    corpus manifest, evidence spans, the receipt's transformations of them, then the query),
    rendered from verified events."""
    receipt, packet = desk.packet(receipt_id, principal.pins)
    recorded = receipt.context.get("packet")
    return {
        "receipt_id": receipt_id,
        "format": packet.format,
        "packet": packet.text,
        "prefix_length": packet.prefix_length,
        "prefix_sha256": packet.prefix_sha256,
        "recorded_prefix_sha256": None if recorded is None else recorded["prefix_sha256"],
        "manifest": packet.manifest,
        "evidence": packet.evidence,
        "transformations": packet.transformations,
        "memory": packet.memory,
        "query": receipt.context["request"],
    }
