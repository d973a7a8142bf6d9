"""The registry's reads: the source list, a source, a version with a page of its spans.

Each read takes its rows from the registry read model, narrowed to what a pinned key may see
(:mod:`projections.pinned_view`: a source the key may not see is answered as one the ledger
does not hold, on the same path), and is refused (500 ``ledger-integrity``) unless the
verified events hold every row it serves (``ReadSide.served``, ``span_resolver``).
"""

from __future__ import annotations

from typing import Any

from anyio.to_thread import run_sync as run_in_threadpool

from ledger.access.attributes import Pins
from ledger.receipts.sight import KeySight
from ledger.text.spans import Span
from projections import registry_queries as queries
from projections.pages import page, visible_rows
from projections.pinned_view import pinned_read, pinned_view
from projections.registry import span_row
from projections.registry_queries import NOW, AsOf
from projections.service import ReadSide


def span_body(span: Span) -> dict[str, Any]:
    """A span of a version just recorded, in the shape the span reads serve
    (``GET /v1/spans``)."""
    return queries.span_json(span_row(span))


class SourceReadDesk:
    """Reads sources and versions from the registry read model, as a key may see them."""

    def __init__(self, read_side: ReadSide, sight: KeySight) -> None:
        self.read_side = read_side
        self.sight = sight

    async def list_sources(
        self,
        after: str | None,
        limit: int,
        status: str | None,
        authority: str | None,
        pins: Pins | None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of sources' current states after source id ``after``, by source id (a
        pinned key: only the sources its principals may see), and the last id served when
        more follow (else None)."""
        view = await pinned_view(pins, self.sight)
        async with self.read_side.async_engine.connect() as conn:

            async def fetch(last: str | None, n: int) -> list[dict[str, Any]]:
                return await queries.list_sources(conn, last, n, status, authority)

            if view is None:
                rows = await fetch(after, limit)
            else:
                rows = await visible_rows(
                    fetch, lambda r: r["source_id"], view.source_row, after, limit
                )
        items, last = page(rows, limit, lambda row: row["source_id"])
        # Refused (500 ``ledger-integrity``) unless the verified events hold every row served.
        await run_in_threadpool(self.read_side.served.check_sources, items)
        return items, last

    async def get_source(
        self, source_id: str, as_of: AsOf = NOW, pins: Pins | None = None
    ) -> dict[str, Any]:
        """The source with its versions, statuses and effective intervals (as of)."""
        await pinned_read(self.sight, pins, source_id)
        async with self.read_side.async_engine.connect() as conn:
            body = await queries.get_source(conn, source_id, as_of)
        await run_in_threadpool(self.read_side.served.check_source, body, as_of.known_at)
        return body

    async def get_version(
        self,
        source_id: str,
        version: int,
        as_of: AsOf,
        offset: int,
        after_ord: int | None,
        limit: int,
        pins: Pins | None,
    ) -> tuple[dict[str, Any], int | None]:
        """One version's frozen text, hash and a page of its spans (as of), after span
        ordinal ``after_ord`` or from ``offset``, and the ordinal of the page's last span
        when more follow (else None)."""
        await pinned_read(self.sight, pins, source_id)
        async with self.read_side.async_engine.connect() as conn:
            body = await queries.get_version(
                conn, source_id, version, offset, limit, as_of, after_ord
            )
        next_ord: int | None = body.pop("spans_next_ord")
        await run_in_threadpool(
            self.read_side.span_resolver.check_served,
            source_id,
            version,
            body["spans"],
            body["version_hash"],
            body["frozen_text"],
        )
        await run_in_threadpool(self.read_side.served.check_version, body, as_of.known_at)
        return body, next_ord
