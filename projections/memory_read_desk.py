"""The memory lists as a key may see them: the items, and the receipts that used one.

Rows come from the read models (``projections/memory_queries.py``); a key with pins is served
only the items it may see and the receipts it may read, each decided from verified events
(:meth:`ledger.memory.memory_desk.MemoryDesk.visible`, ``projections/pinned_view.py``),
before paging, so pages stay full and cursors stable. The desk answers sort keys; the cursors
that carry them over HTTP are ``api/``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from anyio.to_thread import run_sync as run_in_threadpool

from ledger.access.attributes import Pins
from ledger.eventlog.clock import format_time
from ledger.memory.memory_desk import MemoryDesk
from ledger.receipts.outcome_desk import OutcomeDesk
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.sight import KeySight
from projections.memory_queries import MemoryFilter, list_memory, receipts_using
from projections.pages import page, visible_rows
from projections.pinned_view import pinned_view
from projections.service import ReadSide


@dataclass(frozen=True)
class MemoryPage:
    """A page of a memory list; ``last`` is the sort key (a memory or receipt id) of the last
    item when more follow (None on the last page)."""

    items: list[dict[str, Any]]
    last: str | None


class MemoryReadDesk:
    """Lists memory items and the receipts whose pool sealed one."""

    def __init__(
        self,
        read_side: ReadSide,
        memory: MemoryDesk,
        sight: KeySight,
        receipts: ReceiptDesk,
        outcomes: OutcomeDesk,
    ) -> None:
        self.read_side = read_side
        self.memory = memory
        self.sight = sight
        self.receipts = receipts
        self.outcomes = outcomes

    async def items(
        self,
        purpose: str | None,
        status: str | None,
        after: str,
        limit: int,
        pins: Pins | None,
    ) -> MemoryPage:
        """Item summaries by memory id after ``after``, of ``purpose`` and ``status``
        (``active``, ``expired`` or ``revoked``; None: any), and for a key with pins only the
        items it may see, decided from their verified events."""
        where = MemoryFilter(purpose=purpose, status=status)
        read_side = self.read_side
        desk = self.memory
        await run_in_threadpool(read_side.registry.catch_up)  # read-your-writes in this process
        now = format_time(datetime.now(UTC))
        policy = None if pins is None else await run_in_threadpool(desk.checks.policy)

        async def visible(row: dict[str, Any]) -> bool:
            found = await run_in_threadpool(desk.find, str(row["memory_id"]))
            assert policy is not None
            return found is not None and await run_in_threadpool(desk.visible, found, pins, policy)

        async with read_side.async_engine.connect() as conn:

            async def fetch(last: str | None, n: int) -> list[dict[str, Any]]:
                return await list_memory(conn, where, last or "", n, now)

            if pins is None:
                rows = await fetch(after, limit)
            else:
                rows = await visible_rows(fetch, lambda r: r["memory_id"], visible, after, limit)
        items, last = page(rows, limit, lambda row: row["memory_id"])
        return MemoryPage(items, last)

    async def uses(self, memory_id: str, after: str, limit: int, pins: Pins | None) -> MemoryPage:
        """Receipts whose pool sealed a version of the item, by receipt id after ``after``,
        each with the version, its expiry status, outcome and downstream actions (a key with
        pins: an item it may not see is one the ledger does not hold; only receipts it may
        read)."""
        read_side = self.read_side
        await run_in_threadpool(self.memory.read, memory_id, pins)
        await run_in_threadpool(read_side.receipts.catch_up)
        view = await pinned_view(pins, self.sight, self.receipts)
        async with read_side.async_engine.connect() as conn:

            async def fetch(last: str | None, n: int) -> list[dict[str, Any]]:
                return await receipts_using(conn, memory_id, last or "", n)

            if view is None:
                rows = await fetch(after, limit)
            else:
                rows = await visible_rows(
                    fetch, lambda r: r["receipt_id"], view.receipt_row, after, limit
                )
        items, last = page(rows, limit, lambda row: row["receipt_id"])
        # Refused (500 ``ledger-integrity``) unless the verified events hold every row served.
        await run_in_threadpool(read_side.served_receipts.check_memory_uses, items, memory_id)
        downstream = self.outcomes.downstream
        hanging = await run_in_threadpool(downstream, [row["receipt_id"] for row in items])
        return MemoryPage([{**row, **hanging[row["receipt_id"]]} for row in items], last)
