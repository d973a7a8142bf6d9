"""Register sources, add versions, withdraw, and read the registry."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from api.affected import expired_for
from api.body_guard import source_body
from api.deps import (
    MAX_INT,
    MAX_INT32,
    AsOfDep,
    ExpiryProcessDep,
    OutcomeDeskDep,
    ReadSideDep,
    ReceiptDeskDep,
    SightDep,
    SourcesDep,
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
from ledger.text.spans import Span
from projections import registry_queries as queries
from projections.pages import page, visible_rows
from projections.pinned_view import pinned_read, pinned_view
from projections.registry import span_row

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
    read_side: ReadSideDep,
    sight: SightDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
    status: Annotated[Literal["active", "withdrawn"] | None, Query()] = None,
    authority: Annotated[str | None, Query(max_length=32)] = None,
) -> dict[str, Any]:
    """Every source's current state, by source id, a page at a time (a pinned key: only the
    sources its principals may see, docs/access.md)."""
    key = decode_cursor("sources", after, (str,))
    view = await pinned_view(caller.pins, sight)
    async with read_side.async_engine.connect() as conn:

        async def fetch(last: str | None, n: int) -> list[dict[str, Any]]:
            return await queries.list_sources(conn, last, n, status, authority)

        if view is None:
            rows = await fetch(key[0] if key else None, limit)
        else:
            rows = await visible_rows(
                fetch, lambda r: r["source_id"], view.source_row, key[0] if key else None, limit
            )
    items, last = page(rows, limit, lambda row: row["source_id"])
    # Refused (500 ``ledger-integrity``) unless the verified events hold every row served.
    await run_in_threadpool(read_side.served.check_sources, items)
    return {"items": items, "next": None if last is None else encode_cursor("sources", [last])}


def span_out(span: Span) -> dict[str, Any]:
    """A span as returned on ingestion: the same shape as ``GET /v1/spans``."""
    return queries.span_json(span_row(span))


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
        body["spans"] = [span_out(span) for span in receipt.spans]
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
    sources: SourcesDep,
    read_side: ReadSideDep,
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
    receipt = sources.register(
        body.source_id,
        draft,
        body.authority,
        principal.actor,
        body.uri,
        body.metadata,
        access,
        principal.pins,
    )
    read_side.registry.catch_up()  # read-your-writes: the registry includes this version
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
    sources: SourcesDep,
    read_side: ReadSideDep,
    expiry: ExpiryProcessDep,
    receipts: ReceiptDeskDep,
    outcomes: OutcomeDeskDep,
    sight: SightDep,
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
    receipt = await run_in_threadpool(
        sources.add_version, source_id, draft, principal.actor, principal.pins
    )
    # read-your-writes: the registry and the expiries
    await run_in_threadpool(expiry.settle, receipt.position)
    answer = _receipt(receipt, include_spans, response, include)
    changed = receipt.position if receipt.created else None
    answer["expired"] = await expired_for(principal, changed, sight, receipts, read_side, outcomes)
    return answer


@router.post(
    "/v1/sources/{source_id}/withdraw",
    response_model=None,
    responses=answers(WithdrawnOut, 404, 409),
)
async def withdraw_source(
    source_id: str,
    body: WithdrawIn,
    sources: SourcesDep,
    read_side: ReadSideDep,
    expiry: ExpiryProcessDep,
    receipts: ReceiptDeskDep,
    outcomes: OutcomeDeskDep,
    sight: SightDep,
    principal: Ingester,
) -> dict[str, Any]:
    """Withdraw a source: old citations still resolve, marked withdrawn; the receipts whose
    claims stood on it are expired before this answers (``expired``: the first 100, each
    with its downstream actions)."""
    position = await run_in_threadpool(
        sources.withdraw, source_id, body.reason, principal.actor, principal.pins
    )
    await run_in_threadpool(expiry.settle, position)  # read-your-writes
    async with read_side.async_engine.connect() as conn:
        shown = await queries.get_source(conn, source_id)
    await run_in_threadpool(read_side.served.check_source, shown)
    shown["expired"] = await expired_for(principal, position, sight, receipts, read_side, outcomes)
    return shown


@router.get("/v1/sources/{source_id}", response_model=None, responses=answers(SourceOut, 404))
async def get_source(
    source_id: str, read_side: ReadSideDep, sight: SightDep, caller: Reader, as_of: AsOfDep
) -> dict[str, Any]:
    """The source with its versions, statuses and effective intervals (as of)."""
    await pinned_read(sight, caller.pins, source_id)
    async with read_side.async_engine.connect() as conn:
        body = await queries.get_source(conn, source_id, as_of)
    await run_in_threadpool(read_side.served.check_source, body, as_of.known_at)
    return body


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
    read_side: ReadSideDep,
    sight: SightDep,
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
    await pinned_read(sight, caller.pins, source_id)
    async with read_side.async_engine.connect() as conn:
        body = await queries.get_version(
            conn, source_id, version, offset, limit, as_of, key[0] if key else None
        )
    next_ord = body.pop("spans_next_ord")
    body["items"] = body["spans"]
    body["next"] = (
        None if next_ord is None else encode_cursor(f"spans:{source_id}:{version}", [next_ord])
    )
    await run_in_threadpool(
        read_side.span_resolver.check_served,
        source_id,
        version,
        body["spans"],
        body["version_hash"],
        body["frozen_text"],
    )
    await run_in_threadpool(read_side.served.check_version, body, as_of.known_at)
    return body
