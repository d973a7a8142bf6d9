"""Receipt and claim rows checked against a receipt's events: what differs, what is only
behind the log, and how many reads a page costs (the ports are fakes that count)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from ledger.errors import LedgerIntegrityError
from ledger.eventlog.clock import format_time
from ledger.receipts.receipt import Receipt
from ledger.receipts.served_rows import ServedReceipts
from ledger.receipts.summaries import receipt_summary

NOW = "2030-01-01T00:00:00.000000Z"


class Log:
    """Receipts' events kept in memory, with the ports a :class:`ServedReceipts` reads."""

    def __init__(self) -> None:
        self.events: dict[UUID, list[Any]] = {}
        self.applied: dict[UUID, int] = {}  # what the projection applied (default: all)
        self.read: list[list[UUID]] = []
        self.heads_asked = 0

    def save(self, receipt: Receipt) -> Receipt:
        self.events.setdefault(receipt.id, []).extend(receipt.collect_events())
        return receipt

    def heads(self, aggregates: list[UUID]) -> dict[UUID, int]:
        self.heads_asked += 1
        return {a: len(self.events[a]) for a in aggregates if a in self.events}

    def histories(self, aggregates: list[UUID]) -> dict[UUID, list[Any]]:
        self.read.append(list(aggregates))
        return {a: list(self.events[a]) for a in aggregates if a in self.events}

    def horizon(self, aggregate: UUID) -> int:
        return self.applied.get(aggregate, len(self.events.get(aggregate, [])))

    def served(self) -> ServedReceipts:
        return ServedReceipts(self.heads, self.histories, self.horizon)


def _opened(log: Log, n: int) -> Receipt:
    context = {
        "request": f"question {n}",
        "actor": "alice",
        "purpose": "qa",
        "policy_version": "default",
        "route": "long_context",
        "model": {"name": "m", "version": "1"},
        "tools": [],
        "budget": None,
    }
    return log.save(Receipt.open(context, [], [], NOW, None, "app", f"inference-{n}", "fp"))


def _claim(claim_id: str, ordinal: int, source_id: str = "memo") -> dict[str, Any]:
    return {
        "claim_id": claim_id,
        "ordinal": ordinal,
        "status": "verified",
        "client_ref": None,
        "type": "factual",
        "bindings": [{"span_id": f"sp_{claim_id}", "source_id": source_id, "version": 1}],
    }


def _row(receipt: Receipt, **edits: Any) -> dict[str, Any]:
    """The receipt's summary as ``GET /v1/receipts`` lists it from an intact row."""
    first = receipt.expiries[0] if receipt.expiries else None
    row = {
        "receipt_id": receipt.receipt_id,
        "inference_id": receipt.inference_id,
        "opened_by": receipt.opened_by,
        "policy_version": "default",
        "route": "long_context",
        "as_of": NOW,
        "expires_at": None,
        "opened_at": format_time(receipt.created_on),
        "expired_at": None if first is None else first["at"],
        "expiry_reason": None if first is None else first["reason"],
        "actor": "alice",
        "purpose": "qa",
        "request": receipt.context["request"],
    }
    return {**receipt_summary({**row, **edits}, NOW), "position": 1}


def test_a_page_costs_one_read_of_heads_and_one_of_events_and_a_remembered_one_none() -> None:
    log = Log()
    receipts = [_opened(log, n) for n in range(5)]
    served = log.served()

    served.check_receipts([_row(r) for r in receipts], NOW)
    served.check_receipts([_row(r) for r in receipts], NOW)
    receipts[2].commit("atomic", [_claim("c", 0)], [], None, None, None, "app")
    log.save(receipts[2])
    served.check_receipts([_row(r) for r in receipts], NOW)

    assert log.heads_asked == 3
    assert log.read == [[r.id for r in receipts], [receipts[2].id]]


def test_an_edited_row_is_refused_naming_its_table_and_receipt_never_the_edit() -> None:
    log = Log()
    receipt = _opened(log, 1)

    with pytest.raises(LedgerIntegrityError) as refused:
        log.served().check_receipts([_row(receipt, actor="FORGED")], NOW)

    assert refused.value.reason == "read_model_mismatch"
    assert refused.value.position == {"table": "receipts", "receipt_id": receipt.receipt_id}
    assert "actor" in str(refused.value)
    assert "FORGED" not in str(refused.value)


def test_a_row_behind_the_log_is_served_and_the_same_row_once_applied_is_not() -> None:
    log = Log()
    receipt = _opened(log, 1)
    receipt.expire("policy_retired", "policy:default", {}, "cli:admin")
    log.save(receipt)
    as_projected = _row(receipt, expired_at=None, expiry_reason=None)
    log.applied[receipt.id] = 1  # the projection has not applied the expiry yet

    log.served().check_receipts([as_projected], NOW)

    del log.applied[receipt.id]
    with pytest.raises(LedgerIntegrityError, match="status"):
        log.served().check_receipts([as_projected], NOW)


def test_a_claim_listed_under_a_source_it_is_not_bound_to_is_refused() -> None:
    log = Log()
    receipt = _opened(log, 1)
    receipt.commit("atomic", [_claim("clm_a", 0)], [], None, None, None, "app")
    log.save(receipt)
    recorded = format_time(log.events[receipt.id][-1].timestamp)
    listed = {
        "claim_id": "clm_a",
        "receipt_id": receipt.receipt_id,
        "ordinal": 0,
        "status": "verified",
        "committed": True,
        "client_ref": None,
        "type": "factual",
        "recorded_at": recorded,
        "position": 2,
    }
    served = log.served()

    served.check_claims([listed], "memo")
    with pytest.raises(LedgerIntegrityError, match="source_id"):
        served.check_claims([listed], "other")
    with pytest.raises(LedgerIntegrityError, match="committed"):
        served.check_claims([{**listed, "committed": False}])


def test_a_row_of_a_receipt_the_ledger_does_not_hold_is_refused() -> None:
    log = Log()
    receipt = _opened(log, 1)
    row = _row(receipt, receipt_id="rcpt_" + "0" * 32)

    with pytest.raises(LedgerIntegrityError, match="receipt_id"):
        log.served().check_receipts([row], NOW)


def test_a_column_a_read_model_built_before_it_left_null_shows_nothing_and_passes() -> None:
    log = Log()
    receipt = _opened(log, 1)
    old = _row(receipt, actor=None, purpose=None, request=None, opened_by=None)

    log.served().check_receipts([old], NOW)
    with pytest.raises(LedgerIntegrityError, match="actor"):
        log.served().check_receipts([{**old, "actor": ""}], NOW)
