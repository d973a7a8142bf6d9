"""A receipt's outcome: the decision taken on its answer, the reviewer, the downstream actions.

``POST /v1/receipts/{id}/outcome`` records a signed ``provledger.receipt.outcome_recorded``
event. An outcome may be **amended**: a later one with a different body is a new event, the
receipt shows the latest as its ``outcome`` and keeps every one in ``outcomes``. The same body
as the latest outcome is answered again and writes nothing (a retry). The receipt's
**actions** are every action any of its outcomes named, in the order first recorded: an action
already taken does not disappear because a decision was amended, so an operator following a
correction finds each one to replay, remedy or document. An action id therefore names one
action for good: a later outcome that gives it another kind or target is 409 (field
``actions[i].action_id``, rule ``same-action``).

An outcome may be recorded on an expired receipt (the decision may have been taken before the
correction reached it, and its actions are what the operator needs); the answer carries the
receipt's status, and each outcome its time, so whether it came after the expiry is plain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ledger.errors import (
    ConflictingRequest,
    InvalidInput,
)
from ledger.receipts.document import receipt_status
from ledger.receipts.receipt import Receipt

MAX_DECISION = 2000
MAX_REVIEWER = 200
MAX_TARGET = 500
MAX_ACTIONS = 100
ACTION_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
ACTION_KIND = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
ATTEMPTS = 10


@dataclass(frozen=True)
class Action:
    """One downstream action: its id (the caller's), its kind (a code) and its target."""

    action_id: str
    kind: str
    target: str

    def to_json(self) -> dict[str, str]:
        """The action as the event records it."""
        return {"action_id": self.action_id, "kind": self.kind, "target": self.target}


@dataclass(frozen=True)
class OutcomeRequest:
    """``POST /v1/receipts/{id}/outcome`` after schema validation."""

    decision: str
    actions: tuple[Action, ...] = ()
    reviewer: str | None = None


def _text(errors: list[dict[str, str]], field: str, value: str, limit: int) -> None:
    """Non-empty, at most ``limit`` characters, no lone surrogate, no control character."""
    if not value.strip():
        errors.append({"field": field, "rule": "non-empty", "message": f"{field} is empty"})
    elif len(value) > limit:
        errors.append(
            {"field": field, "rule": "max-length", "message": f"{field} is at most {limit} chars"}
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        errors.append({"field": field, "rule": "utf-8", "message": f"{field} has a lone surrogate"})


def check_outcome(request: OutcomeRequest) -> None:
    """Refuse an outcome that breaks a rule, naming every field and rule (422)."""
    errors: list[dict[str, str]] = []
    _text(errors, "decision", request.decision, MAX_DECISION)
    if request.reviewer is not None:
        _text(errors, "reviewer", request.reviewer, MAX_REVIEWER)
    if len(request.actions) > MAX_ACTIONS:
        errors.append(
            {
                "field": "actions",
                "rule": "max-items",
                "message": f"at most {MAX_ACTIONS} actions",
            }
        )
    seen: set[str] = set()
    for index, action in enumerate(request.actions):
        name = f"actions[{index}]"
        if not ACTION_ID.match(action.action_id):
            errors.append(
                {
                    "field": f"{name}.action_id",
                    "rule": "pattern",
                    "message": f"action_id must match {ACTION_ID.pattern}",
                }
            )
        elif action.action_id in seen:
            errors.append(
                {
                    "field": f"{name}.action_id",
                    "rule": "unique",
                    "message": f"action_id {action.action_id!r} is given twice",
                }
            )
        seen.add(action.action_id)
        if not ACTION_KIND.match(action.kind):
            errors.append(
                {
                    "field": f"{name}.kind",
                    "rule": "pattern",
                    "message": "kind is a code: [a-z0-9_.-], 1-64 chars, starting [a-z0-9]",
                }
            )
        _text(errors, f"{name}.target", action.target, MAX_TARGET)
    if errors:
        raise InvalidInput.many(errors)


def downstream(receipt: Receipt) -> dict[str, Any]:
    """What hangs off a receipt: its latest outcome (decision, reviewer, who recorded it and
    when; null when none was recorded) and every downstream action."""
    latest = receipt.outcome
    return {
        "outcome": None
        if latest is None
        else {key: latest[key] for key in ("decision", "reviewer", "recorded_by", "at")},
        "actions": receipt.actions,
    }


def outcome_view(receipt: Receipt) -> dict[str, Any]:
    """The answer to an outcome: the receipt's status, latest outcome, every outcome and
    every action."""
    return {
        "receipt_id": receipt.receipt_id,
        "status": receipt_status(receipt),
        "outcome": receipt.outcome,
        "outcomes": receipt.outcomes,
        "actions": receipt.actions,
    }


def same_as_latest(receipt: Receipt, request: OutcomeRequest) -> bool:
    if not receipt.outcomes:
        return False
    latest = receipt.outcomes[-1]
    recorded = (latest["decision"], latest["reviewer"], latest["actions"])
    return bool(
        recorded == (request.decision, request.reviewer, [a.to_json() for a in request.actions])
    )


def check_same_actions(receipt: Receipt, request: OutcomeRequest) -> None:
    known = {a["action_id"]: a for a in receipt.actions}
    for index, action in enumerate(request.actions):
        before = known.get(action.action_id)
        if before is not None and (before["kind"], before["target"]) != (
            action.kind,
            action.target,
        ):
            raise ConflictingRequest(
                f"actions[{index}].action_id",
                "same-action",
                f"action {action.action_id!r} was recorded on this receipt as "
                f"{before['kind']} on {before['target']!r}; give a new action a new id",
            )
