"""When each claim was committed, refused and repaired, read from a receipt's own events."""

from __future__ import annotations

from typing import Any

from api.console.history import claim_histories
from ledger.receipts.document import receipt_document
from ledger.receipts.receipt import Receipt
from projections.console_read_desk import needs_history


def _claim(claim_id: str, ordinal: int, status: str, **extra: Any) -> dict[str, Any]:
    return {
        "claim_id": claim_id,
        "ordinal": ordinal,
        "status": status,
        "bindings": [{"span_id": f"sp_{claim_id}"}],
        **extra,
    }


def _receipt() -> Receipt:
    context = {
        "request": "q",
        "actor": "a",
        "purpose": "p",
        "policy_version": "1",
        "route": "long_context",
        "model": {"name": "m", "version": "1"},
        "tools": [],
        "budget": None,
    }
    return Receipt.open(context, [], [], "2026-01-01T00:00:00.000000Z", None, "app", "inf", "fp")


def _repair(receipt: Receipt, claim_id: str, status: str) -> None:
    receipt.trigger_event(
        Receipt.ClaimRepaired,
        claim_id=claim_id,
        binding_index=0,
        previous_binding={"span_id": f"sp_{claim_id}"},
        new_binding={"span_id": "sp_new"},
        ranker="bm25",
        ranker_version="1",
        rank=1,
        score=1.0,
        attempts=[],
        status=status,
        checks=[],
        actor="app",
    )


def test_a_verified_claim_refused_with_a_rejected_one_was_refused_for_the_batch() -> None:
    receipt = _receipt()
    receipt.commit("atomic", [_claim("a", 0, "verified")], [], None, None, None, "app")
    batch = [_claim("b", 1, "verified"), _claim("c", 2, "rejected")]
    receipt.commit("atomic", [], batch, None, None, None, "app")
    found = claim_histories(receipt.collect_events())
    assert found["a"].committed_at is not None
    assert found["a"].refusal is None
    assert (found["b"].refusal, found["c"].refusal) == ("batch", "rejected")
    assert found["b"].committed_at is None
    assert found["b"].refused_at is not None


def test_an_atomic_request_refused_for_its_rendered_answer_says_so() -> None:
    receipt = _receipt()
    render = {"check": "render", "outcome": "fail", "reason": "marker_unbound"}
    receipt.commit("atomic", [], [_claim("a", 0, "verified")], "[sp_x]", render, None, "app")
    assert claim_histories(receipt.collect_events())["a"].refusal == "render"


def test_a_refused_claim_a_repair_made_acceptable_is_committed_by_the_repair() -> None:
    receipt = _receipt()
    receipt.commit(
        "independent",
        [_claim("b", 1, "verified")],
        [_claim("a", 0, "rejected")],
        None,
        None,
        None,
        "app",
    )
    _repair(receipt, "a", "verified")
    events = receipt.collect_events()
    found = claim_histories(events)
    assert found["a"].committed_by_repair
    assert found["a"].committed_at == found["a"].repaired_at[0]
    assert found["a"].committed_at > found["b"].committed_at  # type: ignore[operator]
    assert [c["claim_id"] for c in receipt.claims] == ["a", "b"]  # commit order: by ordinal


def test_a_repair_at_commit_time_is_dated_with_its_commit() -> None:
    receipt = _receipt()
    repaired = _claim("a", 0, "verified", repairs=[{"outcome": "repaired", "binding_index": 0}])
    receipt.commit("atomic", [repaired], [], None, None, None, "app")
    found = claim_histories(receipt.collect_events())["a"]
    assert found.repaired_at == [found.committed_at]
    assert not found.committed_by_repair


def test_only_a_receipt_with_a_refused_or_repaired_claim_needs_its_events_read() -> None:
    receipt = _receipt()
    receipt.commit("atomic", [_claim("a", 0, "verified")], [], None, None, None, "app")
    assert not needs_history(receipt_document(receipt))
    _repair(receipt, "a", "verified")
    assert needs_history(receipt_document(receipt))
