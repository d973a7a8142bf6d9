"""Serving a receipt's context packet: verified spans, today's entitlement, the recorded hash."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.access.attributes import Pins
from ledger.errors import LedgerIntegrityError
from ledger.receipts.entitlement import GateRecord, receipt_principal
from ledger.receipts.packet import ContextPacket, render_packet
from ledger.receipts.receipt import Receipt
from ledger.registry.evidence import ResolvedSpan

if TYPE_CHECKING:
    from ledger.receipts.receipt_desk import ReceiptDesk


def served_packet(
    desk: ReceiptDesk, receipt_id: str, pins: Pins | None = None
) -> tuple[Receipt, ContextPacket]:
    """The receipt's pool and recorded transformations rendered as its context packet, from
    verified events.

    Each span comes from :class:`~ledger.registry.verified_spans.VerifiedSpans` and must
    hash to what the pool sealed; the packet's stable prefix must hash to what the receipt
    recorded. A receipt a key with ``pins`` may not read is refused as a missing one. The
    receipt's principal must still be entitled to every span, under the policy in force and
    today's access attributes, or the read is refused with the safe codes only."""
    receipt = desk.read(receipt_id, pins)
    context = receipt.context
    gate = GateRecord(desk.policies.in_force(), receipt_principal(context))
    resolved = desk.resolver.resolve([entry["span_id"] for entry in receipt.pool])
    spans: list[ResolvedSpan] = []
    for index, entry in enumerate(receipt.pool):
        span = next(
            (s for s in resolved.get(entry["span_id"], ()) if s.version == entry["version"]),
            None,
        )
        if span is None or span.text_sha256 != entry["text_sha256"]:
            raise LedgerIntegrityError(
                "packet_mismatch",
                f"pool span {entry['span_id']} does not resolve to the text it sealed",
                {"receipt_id": receipt_id, "span_id": entry["span_id"]},
            )
        gate.admit(f"pool[{index}]", span, True)
        spans.append(span)
    gate.refuse_if_denied()
    packet = render_packet(spans, context["request"], receipt.transformations)
    recorded = context.get("packet")
    if recorded is not None and recorded["prefix_sha256"] != packet.prefix_sha256:
        raise LedgerIntegrityError(
            "packet_mismatch",
            f"the packet's stable prefix hashes to {packet.prefix_sha256}, the receipt "
            f"recorded {recorded['prefix_sha256']}",
            {"receipt_id": receipt_id},
        )
    return receipt, packet
