"""The review queue's read: ``GET /v1/review``, claims a sampled entailment check did not fully
support, each entry checked against the verified events before it is served."""

from __future__ import annotations

from typing import Any

from anyio.to_thread import run_sync as run_in_threadpool

from projections.pages import page
from projections.review_queries import review_items
from projections.service import ReadSide


class ReviewReadDesk:
    """Reads the review queue a page at a time."""

    def __init__(self, read_side: ReadSide) -> None:
        self.read_side = read_side

    async def queue(self, after: int, limit: int) -> tuple[list[dict[str, Any]], int | None]:
        """The entries after log position ``after``, oldest first, at most ``limit``, and the
        position of the last when more follow."""
        read_side = self.read_side
        async with read_side.async_engine.connect() as conn:
            rows = await review_items(conn, after, limit + 1)
        items, last = page(rows, limit, lambda row: row["position"])
        # Refused (500 ``ledger-integrity``) unless the verified events hold every entry served.
        await run_in_threadpool(read_side.served_receipts.check_review, items)
        return items, last
