"""Register sources, add versions, withdraw, and read the registry."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from api.affected import expired_json
from api.body_guard import source_body
from api.deps import (
    MAX_INT,
    MAX_INT32,
    AsOfDep,
    SourceChangeDeskDep,
    SourceReadDeskDep,
    require,
)
from api.errors import Problem
from api.expiry_schemas import ExpiredList, WithdrawnOut
from api.openapi import answers
from api.pages import After, Limit, Page, decode_cursor, encode_cursor
from api.schemas import SourceOut
from api.source_bodies import SourceIn, VersionIn, WithdrawIn
from ledger.keys.api_keys import Caller, Scope
from ledger.registry.source_desk import SourceDraft, VersionReceipt
from projections.source_read_desk import span_body

router = APIRouter(tags=["sources"])

Ingester = Annotated[Caller, Depends(require(Scope.INGEST))]
Reader = Annotated[Caller, Depends(require(Scope.READ))]


class SourceSummary(BaseModel):
    """A source's current state, as ``GET /v1/sources`` lists it."""

    source_id: str
    title: str
    authority: str
    uri: str | None
    metadata: dict[str, Any]
    registered_at: str
    status: str = Field(description="active or withdrawn")
    withdrawn_at: str | None
    withdraw_reason: str | None
    current_version: int
    current_version_hash: str
    current_effective_from: str


INTEGRITY_PROBLEM: dict[int | str, dict[str, Any]] = {
    500: {
        "model": Problem,
        "description": "ledger-integrity: a read-model row disagrees with the signed events",
    }
}
READ_PROBLEMS: dict[int | str, dict[str, Any]] = {
    401: {"model": Problem, "description": "no or unknown API key"},
    403: {"model": Problem, "description": "the key lacks the read scope"},
    422: {"model": Problem, "description": "invalid input (errors names field and rule)"},
}


@router.get(
    "/v1/sources",
    response_model=Page[SourceSummary],
    responses=READ_PROBLEMS,
)
async def list_sources(
    desk: SourceReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
    status: Annotated[Literal["active", "withdrawn"] | None, Query()] = None,
    authority: Annotated[str | None, Query(max_length=32)] = None,
) -> dict[str, Any]:
    """Every source's current state, by source id, a page at a time (a pinned key: only the
    sources its principals may see, docs/access.md)."""
    key = decode_cursor("sources", after, (str,))
    items, last = await desk.list_sources(
        key[0] if key else None, limit, status, authority, caller.pins
    )
    return {"items": items, "next": None if last is None else encode_cursor("sources", [last])}


Include = Annotated[
    Literal["text"] | None,
    Query(description="text: add the frozen text (the normalised text spans index into)"),
]


class IngestOut(BaseModel):
    """What a registration or a new version produced."""

    source_id: str
    version: int
    version_hash: str
    span_count: int
    position: int
    created: bool
    spans: list[dict[str, Any]] | None = Field(
        default=None, description="unless include_spans=false"
    )
    frozen_text: str | None = Field(default=None, description="with ?include=text")
    expired: ExpiredList | None = Field(
        default=None,
        description="a new version: the receipts its supersession expired (the first 100, "
        "each with its downstream actions; cause null when nothing was written)",
    )


INGEST_PROBLEMS: dict[int | str, dict[str, Any]] = {
    401: {"model": Problem, "description": "no or unknown API key"},
    403: {"model": Problem, "description": "the key lacks the ingest scope"},
    409: {"model": Problem, "description": "the request contradicts the registry"},
    413: {"model": Problem, "description": "the body or the text is too large"},
    422: {"model": Problem, "description": "invalid input (errors names field and rule)"},
}


def _receipt(
    receipt: VersionReceipt, include_spans: bool, response: Response, include: str | None = None
) -> dict[str, Any]:
    response.status_code = 201 if receipt.created else 200
    body: dict[str, Any] = {
        "source_id": receipt.source_id,
        "version": receipt.version,
        "version_hash": receipt.version_hash,
        "span_count": len(receipt.spans),
        "position": receipt.position,
        "created": receipt.created,
    }
    if include_spans:
        body["spans"] = [span_body(span) for span in receipt.spans]
    if include == "text":
        body["frozen_text"] = receipt.frozen_text
    return body


@router.post(
    "/v1/sources",
    status_code=201,
    dependencies=[Depends(source_body)],
    response_model=IngestOut,
    response_model_exclude_none=True,
    responses={**INGEST_PROBLEMS, 200: {"model": IngestOut, "description": "the same text again"}},
)
def register_source(
    body: SourceIn,
    desk: SourceChangeDeskDep,
    principal: Ingester,
    response: Response,
    include_spans: bool = True,
    include: Include = None,
) -> dict[str, Any]:
    """Register a source and its first version (200 and no new event if the text is the same)."""
    draft = SourceDraft(
        body.text,
        body.media_type,
        body.title,
        body.tables,
        body.effective_from,
        body.cite_headings,
    )
    access = None if body.access is None else body.access.to_access()
    receipt = desk.register(  # read-your-writes: the registry includes this version
        body.source_id,
        draft,
        body.authority,
        principal.actor,
        body.uri,
        body.metadata,
        access,
        principal.pins,
    )
    return _receipt(receipt, include_spans, response, include)


@router.post(
    "/v1/sources/{source_id}/versions",
    status_code=201,
    dependencies=[Depends(source_body)],
    response_model=None,  # sent as built: spans and frozen_text only when asked for
    responses={
        **INGEST_PROBLEMS,
        201: {"model": IngestOut, "description": "the new version"},
        200: {"model": IngestOut, "description": "the same text as the current version"},
        404: {"model": Problem, "description": "no such source"},
    },
)
async def add_version(
    source_id: str,
    body: VersionIn,
    desk: SourceChangeDeskDep,
    principal: Ingester,
    response: Response,
    include_spans: bool = True,
    include: Include = None,
) -> dict[str, Any]:
    """Add version n+1, superseding version n: the receipts whose claims stood on version n
    are expired before this answers (``expired``: the first 100, each with its downstream
    actions)."""
    draft = SourceDraft(
        body.text, body.media_type, body.title, body.tables, body.effective_from, body.cite_headings
    )
    # read-your-writes: the registry and the expiries
    receipt, expired = await desk.add_version(source_id, draft, principal.actor, principal.pins)
    answer = _receipt(receipt, include_spans, response, include)
    answer["expired"] = expired_json(expired)
    return answer


@router.post(
    "/v1/sources/{source_id}/withdraw",
    response_model=None,
    responses=answers(WithdrawnOut, 404, 409),
)
async def withdraw_source(
    source_id: str,
    body: WithdrawIn,
    desk: SourceChangeDeskDep,
    principal: Ingester,
) -> dict[str, Any]:
    """Withdraw a source: old citations still resolve, marked withdrawn; the receipts whose
    claims stood on it are expired before this answers (``expired``: the first 100, each
    with its downstream actions)."""
    shown, expired = await desk.withdraw(  # read-your-writes
        source_id, body.reason, principal.actor, principal.pins
    )
    shown["expired"] = expired_json(expired)
    return shown


@router.get("/v1/sources/{source_id}", response_model=None, responses=answers(SourceOut, 404))
async def get_source(
    source_id: str, desk: SourceReadDeskDep, caller: Reader, as_of: AsOfDep
) -> dict[str, Any]:
    """The source with its versions, statuses and effective intervals (as of)."""
    return await desk.get_source(source_id, as_of, caller.pins)


class VersionOut(BaseModel):
    """A version with its frozen text and a page of its spans (``items``, ``next``)."""

    model_config = ConfigDict(extra="allow")
    source_id: str
    version: int
    version_hash: str
    status: str
    frozen_text: str
    items: list[dict[str, Any]] = Field(description="a page of the version's spans")
    next: str | None = Field(description="pass as ?after= for the next page; null on the last")
    spans: list[dict[str, Any]] = Field(description="deprecated: the same as items")
    spans_offset: int = Field(description="deprecated: the offset asked for")
    spans_total: int


@router.get(
    "/v1/sources/{source_id}/versions/{version}",
    response_model=VersionOut,
    responses={
        **READ_PROBLEMS,
        **INTEGRITY_PROBLEM,
        404: {"model": Problem, "description": "no such source or version"},
    },
)
async def get_version(
    source_id: str,
    version: Annotated[int, Field(ge=1, le=MAX_INT32)],
    desk: SourceReadDeskDep,
    caller: Reader,
    as_of: AsOfDep,
    limit: Limit = 100,
    after: After = None,
    offset: Annotated[
        int, Query(ge=0, le=MAX_INT, description="deprecated: use after", deprecated=True)
    ] = 0,
    include: Annotated[
        Literal["text"] | None, Query(description="text: the frozen text (always included)")
    ] = None,
) -> dict[str, Any]:
    """One version's frozen text, hash and a page of its spans (as of)."""
    key = decode_cursor(f"spans:{source_id}:{version}", after, (int,))
    body, next_ord = await desk.get_version(
        source_id, version, as_of, offset, key[0] if key else None, limit, caller.pins
    )
    body["items"] = body["spans"]
    body["next"] = (
        None if next_ord is None else encode_cursor(f"spans:{source_id}:{version}", [next_ord])
    )
    return body
