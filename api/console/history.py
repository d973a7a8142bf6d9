"""When each claim of a receipt was committed, refused and repaired, and why a refused claim
was refused: read from the receipt's own verified events.

The receipt document lists committed claims in commit order (by ordinal) and refused
(quarantined) claims apart, but says neither when nor, for a claim whose own checks held,
why it was refused. An atomic request commits all its claims or none: a claim the gate
verified is refused with the others when another claim of the same request was rejected,
or when the request's rendered answer failed its check. A refused claim that a later repair
made acceptable is committed then, and keeps its place among the committed claims.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ledger.eventlog.clock import format_time
from ledger.receipts.receipt import Receipt


@dataclass
class ClaimHistory:
    """What the events say of one claim."""

    committed_at: str | None = None
    """When it was committed (with its request, or by the repair that committed it)."""
    refused_at: str | None = None
    refusal: str | None = None
    """``rejected`` (its own checks), ``batch`` (another claim of its atomic request was
    rejected) or ``render`` (its atomic request's rendered answer failed); None if never
    refused."""
    committed_by_repair: bool = False
    repaired_at: list[str] = field(default_factory=list)
    """When each entry of the claim's ``repairs`` was recorded, in the same order."""


def _refusal(claim: dict[str, Any], event: Any) -> str:
    if claim["status"] == "rejected":
        return "rejected"
    if any(other["status"] == "rejected" for other in event.claims):
        return "batch"
    render = event.render_check or {}
    return "render" if render.get("outcome") == "fail" else "batch"


def claim_histories(events: Iterable[Any]) -> dict[str, ClaimHistory]:
    """Each claim's history, by claim id, from a receipt's events in order."""
    found: dict[str, ClaimHistory] = {}
    for event in events:
        at = format_time(event.timestamp)
        if isinstance(event, (Receipt.ClaimsCommitted, Receipt.ClaimsRejected)):
            committed = isinstance(event, Receipt.ClaimsCommitted)
            for claim in event.claims:
                history = found.setdefault(claim["claim_id"], ClaimHistory())
                if committed:
                    history.committed_at = at
                else:
                    history.refused_at = at
                    history.refusal = _refusal(claim, event)
                history.repaired_at.extend(at for _ in claim.get("repairs", []))
        elif isinstance(event, (Receipt.ClaimRepaired, Receipt.RepairFailed)):
            history = found.setdefault(event.claim_id, ClaimHistory())
            history.repaired_at.append(at)
            if (
                isinstance(event, Receipt.ClaimRepaired)
                and event.status != "rejected"
                and history.committed_at is None
            ):
                history.committed_at = at
                history.committed_by_repair = True
    return found
