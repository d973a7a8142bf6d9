"""Memory items through the services: who may use them as their sources change, the expiry
of the receipts that used them, and an opening that raced a correction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from api.services import Services
from ledger.access.attributes import Principal, SourceAccess
from ledger.errors import EntitlementDenied, InvalidInput
from ledger.memory import MemoryDraft
from ledger.receipts.memory_pool import SealedMemory
from ledger.receipts.packet import render_packet
from ledger.receipts.packet_reads import served_packet
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_desk import ReceiptRequest
from ledger.registry.source_desk import SourceDraft

TEXT = "Refunds are allowed within 30 days. Disputed charges are excluded."
PURPOSE = "dispute-review"


def _source(services: Services, source_id: str = "policy") -> list[str]:
    version = services.sources.register(
        source_id, SourceDraft(TEXT, "text/plain", source_id.title()), "derived", "t"
    )
    services.read_side.catch_up()
    return [span.span_id for span in version.spans]


def _remember(services: Services, span_id: str, expires: datetime | None = None) -> str:
    draft = MemoryDraft(
        purpose=PURPOSE,
        scope=SourceAccess(),
        source=[span_id],
        text="Customer 7 disputes the charge.",
        expires_at=expires or datetime(2999, 1, 1, tzinfo=UTC),
    )
    write = services.memory.record(draft, "t", None, "mem_c7")
    services.read_side.catch_up()
    return write.item.memory_id


def _request(span_id: str, memory: list[str]) -> ReceiptRequest:
    return ReceiptRequest(
        "q", "u", PURPOSE, None, "long_context", {"name": "m", "version": "1"}, [],
        [span_id], [], memory=memory,
    )  # fmt: skip


def _reasons(services: Services, receipt_id: str) -> list[tuple[str, str]]:
    receipt = services.receipts.get(receipt_id)
    return [(e["reason"], e["cause"]) for e in receipt.expiries]


def test_memory_from_a_source_later_restricted_is_no_longer_seen_nor_its_packet_served(
    services: Services,
) -> None:
    spans = _source(services)
    evidence = _source(services, "faq")[0]
    memory_id = _remember(services, spans[1])
    receipt, _ = services.receipts.open(_request(evidence, [memory_id]), "t")

    services.sources.change_access("policy", SourceAccess(groups=("legal",)), "t")
    services.read_side.catch_up()

    with pytest.raises(InvalidInput) as refused:
        services.receipts.open(_request(evidence, [memory_id]), "t")
    assert refused.value.errors == [
        {
            "field": "memory[0]",
            "rule": "exists",
            "message": f"memory item {memory_id} does not exist",
        }
    ]
    with pytest.raises(EntitlementDenied) as denied:
        served_packet(services.receipts, receipt.receipt_id)
    assert {"field": "memory[0]", "rule": "entitlement-group-mismatch"} in [
        {"field": e["field"], "rule": e["rule"]} for e in denied.value.errors
    ]


def test_a_memory_version_past_its_expiry_expires_the_receipts_that_sealed_it_once(
    services: Services,
) -> None:
    spans = _source(services)
    expires = datetime(2999, 1, 1, tzinfo=UTC)
    memory_id = _remember(services, spans[0], expires)
    receipt, _ = services.receipts.open(_request(spans[0], [memory_id]), "t")
    services.read_side.catch_up()

    before = services.expiry.sweep(expires - timedelta(seconds=1))
    first = services.expiry.sweep(expires + timedelta(seconds=1))
    again = services.expiry.sweep(expires + timedelta(days=1))

    assert (before, first, again) == (0, 1, 0)
    assert _reasons(services, receipt.receipt_id) == [("memory_expired", f"memory:{memory_id}:v1")]
    detail = services.receipts.get(receipt.receipt_id).expiries[0]["detail"]
    assert detail == {
        "memory_id": memory_id,
        "version": 1,
        "expires_at": "2999-01-01T00:00:00.000000Z",
    }


def test_an_opening_that_raced_a_correction_expires_at_once(services: Services) -> None:
    spans = _source(services)
    memory_id = _remember(services, spans[0])
    item = services.memory.find(memory_id)
    assert item is not None
    stale = item.current
    services.memory.correct(
        memory_id,
        MemoryDraft(None, None, None, "Customer 7's dispute was settled.", None),
        "settled",
        "t",
        None,
    )
    # What an opening that read the item just before the correction commits after it.
    context = {
        "request": "q", "actor": "u", "purpose": PURPOSE, "policy_version": "default",
        "route": "long_context", "model": {"name": "m", "version": "1"}, "tools": [],
        "budget": None, "memory": [SealedMemory(memory_id, stale).entry()],
    }  # fmt: skip
    context["packet"] = render_packet([], "q", memory=[(memory_id, stale)]).record()
    raced = Receipt.open(context, [], [], "2026-01-01T00:00:00.000000Z", None, "t", "race", "f")
    position = services.ledger.commit(raced)[-1].notification.id

    services.expiry.run_once()

    assert _reasons(services, raced.receipt_id) == [("memory_corrected", f"n{position}")]
    detail = services.receipts.get(raced.receipt_id).expiries[0]["detail"]
    assert detail == {"memory_id": memory_id, "version": 1, "corrected_by": 2}


def test_the_receipts_principal_must_be_entitled_to_the_item_scope(services: Services) -> None:
    spans = _source(services)
    draft = MemoryDraft(
        purpose=PURPOSE,
        scope=SourceAccess(groups=("support",)),
        source=[spans[0]],
        text="Kept.",
        expires_at=datetime(2999, 1, 1, tzinfo=UTC),
    )
    memory_id = services.memory.record(draft, "t", None, "mem_scoped").item.memory_id
    outsider = _request(spans[0], [memory_id])
    insider = ReceiptRequest(
        "q", "u", PURPOSE, None, "long_context", {"name": "m", "version": "1"}, [],
        [spans[0]], [], memory=[memory_id],
        principal=Principal(groups=("support",), purpose=PURPOSE),
    )  # fmt: skip

    with pytest.raises(InvalidInput) as refused:
        services.receipts.open(outsider, "t")
    receipt, created = services.receipts.open(insider, "t")

    assert refused.value.errors == [
        {
            "field": "memory[0]",
            "rule": "exists",
            "message": f"memory item {memory_id} does not exist",
        }
    ]
    assert created
    assert receipt.memory[0]["memory_id"] == memory_id
