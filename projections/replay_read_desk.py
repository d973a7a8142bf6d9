"""The regulator's replay: the sources and receipts as the ledger knew them at a moment, and
what it learned later about that moment (the console's replay page).

Every read model is brought up to the end of the log first; the receipts listed are checked
against their verified events as they stood at the moment (``ServedReceipts``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anyio.to_thread import run_sync

from projections import registry_queries as rq
from projections.receipt_queries import ReceiptFilter, receipts_as_at
from projections.replay_queries import replay_summary
from projections.service import ReadSide


@dataclass(frozen=True)
class Replay:
    """The ledger as of a moment."""

    sources: list[dict[str, Any]]
    """The first sources registered by then (in id order), each as known and valid then."""
    more_sources: bool
    receipts: list[dict[str, Any]]
    """The newest receipts opened by then, each as it stood then."""
    more_receipts: bool
    summary: dict[str, Any]
    """``first_record``, ``recorded_later``, ``first_recorded_later``, ``decided_later`` and
    ``first_decided_later`` (``projections/replay_queries.py``)."""


class ReplayReadDesk:
    """Reads the ledger as of a moment."""

    def __init__(self, read_side: ReadSide) -> None:
        self.read_side = read_side

    def _summary(self, at: str, sources: int) -> dict[str, Any]:
        self.read_side.catch_up()
        with self.read_side.db.reads.connect() as conn:
            return replay_summary(conn, at, sources)

    async def as_at(self, moment: str, sources: int, receipts: int) -> Replay:
        """At most ``sources`` sources and ``receipts`` receipts as the ledger knew them at
        ``moment`` (a ledger time), and what it recorded later about that moment."""
        found = await run_sync(self._summary, moment, sources)
        as_of = rq.AsOf(known_at=moment, valid_at=moment)
        shown = []
        async with self.read_side.async_engine.connect() as conn:
            for source_id in found["source_ids"][:sources]:
                shown.append(await rq.get_source(conn, source_id, as_of))
            rows, more = await receipts_as_at(
                conn, ReceiptFilter(opened_before=moment), moment, limit=receipts
            )
        await run_sync(self.read_side.served_receipts.check_receipts_at, rows, moment)
        summary = {key: value for key, value in found.items() if key != "source_ids"}
        return Replay(shown, len(found["source_ids"]) > sources, rows, more is not None, summary)
