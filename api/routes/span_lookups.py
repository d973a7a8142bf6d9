"""Span lookups: by character range, by table cell, and by quote. Every span served is first
checked against the verified version it belongs to (``VerifiedSpans.check_served``)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from api.deps import MAX_INT32, ReadSideDep, Rfc3339, SightDep, require
from api.errors import Problem
from api.pages import After, Limit, Page, decode_cursor, encode_cursor
from ledger.errors import InvalidInput, NotFound
from ledger.eventlog.clock import format_time, ledger_time
from ledger.gate.normalize import normalise_quote
from ledger.keys.api_keys import Caller, Scope
from projections import span_queries
from projections.pages import page, visible_rows
from projections.pinned_view import pinned_read, pinned_view
from projections.service import ReadSide

router = APIRouter(tags=["sources"])
Reader = Annotated[Caller, Depends(require(Scope.READ))]
Version = Annotated[int, Path(ge=1, le=MAX_INT32)]
Offset = Annotated[int | None, Query(ge=0, le=MAX_INT32)]

MAX_QUOTE = 1000
"""The longest quote a search takes, in characters (after normalisation)."""

PROBLEMS: dict[int | str, dict[str, Any]] = {
    401: {"model": Problem, "description": "no or unknown API key"},
    403: {
        "model": Problem,
        "description": "the key lacks the read scope, or its pins let none of its principals "
        "see the source (entitlement-denied, code only)",
    },
    404: {"model": Problem, "description": "no such source version"},
    422: {"model": Problem, "description": "invalid input (errors names field and rule)"},
    500: {
        "model": Problem,
        "description": "ledger-integrity: a read-model row disagrees with the signed events",
    },
}


class ListedSpan(BaseModel):
    """A span as the registry shows it (a table cell also has ``envelope``)."""

    model_config = ConfigDict(extra="allow")
    span_id: str
    start: int
    end: int
    text: str
    heading_path: list[str]
    table_ref: dict[str, Any] | None


class FoundSpan(ListedSpan):
    """A span a quote search found, with its source version."""

    source_id: str
    version: int
    version_hash: str


class QuoteSearchIn(BaseModel):
    """``POST /v1/spans/search``."""

    model_config = ConfigDict(extra="forbid")
    quote: str = Field(description=f"at most {MAX_QUOTE} characters once normalised")
    source_id: str | None = Field(default=None, max_length=128)
    as_of: Rfc3339 | None = Field(
        default=None, description="versions in force then (RFC 3339); default now"
    )


async def _checked(
    read_side: ReadSide, source_id: str, version: int, rows: list[dict[str, Any]]
) -> None:
    """Refuse (500 ``ledger-integrity``) unless the verified version holds every row."""
    await run_in_threadpool(read_side.span_resolver.check_served, source_id, version, rows)


def _no_version(source_id: str, version: int) -> NotFound:
    """What a version read answers for a version (or source) the registry does not hold."""
    return NotFound(f"source {source_id!r} has no version {version}")


def _served(rows: list[dict[str, Any]], limit: int, name: str) -> dict[str, Any]:
    items, last = page(rows, limit, lambda row: row["ord"])
    for item in items:
        del item["ord"]
    return {"items": items, "next": None if last is None else encode_cursor(name, [last])}


@router.get(
    "/v1/sources/{source_id}/versions/{version}/spans",
    response_model=Page[ListedSpan],
    responses=PROBLEMS,
)
async def spans_in_range(
    source_id: str,
    version: Version,
    read_side: ReadSideDep,
    sight: SightDep,
    caller: Reader,
    start: Offset = None,
    end: Offset = None,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """The version's spans overlapping ``[start, end)`` of its frozen text (character
    offsets; either bound optional), in document order."""
    if start is not None and end is not None and end <= start:
        raise InvalidInput("query.end", "greater_than", "end must be greater than start")
    name = f"range:{source_id}:{version}:{start}:{end}"
    key = decode_cursor(name, after, (int,))
    await pinned_read(sight, caller.pins, source_id, _no_version(source_id, version))
    async with read_side.async_engine.connect() as conn:
        rows = await span_queries.spans_in_range(
            conn, source_id, version, start, end, key[0] if key else None, limit
        )
    await _checked(read_side, source_id, version, rows)
    return _served(rows, limit, name)


@router.get(
    "/v1/sources/{source_id}/versions/{version}/cells",
    response_model=Page[ListedSpan],
    responses=PROBLEMS,
)
async def table_cells(
    source_id: str,
    version: Version,
    read_side: ReadSideDep,
    sight: SightDep,
    caller: Reader,
    table: Annotated[str | None, Query(max_length=64, description="table id")] = None,
    row: Offset = None,
    col: Offset = None,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """The version's table cell spans with their envelopes (each filter optional)."""
    name = f"cells:{source_id}:{version}:{table}:{row}:{col}"
    key = decode_cursor(name, after, (int,))
    await pinned_read(sight, caller.pins, source_id, _no_version(source_id, version))
    async with read_side.async_engine.connect() as conn:
        rows = await span_queries.table_cells(
            conn, source_id, version, table, row, col, key[0] if key else None, limit
        )
    await _checked(read_side, source_id, version, rows)
    return _served(rows, limit, name)


def _search_of(body: QuoteSearchIn) -> span_queries.QuoteSearch:
    try:
        body.quote.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("quote", "utf-8", "quote has a lone surrogate") from None
    quote = normalise_quote(body.quote)
    if not quote:
        raise InvalidInput("quote", "non-empty", "quote is empty once normalised")
    if len(quote) > MAX_QUOTE:
        raise InvalidInput(
            "quote", "max-length", f"quote is at most {MAX_QUOTE} characters once normalised"
        )
    at = format_time(datetime.now(UTC)) if body.as_of is None else ledger_time("as_of", body.as_of)
    return span_queries.QuoteSearch(quote, at, body.source_id)


@router.post(
    "/v1/spans/search",
    response_model=Page[FoundSpan],
    responses={code: PROBLEMS[code] for code in (401, 403, 422, 500)},
)
async def search_spans(
    body: QuoteSearchIn,
    read_side: ReadSideDep,
    sight: SightDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Spans whose text contains the quote, both normalised as the gate's quote check
    normalises them, of source versions in force at ``as_of`` (a pinned key: of sources its
    principals may see, docs/access.md)."""
    search = _search_of(body)
    name = "search"
    key = decode_cursor(name, after, (str, int, int))
    view = await pinned_view(caller.pins, sight)
    if view is not None:  # what the key is known not to see is left out in the query itself
        search = replace(search, hidden=view.hidden)
    async with read_side.async_engine.connect() as conn:

        async def fetch(last: list[Any] | None, n: int) -> list[dict[str, Any]]:
            return await span_queries.search_quote(conn, search, last or [], n)

        if view is None:
            rows = await fetch(key, limit)
        else:
            rows = await visible_rows(
                fetch,
                lambda r: [r["source_id"], r["version"], r["ord"]],
                view.source_row,
                key,
                limit,
            )
    items, last = page(rows, limit, lambda r: [r["source_id"], r["version"], r["ord"]])
    by_version: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        del item["ord"]
        by_version[(item["source_id"], item["version"])].append(item)
    for (source_id, version), served in by_version.items():
        await run_in_threadpool(
            read_side.span_resolver.check_served,
            source_id,
            version,
            served,
            served[0]["version_hash"],
        )
    return {"items": items, "next": None if last is None else encode_cursor(name, last)}
