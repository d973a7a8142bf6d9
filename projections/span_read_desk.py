"""Span reads: a span by id and its neighbouring sentences, the spans of a version by
character range and by table cell, and the spans holding a quote.

Rows come from the registry read model (:mod:`projections.span_queries`), narrowed to what a
pinned key may see (:mod:`projections.pinned_view`: a source the key may not see is answered
as one the ledger does not hold, on the same path), and every span served is first checked
against the verified version it belongs to (``VerifiedSpans.check_served``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

from anyio.to_thread import run_sync as run_in_threadpool

from ledger.access.attributes import Pins
from ledger.errors import NotFound
from ledger.receipts.sight import KeySight
from projections import span_queries as queries
from projections.pages import page, visible_rows
from projections.pinned_view import pinned_read, pinned_view
from projections.registry_queries import AsOf
from projections.service import ReadSide
from projections.span_queries import QuoteSearch

Listed = tuple[list[dict[str, Any]], Any | None]
"""A page of spans and the sort key of the last one served when more follow (else None)."""


def _no_version(source_id: str, version: int) -> NotFound:
    """What a version read answers for a version (or source) the registry does not hold."""
    return NotFound(f"source {source_id!r} has no version {version}")


def _listed(rows: list[dict[str, Any]], limit: int) -> Listed:
    items, last = page(rows, limit, lambda row: row["ord"])
    for item in items:
        del item["ord"]
    return items, last


class SpanReadDesk:
    """Reads spans from the registry read model, as a key may see them."""

    def __init__(self, read_side: ReadSide, sight: KeySight) -> None:
        self.read_side = read_side
        self.sight = sight

    async def _checked(self, source_id: str, version: int, rows: list[dict[str, Any]]) -> None:
        """Refuse (500 ``ledger-integrity``) unless the verified version holds every row."""
        resolver = self.read_side.span_resolver
        await run_in_threadpool(resolver.check_served, source_id, version, rows)

    async def get_span(self, span_id: str, as_of: AsOf, pins: Pins | None) -> dict[str, Any]:
        """A span with its source, version, hash, breadcrumb, page and status (as of)."""
        async with self.read_side.async_engine.connect() as conn:
            body = await queries.get_span(conn, span_id, as_of)
        await pinned_read(self.sight, pins, body["source_id"], queries.missing_span(span_id, as_of))
        await run_in_threadpool(
            self.read_side.span_resolver.check_served,
            body["source_id"],
            body["version"],
            [body],
            body["version_hash"],
        )
        await run_in_threadpool(self.read_side.served.check_span, body, as_of.known_at)
        return body

    async def span_context(self, span_id: str, window: int, pins: Pins | None) -> dict[str, Any]:
        """The span and up to ``window`` neighbouring sentences either side of it."""
        async with self.read_side.async_engine.connect() as conn:
            body = await queries.get_span_context(conn, span_id, window)
        await pinned_read(self.sight, pins, body["source_id"], queries.missing_span(span_id))
        served = [body["span"], *body["before"], *body["after"]]
        await self._checked(body["source_id"], body["version"], served)
        return body

    async def spans_in_range(
        self,
        source_id: str,
        version: int,
        start: int | None,
        end: int | None,
        after_ord: int | None,
        limit: int,
        pins: Pins | None,
    ) -> Listed:
        """The version's spans overlapping ``[start, end)`` of its frozen text (either bound
        optional), in document order after span ordinal ``after_ord``."""
        await pinned_read(self.sight, pins, source_id, _no_version(source_id, version))
        async with self.read_side.async_engine.connect() as conn:
            rows = await queries.spans_in_range(
                conn, source_id, version, start, end, after_ord, limit
            )
        await self._checked(source_id, version, rows)
        return _listed(rows, limit)

    async def table_cells(
        self,
        source_id: str,
        version: int,
        table: str | None,
        row: int | None,
        col: int | None,
        after_ord: int | None,
        limit: int,
        pins: Pins | None,
    ) -> Listed:
        """The version's table cell spans with their envelopes (each filter optional), in
        document order after span ordinal ``after_ord``."""
        await pinned_read(self.sight, pins, source_id, _no_version(source_id, version))
        async with self.read_side.async_engine.connect() as conn:
            rows = await queries.table_cells(
                conn, source_id, version, table, row, col, after_ord, limit
            )
        await self._checked(source_id, version, rows)
        return _listed(rows, limit)

    async def search(
        self,
        quote: str,
        at: str,
        source_id: str | None,
        after: list[Any],
        limit: int,
        pins: Pins | None,
    ) -> Listed:
        """Spans whose text contains ``quote`` (both normalised as the gate's quote check
        normalises them), of versions in force at ``at`` (ledger time) of ``source_id`` or of
        any source, after the key ``after`` (source id, version, span ordinal; [] from the
        start); a pinned key: of sources its principals may see (docs/access.md)."""
        search = QuoteSearch(quote, at, source_id)
        view = await pinned_view(pins, self.sight)
        if view is not None:  # what the key is known not to see is left out in the query itself
            search = replace(search, hidden=view.hidden)
        async with self.read_side.async_engine.connect() as conn:

            async def fetch(last: list[Any] | None, n: int) -> list[dict[str, Any]]:
                return await queries.search_quote(conn, search, last or [], n)

            if view is None:
                rows = await fetch(after, limit)
            else:
                rows = await visible_rows(
                    fetch,
                    lambda r: [r["source_id"], r["version"], r["ord"]],
                    view.source_row,
                    after,
                    limit,
                )
        items, last = page(rows, limit, lambda r: [r["source_id"], r["version"], r["ord"]])
        by_version: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
        for item in items:
            del item["ord"]
            by_version[(item["source_id"], item["version"])].append(item)
        for (served_source, version), served in by_version.items():
            await run_in_threadpool(
                self.read_side.span_resolver.check_served,
                served_source,
                version,
                served,
                served[0]["version_hash"],
            )
        return items, last
