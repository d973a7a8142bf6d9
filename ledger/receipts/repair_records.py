"""Which binding a repair replaces, and how a repair attempt is recorded as JSON."""

from __future__ import annotations

from typing import Any

from ledger.attribution.repair import RepairOutcome
from ledger.errors import InvalidInput


def binding_to_repair(claim: dict[str, Any]) -> int:
    """The binding a repair replaces: the first whose own checks failed, else the first
    supporting binding, else the first."""
    failed = {
        check.get("span_id")
        for check in claim.get("checks", [])
        if check["outcome"] == "fail" and check.get("span_id")
    }
    bindings = claim["bindings"]
    if not bindings:
        raise InvalidInput("bindings", "non-empty", "the claim has no binding to repair")
    for index, binding in enumerate(bindings):
        if binding["span_id"] in failed:
            return index
    for index, binding in enumerate(bindings):
        if binding["role"] != "context":
            return index
    return 0


def repair_record(outcome: RepairOutcome, index: int, previous: dict[str, Any]) -> dict[str, Any]:
    """The JSON record of a repair attempt (stored in events, shown on claims)."""
    return {
        "outcome": "repaired" if outcome.repaired else "failed",
        "binding_index": index,
        "previous_binding": previous,
        "new_binding": None,
        "ranker": outcome.ranker,
        "ranker_version": outcome.ranker_version,
        "rank": outcome.rank,
        "score": outcome.score,
        "attempts": [
            {"span_id": a.span_id, "rank": a.rank, "score": a.score, "status": a.status}
            for a in outcome.attempts
        ],
    }


def stored_repair(event: Any, repaired: bool) -> dict[str, Any]:
    """The repair record a ``ClaimRepaired`` (``repaired``) or ``RepairFailed`` event adds to
    its claim as the receipt folds it."""
    record = {
        "outcome": "repaired" if repaired else "failed",
        "binding_index": event.binding_index,
        "ranker": event.ranker,
        "ranker_version": event.ranker_version,
        "attempts": event.attempts,
    }
    if repaired:
        record.update(
            previous_binding=event.previous_binding,
            new_binding=event.new_binding,
            rank=event.rank,
            score=event.score,
        )
    return record
