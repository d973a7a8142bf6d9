"""The auditor console's reads: a receipt's page (the verified receipt, its events when a claim
was refused or repaired, engagement, and the rendered span and registry facts of every
citation) and a source's page (the source as known then, the receipts that stood on each
version, a cited span in place, two versions' sentences to compare, the shown frozen text).

Everything read from the read models is checked against the verified events before it is
returned (``ReadSide.served``, ``served_receipts``, ``span_resolver``); the console's
``api/console/`` shapes it for its templates.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from anyio.to_thread import run_sync as run_in_threadpool

from ledger.errors import NotFound
from ledger.eventlog.application import Ledger
from ledger.receipts.document import receipt_document
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.receipt_ids import receipt_aggregate_id
from ledger.registry.verified_spans import FrozenVersion
from projections import registry_queries as rq
from projections.citation_queries import CitedVersion, Pair, cited_versions
from projections.claim_queries import Coordinates, affected_by_version, binding_views
from projections.engagement import claim_counts, source_counts
from projections.service import ReadSide

T = TypeVar("T")

TEXT_SHOWN = 20_000
"""Characters of a version's frozen text the source page shows (the rest is in the
downloads)."""


def needs_history(document: dict[str, Any]) -> bool:
    """Whether the receipt's page needs its events: it has a refused or repaired claim (the
    receipt itself says everything else)."""
    return bool(document["quarantined"]) or any(c.get("repairs") for c in document["claims"])


def _span_texts(frozen: FrozenVersion) -> list[str]:
    """The version's sentences (its top-level spans), in order, from its verified event."""
    return [span.text for span in frozen.spans.values() if span.parent_span_id is None]


@dataclass(frozen=True)
class ReceiptPage:
    """What the receipt page reads: the verified receipt document, its events (only when
    :func:`needs_history`), each claim's engagement counts, the rendered span of every
    binding and the registry's facts on every cited version."""

    document: dict[str, Any]
    events: list[Any]
    counts: dict[str, dict[str, int]]
    views: dict[Coordinates, dict[str, Any]]
    cited: dict[Pair, CitedVersion]


@dataclass(frozen=True)
class CitedSpan:
    """A span followed from a citation: its rendered view with two sentences either side
    (None when that version has no such span) and its offsets in the frozen text."""

    span_id: str
    version: int
    view: dict[str, Any] | None
    offsets: tuple[int, int] | None


@dataclass(frozen=True)
class SourcePage:
    """What the source page reads, as of its coordinates: the source, the receipts that stood
    on each version, the versions compared (``old``, ``new``) and their sentences when they
    differ, the cited span, the version shown and the start of its frozen text (one
    character past :data:`TEXT_SHOWN` when cut), and engagement."""

    source: dict[str, Any]
    affected: dict[int, dict[str, Any]]
    old: int | None
    new: int | None
    compared: tuple[list[str], list[str]] | None
    cited: CitedSpan | None
    shown_version: int | None
    text: str | None
    engagement: dict[str, int]


@dataclass(frozen=True)
class SourceUnknown:
    """A source asked for before the ledger first recorded it: the source as known now."""

    source: dict[str, Any]


class ConsoleReadDesk:
    """Reads what the console's receipt and source pages show, checked against the events."""

    def __init__(self, read_side: ReadSide, receipts: ReceiptDesk, ledger: Ledger) -> None:
        self.read_side = read_side
        self.receipts = receipts
        self.ledger = ledger

    def _document(self, receipt_id: str) -> tuple[dict[str, Any], list[Any]]:
        document = receipt_document(self.receipts.get(receipt_id))
        events: list[Any] = []
        if needs_history(document):
            events = list(self.ledger.events.get(receipt_aggregate_id(receipt_id)))
        return document, events

    async def receipt_page(self, receipt_id: str, first: Callable[[], T]) -> tuple[T, ReceiptPage]:
        """Everything the receipt page reads (``NotFound`` for an unknown receipt), and what
        ``first`` returned: it runs before anything is read, in the same thread hop (the
        page's session check, so a page costs one hop to the thread pool and the async
        queries of :meth:`citation_facts`)."""

        def read() -> tuple[T, dict[str, Any], list[Any], dict[str, dict[str, int]]]:
            before = first()
            document, events = self._document(receipt_id)
            claims = document["claims"] + document["quarantined"]
            with self.read_side.db.reads.connect() as conn:
                counts = claim_counts(conn, [c["claim_id"] for c in claims])
            return before, document, events, counts

        before, document, events, counts = await run_in_threadpool(read)
        views, cited = await self.citation_facts(document["claims"] + document["quarantined"])
        return before, ReceiptPage(document, events, counts, views, cited)

    async def claim_facts(
        self, receipt_id: str, claim_id: str
    ) -> tuple[dict[str, Any], dict[str, Any], list[Any], dict[Pair, CitedVersion]] | None:
        """A committed claim of the receipt with the receipt document, its events (when
        :func:`needs_history`) and the registry's facts on its cited versions; None when the
        claim was never committed."""
        document, events = await run_in_threadpool(self._document, receipt_id)
        claim = next((c for c in document["claims"] if c["claim_id"] == claim_id), None)
        if claim is None:
            return None
        _, cited = await self.citation_facts([claim])
        return document, claim, events, cited

    async def citation_facts(
        self, claims: list[dict[str, Any]]
    ) -> tuple[dict[Coordinates, dict[str, Any]], dict[Pair, CitedVersion]]:
        """The rendered span of every binding of ``claims`` (table cells included) and the
        registry's facts on every cited version: the three queries of ``binding_views`` and
        one or two more, however many claims."""
        wanted: set[Coordinates] = {
            (b["span_id"], b["source_id"], b["version"])
            for claim in claims
            for b in claim["bindings"]
            if b.get("source_id") is not None
        }
        async with self.read_side.async_engine.connect() as conn:
            views = await binding_views(conn, wanted, with_cells=True)
            cells = {(v["source_id"], v["version"]) for v in views.values() if v.get("cell")}
            cited = await cited_versions(conn, {(s, v) for _, s, v in wanted}, cells)

        def check() -> None:  # nothing the read model renders is shown unless the events hold it
            served = self.read_side.served
            served.check_views(list(views.values()))
            served.check_cited([dataclasses.asdict(version) for version in cited.values()])

        await run_in_threadpool(check)
        return views, cited

    async def _cited(
        self,
        conn: Any,
        source_id: str,
        span_id: str | None,
        version: int | None,
        as_of: rq.AsOf,
    ) -> CitedSpan | None:
        """The cited span of ``version`` with two sentences either side and its offsets in
        the frozen text, checked against the version's signed event; None when no span is
        asked for. A span that is not in that version is reported as such, not as an error:
        the link that brought the reader here names both."""
        if span_id is None or version is None:
            return None
        views = await binding_views(conn, [(span_id, source_id, version)], as_of, window=2)
        view = views.get((span_id, source_id, version))
        if view is None:
            return CitedSpan(span_id, version, None, None)

        def verified() -> tuple[int, int] | None:
            self.read_side.served.check_views([view], as_of.known_at)
            span = self.read_side.span_resolver.frozen(source_id, version).spans.get(span_id)
            return None if span is None else (span.start, span.end)

        return CitedSpan(span_id, version, view, await run_in_threadpool(verified))

    async def source_page(
        self,
        source_id: str,
        as_of: rq.AsOf,
        old: int | None,
        new: int | None,
        span_id: str | None,
        version: int | None,
    ) -> SourcePage | SourceUnknown:
        """The source as the ledger knew it at ``as_of``, the diff's versions ``old`` and
        ``new`` (default: the last two known), and, given ``span_id`` and ``version``, the
        cited span; a version named that was not known then is ``NotFound`` naming its field.
        Asked for before the ledger first recorded the source (known now, else NotFound):
        :class:`SourceUnknown`."""
        read_side = self.read_side
        async with read_side.async_engine.connect() as conn:
            try:
                source = await rq.get_source(conn, source_id, as_of)
            except NotFound:
                if as_of.known_at is None:
                    raise
                return SourceUnknown(await rq.get_source(conn, source_id))
            affected = {
                v["version"]: await affected_by_version(conn, source_id, v["version"])
                for v in source["versions"]
            }
            cited = await self._cited(conn, source_id, span_id, version, as_of)
        known = [v["version"] for v in source["versions"]]
        if new is None and known:
            new = known[-1]
        if old is None and len(known) > 1 and new is not None:
            old = max((v for v in known if v < new), default=None)
        for field, value in (("old", old), ("new", new), ("version", version)):
            if value is not None and value not in known:
                raise NotFound(
                    f"{field}: source {source_id!r} has no version {value} as known then"
                )
        shown_version = version if cited is not None and cited.view is not None else new

        def read() -> SourcePage:
            # Everything shown of the source comes from, or is checked against, its signed
            # events.
            read_side.served.check_source(source, as_of.known_at)
            for number, hit in affected.items():
                read_side.served_receipts.check_affected(hit["receipts"], source_id, number)
            verified = read_side.span_resolver
            compared = None
            if old is not None and new is not None and old != new:
                compared = (
                    _span_texts(verified.frozen(source_id, old)),
                    _span_texts(verified.frozen(source_id, new)),
                )
            text = None
            if shown_version is not None:
                text = verified.frozen(source_id, shown_version).text[: TEXT_SHOWN + 1]
            with read_side.db.reads.connect() as conn:
                engagement = source_counts(conn, source_id)
            return SourcePage(
                source, affected, old, new, compared, cited, shown_version, text, engagement
            )

        return await run_in_threadpool(read)
