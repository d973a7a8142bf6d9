"""Serving a receipt's context packet: verified spans and memory, today's entitlement, the
recorded hash."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ledger.access.attributes import Pins
from ledger.errors import LedgerIntegrityError, ReceiptExpired
from ledger.eventlog.clock import format_time
from ledger.memory.item import MemoryItem, MemoryVersion
from ledger.receipts.entitlement import GateRecord, receipt_principal
from ledger.receipts.memory_pool import memory_standing
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
    today's access attributes, or the read is refused with the safe codes only.

    Each memory version the pool sealed comes from its item's verified events and must hash to
    what was sealed; the principal must still be entitled to it (``memory[i]``, a safe code);
    and it must still stand: a packet whose memory was corrected, revoked or has expired is
    never served again (409 ``receipt-expired``), since the packet is what a model is sent."""
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
    memory = _sealed_memory(desk, receipt, gate)
    gate.refuse_if_denied()
    now = format_time(datetime.now(UTC))
    for item, version in memory:
        problem = memory_standing(item, version.version, now)
        if problem is not None:
            raise ReceiptExpired(
                f"receipt {receipt_id}'s {problem}; its packet is not served again: open a new "
                "receipt with current memory"
            )
    packet = render_packet(
        spans,
        context["request"],
        receipt.transformations,
        memory=[(item.memory_id, version) for item, version in memory],
    )
    recorded = context.get("packet")
    if recorded is not None and recorded["prefix_sha256"] != packet.prefix_sha256:
        raise LedgerIntegrityError(
            "packet_mismatch",
            f"the packet's stable prefix hashes to {packet.prefix_sha256}, the receipt "
            f"recorded {recorded['prefix_sha256']}",
            {"receipt_id": receipt_id},
        )
    return receipt, packet


def _sealed_memory(
    desk: ReceiptDesk, receipt: Receipt, gate: GateRecord
) -> list[tuple[MemoryItem, MemoryVersion]]:
    """The memory versions the pool sealed, from verified events, each decided for the
    receipt's principal under the policy in force (a refusal joins the gate's)."""
    found: list[tuple[MemoryItem, MemoryVersion]] = []
    if desk.memory is not None and receipt.memory:
        desk.memory.checks.policy()  # follow the access changes since the last look, once
    for index, entry in enumerate(receipt.memory):
        item = None if desk.memory is None else desk.memory.find(entry["memory_id"])
        version = None
        if item is not None and 1 <= entry["version"] <= len(item.versions):
            version = item.versions[entry["version"] - 1]
        if item is None or version is None or version.text_sha256 != entry["text_sha256"]:
            raise LedgerIntegrityError(
                "packet_mismatch",
                f"memory item {entry['memory_id']} version {entry['version']} does not resolve "
                "to the text the pool sealed",
                {"receipt_id": receipt.receipt_id, "memory_id": entry["memory_id"]},
            )
        assert desk.memory is not None
        decision = desk.memory.decide(gate.governing.policy, gate.principal, version)
        if not decision.allowed:
            gate.refusals.append(
                {
                    "field": f"memory[{index}]",
                    "rule": decision.code or "entitlement-denied",
                    "message": "the principal may not see this memory item",
                }
            )
        found.append((item, version))
    return found
