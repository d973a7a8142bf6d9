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
from ledger.errors import NotFound
from ledger.registry.verified_spans import FrozenVersion
from projections import registry_queries as rq
from projections.claim_queries import affected_by_version, binding_views
from projections.engagement import source_counts
from projections.service import ReadSide

router = APIRouter()
Version = Annotated[int | None, Query(ge=1, le=MAX_INT32)]


def _span_texts(frozen: FrozenVersion) -> list[str]:
    """The version's sentences (its top-level spans), in order, from its verified event."""
    return [span.text for span in frozen.spans.values() if span.parent_span_id is None]


TEXT_SHOWN = 20_000
"""Characters of a version's frozen text the page shows (the rest is in the downloads)."""


def _safe_link(uri: str | None) -> str | None:
    """The source's URI as a link target only when it is http(s); anything else (a
    ``javascript:`` or ``data:`` URI) is shown as text, never followed."""
    if uri and uri.lower().startswith(("https://", "http://")):
        return uri
    return None


async def _cited(
    conn: Any,
    read_side: ReadSide,
    source_id: str,
    span_id: str | None,
    version: int | None,
    as_of: rq.AsOf,
) -> dict[str, Any] | None:
    """The cited span of ``version`` with two sentences either side, its breadcrumb and its
    offsets in the frozen text, checked against the version's signed event; None when no span
    is asked for. A span that is not in that version is reported as such, not as an error:
    the link that brought the reader here names both."""
    if span_id is None or version is None:
        return None
    views = await binding_views(conn, [(span_id, source_id, version)], as_of, window=2)
    view = views.get((span_id, source_id, version))
    if view is None:
        return {"span_id": span_id, "version": version, "found": False}

    def verified() -> tuple[int, int] | None:
        read_side.served.check_views([view], as_of.known_at)
        span = read_side.span_resolver.frozen(source_id, version).spans.get(span_id)
        return None if span is None else (span.start, span.end)

    offsets = await run_in_threadpool(verified)
    return {
        "span_id": span_id,
        "version": version,
        "found": True,
        "excerpt": pieces(view["excerpt"], tuple(view["highlight"]), "", None),
        "breadcrumb": breadcrumb(view["title"], view["heading_path"]),
        "page": view["page"],
        "status": view["status"],
        "offsets": offsets,
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
    as_of = rq.AsOf(form_time("known_at", known_at), form_time("valid_at", valid_at))
    services = console.services
    context: dict[str, Any] = {"known_at": known_at or "", "valid_at": valid_at or ""}
    async with services.read_side.async_engine.connect() as conn:
        try:
            source = await rq.get_source(conn, source_id, as_of)
        except NotFound:
            if as_of.known_at is None:
                raise
            # known now (or NotFound): say when the ledger first recorded it
            context.update(source=await rq.get_source(conn, source_id), moment=as_of.known_at)
            return console.render(request, "source_unknown.html", context, session=session)
        affected = {
            v["version"]: await affected_by_version(conn, source_id, v["version"])
            for v in source["versions"]
        }
        cited = await _cited(conn, services.read_side, source_id, span, version, as_of)
    known = [v["version"] for v in source["versions"]]
    if new is None and known:
        new = known[-1]
    if old is None and len(known) > 1 and new is not None:
        old = max((v for v in known if v < new), default=None)
    for field, value in (("old", old), ("new", new), ("version", version)):
        if value is not None and value not in known:
            raise NotFound(f"{field}: source {source_id!r} has no version {value} as known then")
    shown_version = version if cited is not None and cited["found"] else new

    def read() -> tuple[Any, str | None, dict[str, int]]:
        # Everything shown of the source comes from, or is checked against, its signed events.
        read_side = services.read_side
        read_side.served.check_source(source, as_of.known_at)
        for number, hit in affected.items():
            read_side.served_receipts.check_affected(hit["receipts"], source_id, number)
        verified = read_side.span_resolver
        changes = None
        if old is not None and new is not None and old != new:
            changes = span_diff(
                _span_texts(verified.frozen(source_id, old)),
                _span_texts(verified.frozen(source_id, new)),
            )
        text = None
        if shown_version is not None:
            text = verified.frozen(source_id, shown_version).text[: TEXT_SHOWN + 1]
        with read_side.db.reads.connect() as conn:
            return changes, text, source_counts(conn, source_id)

    changes, text, engagement = await run_in_threadpool(read)
    context.update(
        source=source,
        affected=affected,
        old=old,
        new=new,
        changes=changes,
        text=None if text is None else _marked_text(text, cited),
        text_version=shown_version,
        cited=cited,
        link=_safe_link(source["uri"]),
        text_cut=text is not None and len(text) > TEXT_SHOWN,
        engagement=engagement,
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
