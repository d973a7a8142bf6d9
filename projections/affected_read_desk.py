"""Which receipts a change touches, and which it expired, as a key may see them.

A list is a page of receipt ids from a read-model query (``projections/affected_queries.py``),
narrowed before paging to the receipts a pinned key may read (``projections/pinned_view.py``:
a left-out receipt is absent, pages stay full, cursors stable), then each receipt's status,
latest outcome and downstream actions are read from its verified events
(:meth:`ledger.receipts.outcome_desk.OutcomeDesk.downstream`), never from a read-model row.
The desk answers sort keys; the cursors that carry them over HTTP are ``api/``'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from anyio.to_thread import run_sync as run_in_threadpool

from ledger.access.attributes import Pins
from ledger.errors import NotFound
from ledger.receipts.outcome_desk import OutcomeDesk
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.sight import KeySight
from projections.affected_queries import (
    ReadConnection,
    count_expired_by,
    receipts_expired_by,
    receipts_opened_by,
    receipts_recording,
    receipts_under_policy,
)
from projections.claim_queries import affected_by_version
from projections.pages import page, visible_rows
from projections.pinned_view import PinnedView, pinned_view
from projections.service import ReadSide

EXPIRED_SHOWN = 100
"""Expired receipts a write's answer names; ``GET /v1/expiries`` pages on from there."""

Fetch = Callable[[ReadConnection, str | None, int], Awaitable[list[dict[str, Any]]]]
"""A read-model query: up to ``n + 1`` rows (each with ``receipt_id``) after a receipt id."""


@dataclass(frozen=True)
class AffectedPage:
    """A page of receipts, each with its status, outcome and actions; ``last`` is the receipt
    id of the last item when more follow (None on the last page)."""

    items: list[dict[str, Any]]
    last: str | None


@dataclass(frozen=True)
class Expired:
    """The first page of the receipts one change expired: its ``cause`` (``n<position>``;
    None when the write changed nothing, so expired nothing)."""

    cause: str | None
    items: list[dict[str, Any]]
    last: str | None


@dataclass(frozen=True)
class VersionPage:
    """The receipts (with their committed claims) that stood on a source version: ``body``
    as ``affected_by_version`` reads it (counts over every page the key may read), and a
    page of its receipts by receipt id."""

    body: dict[str, Any]
    items: list[dict[str, Any]]
    last: str | None


async def affected_page(
    fetch: Fetch,
    start: str | None,
    limit: int,
    read_side: ReadSide,
    outcomes: OutcomeDesk,
    view: PinnedView | None,
) -> AffectedPage:
    """One page of ``fetch``'s receipts after receipt id ``start`` (a key with pins: only
    those it may read), each with its status, outcome and actions."""
    await run_in_threadpool(read_side.receipts.catch_up)  # read-your-writes in this process
    async with read_side.async_engine.connect() as conn:

        async def rows(last: str | None, n: int) -> list[dict[str, Any]]:
            return await fetch(conn, last, n)

        if view is None:
            found = await rows(start, limit)
        else:
            found = await visible_rows(
                rows, lambda row: row["receipt_id"], view.receipt_row, start, limit
            )
    items, last = page(found, limit, lambda row: row["receipt_id"])
    hanging = await run_in_threadpool(outcomes.downstream, [row["receipt_id"] for row in items])
    return AffectedPage([{**row, **hanging[row["receipt_id"]]} for row in items], last)


def expired_fetch(cause: str) -> Fetch:
    """The receipts the change ``cause`` expired."""

    async def fetch(conn: ReadConnection, after: str | None, n: int) -> list[dict[str, Any]]:
        return await receipts_expired_by(conn, cause, after, n)

    return fetch


async def expired_at(
    position: int | None, read_side: ReadSide, outcomes: OutcomeDesk, view: PinnedView | None
) -> Expired:
    """What a write's answer says it expired: the first page of the receipts the change at
    ``position`` expired (None: the write changed nothing, so it expired nothing)."""
    if position is None:
        return Expired(None, [], None)
    cause = f"n{position}"
    found = await affected_page(
        expired_fetch(cause), None, EXPIRED_SHOWN, read_side, outcomes, view
    )
    return Expired(cause, found.items, found.last)


class AffectedReadDesk:
    """The affected and expired lists: receipts recording a model, tool or context-assembly
    version, opened under a policy or by an API key, standing on a source version, or
    expired by one change."""

    def __init__(
        self, read_side: ReadSide, sight: KeySight, receipts: ReceiptDesk, outcomes: OutcomeDesk
    ) -> None:
        self.read_side = read_side
        self.sight = sight
        self.receipts = receipts
        self.outcomes = outcomes

    async def _page(
        self, fetch: Fetch, after: str | None, limit: int, pins: Pins | None
    ) -> AffectedPage:
        view = await pinned_view(pins, self.sight, self.receipts)
        return await affected_page(fetch, after, limit, self.read_side, self.outcomes, view)

    async def recording(
        self, kind: str, name: str, version: str, after: str | None, limit: int, pins: Pins | None
    ) -> AffectedPage:
        """Receipts recording ``version`` of the model, tool or context assembly ``name``
        (a tool's bare name too), after receipt id ``after``."""

        async def fetch(conn: ReadConnection, last: str | None, n: int) -> list[dict[str, Any]]:
            return await receipts_recording(conn, kind, name, version, last, n)

        return await self._page(fetch, after, limit, pins)

    async def under_policy(
        self, policy_version: str, after: str | None, limit: int, pins: Pins | None
    ) -> AffectedPage:
        """Receipts opened under ``policy_version``, after receipt id ``after``."""

        async def fetch(conn: ReadConnection, last: str | None, n: int) -> list[dict[str, Any]]:
            return await receipts_under_policy(conn, policy_version, last, n)

        return await self._page(fetch, after, limit, pins)

    async def opened_by(
        self, key_name: str, after: str | None, limit: int, pins: Pins | None
    ) -> AffectedPage:
        """Receipts the API key ``key_name`` opened, after receipt id ``after``."""
        opened_by = f"key:{key_name}"

        async def fetch(conn: ReadConnection, last: str | None, n: int) -> list[dict[str, Any]]:
            return await receipts_opened_by(conn, opened_by, last, n)

        return await self._page(fetch, after, limit, pins)

    async def expired_by(
        self, cause: str, after: str | None, limit: int, pins: Pins | None
    ) -> AffectedPage:
        """Receipts the change ``cause`` (``n<position>``) expired, each with the reason it
        gave, after receipt id ``after``."""
        return await self._page(expired_fetch(cause), after, limit, pins)

    async def expired(self, position: int | None, pins: Pins | None) -> Expired:
        """:func:`expired_at` as a key with ``pins`` may see it (only receipts it may read,
        as every list of receipts)."""
        view = await pinned_view(pins, self.sight, self.receipts)
        return await expired_at(position, self.read_side, self.outcomes, view)

    async def count_expired(self, position: int) -> int:
        """How many receipts the change at ``position`` expired (every one, whoever asks)."""
        async with self.read_side.async_engine.connect() as conn:
            return await count_expired_by(conn, f"n{position}")

    async def standing_on(
        self, source_id: str, version: int, after: str | None, limit: int, pins: Pins | None
    ) -> VersionPage:
        """Every receipt and committed claim that stood on a source version, after receipt id
        ``after``; to a key with pins a source it may not see is one the ledger does not hold,
        and only receipts it may read are served and counted."""
        view = await pinned_view(pins, self.sight, self.receipts)
        if view is not None and not await view.sees_source(source_id):
            raise NotFound(f"source {source_id!r} has no version {version}")
        async with self.read_side.async_engine.connect() as conn:
            body = await affected_by_version(conn, source_id, version)
        if view is not None:
            readable = [r for r in body["receipts"] if await view.receipt_row(r)]
            body["receipts"] = readable
            body["receipt_count"] = len(readable)
            body["claim_count"] = sum(len(r["claims"]) for r in readable)
        ordered = sorted(body["receipts"], key=lambda row: str(row["receipt_id"]))
        rows = [r for r in ordered if after is None or r["receipt_id"] > after][: limit + 1]
        items, last = page(rows, limit, lambda row: row["receipt_id"])
        # Refused (500 ``ledger-integrity``) unless the verified events hold every row served.
        await run_in_threadpool(
            self.read_side.served_receipts.check_affected, items, source_id, version
        )
        downstream = self.outcomes.downstream
        hanging = await run_in_threadpool(downstream, [row["receipt_id"] for row in items])
        items = [{**row, **hanging[row["receipt_id"]]} for row in items]
        return VersionPage(body, items, last)
