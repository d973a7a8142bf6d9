"""Span lookups: by character range, by table cell, and by quote. Every span served is first
checked against the verified version it belongs to (``projections/span_read_desk.py``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from api.deps import MAX_INT32, Rfc3339, SpanReadDeskDep, require
from api.errors import Problem
from api.pages import After, Limit, Page, decode_cursor, encode_cursor
from ledger.errors import InvalidInput
from ledger.eventlog.clock import format_time, ledger_time
from ledger.gate.normalize import normalise_quote
from ledger.keys.api_keys import Caller, Scope
from projections.span_read_desk import Listed

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


def _served(listed: Listed, name: str) -> dict[str, Any]:
    """A page as served: its spans and the cursor of the next page (null on the last)."""
    items, last = listed
    return {"items": items, "next": None if last is None else encode_cursor(name, [last])}


@router.get(
    "/v1/sources/{source_id}/versions/{version}/spans",
    response_model=Page[ListedSpan],
    responses=PROBLEMS,
)
async def spans_in_range(
    source_id: str,
    version: Version,
    desk: SpanReadDeskDep,
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
    listed = await desk.spans_in_range(
        source_id, version, start, end, key[0] if key else None, limit, caller.pins
    )
    return _served(listed, name)


@router.get(
    "/v1/sources/{source_id}/versions/{version}/cells",
    response_model=Page[ListedSpan],
    responses=PROBLEMS,
)
async def table_cells(
    source_id: str,
    version: Version,
    desk: SpanReadDeskDep,
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
    listed = await desk.table_cells(
        source_id, version, table, row, col, key[0] if key else None, limit, caller.pins
    )
    return _served(listed, name)


def _search_of(body: QuoteSearchIn) -> tuple[str, str]:
    """The quote in comparison form and the time the versions must be in force at."""
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
    return quote, at


@router.post(
    "/v1/spans/search",
    response_model=Page[FoundSpan],
    responses={code: PROBLEMS[code] for code in (401, 403, 422, 500)},
)
async def search_spans(
    body: QuoteSearchIn,
    desk: SpanReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Spans whose text contains the quote, both normalised as the gate's quote check
    normalises them, of source versions in force at ``as_of`` (a pinned key: of sources its
    principals may see, docs/access.md)."""
    quote, at = _search_of(body)
    name = "search"
    key = decode_cursor(name, after, (str, int, int))
    items, last = await desk.search(quote, at, body.source_id, key, limit, caller.pins)
    return {"items": items, "next": None if last is None else encode_cursor(name, last)}
