"""The receipt reads that are more than one receipt's document: ``GET /v1/receipts`` (the
list), a receipt sealed as a DSSE envelope, and its context packet.

The list comes from the receipts read model, filtered for a pinned key
(``projections/pinned_view.py``) and checked against the verified events before it is served;
the envelope and the packet come from the receipt's verified events alone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from anyio.to_thread import run_sync as run_in_threadpool

from ledger.access.attributes import Pins
from ledger.crypto.dsse import RECEIPT_PAYLOAD_TYPE, seal_envelope
from ledger.eventlog.clock import format_time
from ledger.receipts.document import receipt_payload
from ledger.receipts.packet import ContextPacket
from ledger.receipts.packet_reads import served_packet
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.sight import KeySight
from ledger.runtime import LedgerRuntime
from projections.pages import page, visible_rows
from projections.pinned_view import pinned_view
from projections.receipt_queries import ReceiptFilter, list_receipts, receipts_as_at
from projections.service import ReadSide


class ReceiptReadDesk:
    """Lists receipts, seals one as an envelope and renders its context packet, for a key's
    pins."""

    def __init__(
        self, read_side: ReadSide, sight: KeySight, receipts: ReceiptDesk, runtime: LedgerRuntime
    ) -> None:
        self.read_side = read_side
        self.sight = sight
        self.receipts = receipts
        self.runtime = runtime

    async def receipts_page(
        self,
        key: list[int],
        limit: int,
        pins: Pins | None,
        *,
        actor: str | None = None,
        purpose: str | None = None,
        policy_version: str | None = None,
        status: str | None = None,
        opened_after: str | None = None,
        opened_before: str | None = None,
    ) -> tuple[list[dict[str, Any]], int | None]:
        """A page of receipts in the order they were opened after the sort key ``key``
        (position; [] for the start), filtered (times in ledger format, exclusive), and the
        position of its last item when more follow (a pinned key: only receipts opened for a
        principal it could claim)."""
        where = ReceiptFilter(
            actor=actor,
            purpose=purpose,
            policy_version=policy_version,
            status=status,
            opened_after=opened_after,
            opened_before=opened_before,
        )
        read_side = self.read_side
        await run_in_threadpool(read_side.receipts.catch_up)  # read-your-writes in this process
        now = format_time(datetime.now(UTC))
        view = await pinned_view(pins, self.sight, self.receipts)
        async with read_side.async_engine.connect() as conn:

            async def fetch(last: int | None, n: int) -> list[dict[str, Any]]:
                return await list_receipts(conn, where, last or 0, n, now)

            if view is None:
                rows = await fetch(key[0] if key else 0, limit)
            else:
                rows = await visible_rows(
                    fetch, lambda r: r["position"], view.receipt_row, key[0] if key else 0, limit
                )
        items, last = page(rows, limit, lambda row: row["position"])
        # Refused (500 ``ledger-integrity``) unless the verified events hold every row served.
        await run_in_threadpool(read_side.served_receipts.check_receipts, items, now)
        return items, last

    async def receipts_as_at(
        self, where: ReceiptFilter, before: int | None
    ) -> tuple[list[dict[str, Any]], int | None]:
        """The console's receipt list: 50 receipts matching ``where``, newest first, opened
        before the position ``before`` (None: the newest), as they stand now, and the cursor
        of the next page (None on the last). Every read model is caught up first."""
        read_side = self.read_side
        await run_in_threadpool(read_side.catch_up)
        now = format_time(datetime.now(UTC))
        async with read_side.async_engine.connect() as conn:
            rows, next_cursor = await receipts_as_at(conn, where, now, before=before)
        # Refused (500 ``ledger-integrity``) unless the verified events hold every row served.
        await run_in_threadpool(read_side.served_receipts.check_receipts_at, rows, now)
        return rows, next_cursor

    def envelope(self, receipt_id: str, pins: Pins | None) -> dict[str, Any]:
        """The receipt as a DSSE envelope signed with HMAC-SHA256 and Ed25519 (the ledger's
        keys as they are now); a receipt the key may not read is refused as a missing one."""
        receipt = self.receipts.read(receipt_id, pins)
        runtime = self.runtime
        return seal_envelope(
            receipt_payload(receipt),
            RECEIPT_PAYLOAD_TYPE,
            runtime.hmac_key,
            runtime.ledger.signing_key,
        )

    def packet(self, receipt_id: str, pins: Pins | None) -> tuple[Receipt, ContextPacket]:
        """The receipt and its context packet, rendered from verified events
        (``ledger/receipts/packet_reads.py``: what is checked before it is served)."""
        return served_packet(self.receipts, receipt_id, pins)
