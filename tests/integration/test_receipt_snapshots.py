"""Receipts kept folded in memory: forks never write through, and other writers are seen."""

from __future__ import annotations

import pytest

from api.services import open_ledger
from api.settings import Settings
from ledger.errors import Conflict, ReceiptExpired
from ledger.gate import Binding, ClaimDraft, GateConfig
from ledger.receipts.expiry_desk import ExpiryDesk
from ledger.receipts.receipt_desk import CommitRequest, ReceiptDesk, ReceiptRequest
from ledger.receipts.receipt_ids import receipt_aggregate_id
from ledger.registry.source_desk import SourceDraft
from ledger.runtime import LedgerRuntime
from ledger.text.spans import Span
from projections.service import ReadSide

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice. Costs fell 3%."


def _desk(runtime: LedgerRuntime) -> tuple[ReadSide, ReceiptDesk]:
    read_side = ReadSide(runtime.ledger, runtime.database)
    return read_side, ReceiptDesk(
        runtime.ledger,
        read_side.span_resolver,
        GateConfig(),
        ExpiryDesk(runtime.ledger),
        runtime.policies,
        runtime.components,
    )


def _open(runtime: LedgerRuntime, desk: ReceiptDesk, read_side: ReadSide) -> tuple[str, list[Span]]:
    version = runtime.sources.register(
        "src", SourceDraft(TEXT, "text/plain", "Src"), "derived", "t"
    )
    read_side.catch_up()
    receipt, _ = desk.open(
        ReceiptRequest(
            "q",
            "u",
            "p",
            "default",
            "long_context",
            {"name": "m", "version": "1"},
            [],
            [s.span_id for s in version.spans],
            [],
        ),
        "t",
    )
    return receipt.receipt_id, list(version.spans)


def _claim(span: Span, key: str) -> CommitRequest:
    return CommitRequest(
        [ClaimDraft(span.text, bindings=(Binding(span.span_id),))], fingerprint=key
    )


def test_a_command_on_a_read_receipt_never_changes_the_kept_snapshot(
    runtime: LedgerRuntime,
) -> None:
    read_side, desk = _desk(runtime)
    receipt_id, spans = _open(runtime, desk, read_side)
    desk.commit(receipt_id, _claim(spans[0], "a"), "t", None)

    forked = desk.get(receipt_id)
    forked.commit("atomic", [{"claim_id": "c-x", "bindings": []}], [], None, None, None, "t")
    forked.expire("source_withdrawn", "n1", {}, "t")  # never saved

    again = desk.get(receipt_id)
    assert [c["ordinal"] for c in again.claims] == [0]
    assert again.expiries == []
    assert again.version == forked.version - 2
    read_side.close()


def test_a_failed_save_leaves_the_snapshot_as_stored(
    runtime: LedgerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_side, desk = _desk(runtime)
    receipt_id, spans = _open(runtime, desk, read_side)
    desk.commit(receipt_id, _claim(spans[0], "a"), "t", None)

    def refuse(*aggregates: object) -> list[object]:
        raise Conflict("another writer")

    monkeypatch.setattr(runtime.ledger, "commit", refuse)
    with pytest.raises(Conflict):
        desk.commit(receipt_id, _claim(spans[1], "b"), "t", None)
    monkeypatch.undo()

    stored = runtime.ledger.repository.get(receipt_aggregate_id(receipt_id))
    kept = desk.get(receipt_id)
    assert [c["claim_id"] for c in kept.claims] == [c["claim_id"] for c in stored.claims]
    assert kept.version == stored.version
    read_side.close()


def test_commits_and_expiries_by_another_process_are_seen(settings: Settings) -> None:
    first, second = open_ledger(settings), open_ledger(settings)
    read_side, desk = _desk(first)
    other_side, other = _desk(second)
    receipt_id, spans = _open(first, desk, read_side)
    desk.commit(receipt_id, _claim(spans[0], "a"), "t", None)
    assert len(desk.get(receipt_id).claims) == 1  # kept in this process

    other_side.catch_up()
    other.commit(receipt_id, _claim(spans[1], "b"), "t", None)
    third = desk.commit(receipt_id, _claim(spans[2], "c"), "t", None)  # after the other's
    assert third.accepted
    aggregate_id = receipt_aggregate_id(receipt_id)
    receipt = second.ledger.repository.get(aggregate_id)
    receipt.expire("policy_retired", "n99", {"policy_version": "default"}, "t")
    second.ledger.commit(receipt)

    seen = desk.get(receipt_id)
    assert [c["ordinal"] for c in seen.claims] == [0, 1, 2]
    assert [e["cause"] for e in seen.expiries] == ["n99"]
    with pytest.raises(ReceiptExpired):  # the other process's expiry is seen: no more claims
        desk.commit(receipt_id, _claim(spans[0], "d"), "t", None)
    assert [c["ordinal"] for c in second.ledger.repository.get(aggregate_id).claims] == [0, 1, 2]
    for side in (read_side, other_side):
        side.close()
    first.close()
    second.close()
