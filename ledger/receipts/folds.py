"""What a receipt event adds to the receipt as the receipt folds it (the aggregate's state is
the fold of its events: ``ledger/receipts/receipt.py``), and the questions asked of that state."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from ledger.eventlog.clock import format_time


def expiry_entry(event: Any) -> dict[str, Any]:
    """An ``Expired`` event as the receipt's ``expiries`` keep it."""
    return {
        "reason": event.reason,
        "cause": event.cause,
        "detail": event.detail,
        "at": format_time(event.timestamp),
    }


def outcome_entry(event: Any) -> dict[str, Any]:
    """An ``OutcomeRecorded`` event as the receipt's ``outcomes`` keep it."""
    return {
        "decision": event.decision,
        "reviewer": event.reviewer,
        "actions": event.actions,
        "recorded_by": event.actor,
        "at": format_time(event.timestamp),
    }


def downstream_actions(outcomes: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """Every downstream action the outcomes named, in the order first recorded, each with when
    it was first recorded: an amended decision does not undo an action taken."""
    actions: dict[str, dict[str, str]] = {}
    for outcome in outcomes:
        for action in outcome["actions"]:
            actions.setdefault(action["action_id"], {**action, "recorded_at": outcome["at"]})
    return list(actions.values())


def ordinal(claim: dict[str, Any]) -> int:
    """A claim's place in commit order (the key committed claims are kept sorted by)."""
    value: int = claim["ordinal"]
    return value


def recommit(claims: list[dict[str, Any]], rejected: list[dict[str, Any]], claim_id: str) -> None:
    """Move the quarantined claim ``claim_id``, once a repair made it acceptable, from
    ``rejected`` into ``claims`` at its place in commit order (its ordinal)."""
    for index, claim in enumerate(rejected):
        if claim["claim_id"] == claim_id and claim["status"] != "rejected":
            moved = rejected.pop(index)
            claims.insert(bisect.bisect(claims, moved["ordinal"], key=ordinal), moved)
            return


def entailment_entry(event: Any) -> dict[str, str]:
    """An ``EntailmentJudged`` event as its claim's ``entailment`` list keeps it."""
    return {"verdict": event.verdict, "verifier": event.verifier, "model": event.model}


def judged_by(claim: dict[str, Any], verifier: str, model: str) -> bool:
    """Whether the claim already has an entailment verdict of this verifier and model."""
    return any(
        e["verifier"] == verifier and e["model"] == model for e in claim.get("entailment", [])
    )


def access_entry(event: Any) -> dict[str, Any]:
    """The entitlement gate's record at opening, as ``Receipt.access_record`` keeps it."""
    return {
        "policy_version": event.policy_version,
        "rules_from": event.rules_from,
        "principal": event.principal,
        "decisions": event.decisions,
        "at": format_time(event.timestamp),
    }


def add_usage(usage: list[dict[str, Any]], keys: dict[str, dict[str, Any]], event: Any) -> None:
    """Fold a ``UsageRecorded``: its record onto ``usage`` and, under an ``Idempotency-Key``
    first used here, the record that key answers onto ``keys``."""
    record = {
        **event.usage,
        "prefix_sha256": event.prefix_sha256,
        "at": format_time(event.timestamp),
    }
    usage.append(record)
    if event.idempotency is not None:
        keys.setdefault(event.idempotency["key"], {**event.idempotency, "record": record})
