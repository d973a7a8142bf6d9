"""A source: its version timeline, as it stood at any moment, what changed between two
versions, and the receipts that stood on each version."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from starlette.responses import Response

from api.console.citations import breadcrumb
from api.console.diff import span_diff
from api.console.excerpt import pieces
from api.console.state import ConsoleDep, SessionDep, download
from api.console.times import form_time
from api.deps import MAX_INT32
from projections.console_read_desk import TEXT_SHOWN, CitedSpan, SourceUnknown
from projections.registry_queries import AsOf

router = APIRouter()
Version = Annotated[int | None, Query(ge=1, le=MAX_INT32)]


def _safe_link(uri: str | None) -> str | None:
    """The source's URI as a link target only when it is http(s); anything else (a
    ``javascript:`` or ``data:`` URI) is shown as text, never followed."""
    if uri and uri.lower().startswith(("https://", "http://")):
        return uri
    return None


def _cited(found: CitedSpan | None) -> dict[str, Any] | None:
    """The cited span as the page shows it: its excerpt with two sentences either side, its
    breadcrumb and its offsets in the frozen text; a span that is not in that version is
    reported as such, not as an error (the link that brought the reader here names both)."""
    if found is None:
        return None
    view = found.view
    if view is None:
        return {"span_id": found.span_id, "version": found.version, "found": False}
    return {
        "span_id": found.span_id,
        "version": found.version,
        "found": True,
        "excerpt": pieces(view["excerpt"], tuple(view["highlight"]), "", None),
        "breadcrumb": breadcrumb(view["title"], view["heading_path"]),
        "page": view["page"],
        "status": view["status"],
        "offsets": found.offsets,
    }


@router.get("/sources/{source_id}")
async def source_page(
    source_id: str,
    request: Request,
    console: ConsoleDep,
    session: SessionDep,
    known_at: Annotated[str | None, Query(max_length=64)] = None,
    valid_at: Annotated[str | None, Query(max_length=64)] = None,
    old: Version = None,
    new: Version = None,
    span: Annotated[str | None, Query(max_length=64)] = None,
    version: Version = None,
) -> Response:
    """The source as the ledger knew it at ``known_at`` (default now), the version in force at
    ``valid_at``, the diff of versions ``old`` and ``new`` (default: the last two known), and,
    given ``span`` and ``version`` (a citation followed here), the cited words in place with
    their neighbours. Asked for before the ledger first recorded the source, the page says
    so and when it did."""
    as_of = AsOf(form_time("known_at", known_at), form_time("valid_at", valid_at))
    context: dict[str, Any] = {"known_at": known_at or "", "valid_at": valid_at or ""}
    read = await console.services.console_reads.source_page(
        source_id, as_of, old, new, span, version
    )
    if isinstance(read, SourceUnknown):
        context.update(source=read.source, moment=as_of.known_at)
        return console.render(request, "source_unknown.html", context, session=session)
    source, text, cited = read.source, read.text, _cited(read.cited)
    context.update(
        source=source,
        affected=read.affected,
        old=read.old,
        new=read.new,
        changes=None if read.compared is None else span_diff(*read.compared),
        text=None if text is None else _marked_text(text, cited),
        text_version=read.shown_version,
        cited=cited,
        link=_safe_link(source["uri"]),
        text_cut=text is not None and len(text) > TEXT_SHOWN,
        engagement=read.engagement,
        metadata=sorted((source["metadata"] or {}).items()),
    )
    return console.render(request, "source.html", context, session=session)


def _marked_text(text: str, cited: dict[str, Any] | None) -> list[tuple[str, bool]]:
    """The shown part of a frozen text, cut around the cited span (marked) when it lies
    within that part."""
    text = text[:TEXT_SHOWN]
    offsets = None if cited is None else cited.get("offsets")
    if offsets is None or offsets[1] > len(text):
        return [(text, False)]
    start, end = offsets
    return [(text[:start], False), (text[start:end], True), (text[end:], False)]


@router.get("/sources/{source_id}/provenance.json")
async def source_provenance_download(
    source_id: str, console: ConsoleDep, _: SessionDep
) -> Response:
    """The source's PROV-JSON (as ``GET /v1/sources/{id}/provenance``), as a download."""
    export = await run_in_threadpool(console.services.provenance.source, source_id)
    return download(export.document, f"{source_id}.prov.json")
