"""Affected receipts as the API answers them: what a change touched, and what it expired.

A list is a page of receipt ids from a read-model query (``projections/affected_queries.py``),
narrowed before paging to the receipts a pinned key may read (``api/pinned_view.py``: a
left-out receipt is absent, pages stay full, cursors stable), then each receipt's status,
latest outcome and downstream actions are read from its verified events
(:meth:`ledger.receipts.outcomes.OutcomeDesk.downstream`), never from a read-model row.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi.concurrency import run_in_threadpool

from api.pages import decode_cursor, encode_cursor
from ledger.keys.api_keys import Caller
from ledger.receipts.outcome_desk import OutcomeDesk
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.sight import KeySight
from projections.affected_queries import ReadConnection, receipts_expired_by
from projections.pages import page, visible_rows
from projections.pinned_view import PinnedView, pinned_view
from projections.service import ReadSide

EXPIRED_SHOWN = 100
"""Expired receipts a write's answer names; ``GET /v1/expiries`` pages on from there."""

Fetch = Callable[[ReadConnection, str | None, int], Awaitable[list[dict[str, Any]]]]
"""A read-model query: up to ``n + 1`` rows (each with ``receipt_id``) after a receipt id."""


def list_name(*parts: str) -> str:
    """A short cursor name bound to a list and its arguments (names may be 200 characters,
    a cursor at most 512)."""
    digest = hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{parts[0]}:{digest[:16]}"


async def affected_page(
    name: str,
    fetch: Fetch,
    after: str | None,
    limit: int,
    read_side: ReadSide,
    outcomes: OutcomeDesk,
    view: PinnedView | None,
) -> dict[str, Any]:
    """One page of ``fetch``'s receipts (a key with pins: only those it may read), each with
    its status, outcome and actions: ``{items, next}``."""
    key = decode_cursor(name, after, (str,))
    start = key[0] if key else None
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
    return {
        "items": [{**row, **hanging[row["receipt_id"]]} for row in items],
        "next": None if last is None else encode_cursor(name, [last]),
    }


def expired_fetch(cause: str) -> Fetch:
    """The receipts the change ``cause`` expired."""

    async def fetch(conn: ReadConnection, after: str | None, n: int) -> list[dict[str, Any]]:
        return await receipts_expired_by(conn, cause, after, n)

    return fetch


async def expired_by(
    cause: str,
    after: str | None,
    limit: int,
    read_side: ReadSide,
    outcomes: OutcomeDesk,
    view: PinnedView | None,
) -> dict[str, Any]:
    """``{cause, items, next}``: the receipts the change ``cause`` expired."""
    found = await affected_page(
        list_name("expiries", cause), expired_fetch(cause), after, limit, read_side, outcomes, view
    )
    return {"cause": cause, **found}


async def expired_at(
    position: int | None, read_side: ReadSide, outcomes: OutcomeDesk, view: PinnedView | None
) -> dict[str, Any]:
    """What a write's answer says it expired: the first page of the receipts the change at
    ``position`` expired (None: the write changed nothing, so it expired nothing)."""
    if position is None:
        return {"cause": None, "items": [], "next": None}
    return await expired_by(f"n{position}", None, EXPIRED_SHOWN, read_side, outcomes, view)


async def expired_for(
    caller: Caller,
    position: int | None,
    sight: KeySight,
    receipts: ReceiptDesk,
    read_side: ReadSide,
    outcomes: OutcomeDesk,
) -> dict[str, Any]:
    """:func:`expired_at` as ``caller`` may see it (a key with pins: only receipts it may
    read, as every list of receipts)."""
    view = await pinned_view(caller.pins, sight, receipts)
    return await expired_at(position, read_side, outcomes, view)
