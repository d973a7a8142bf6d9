"""The entitlement gate at receipt opening: who the principal is, and what it may see.

Runs before the pool is sealed. The principal is the request's (or, without one, a principal
with only the receipt's purpose), bounded by its API key's pins. Every evidence span and every
candidate span is decided by the governing policy (:mod:`ledger.access.policy_desk`) against
its source's access attributes as the *verified* source events hold them
(:class:`~ledger.registry.evidence.ResolvedSpan` ``access``), never a read-model row.

- A span of a source the API key's pins let it not see at all (``ledger/receipts/sight.py``)
  is, to that key, a span that does not exist: the same 422 ``exists`` as an unknown id.
- An evidence span the principal may not see refuses the opening (:class:`EntitlementDenied`,
  403): its error names only the request's own field and the safe code.
- A denied candidate becomes an exclusion with its safe code, once per code (no count, id,
  title or attribute), and the protected decision goes to the receipt's ``access decided``
  event, which only ``audit:read`` reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ledger.access.attributes import Pins, Principal
from ledger.access.policy import decide, pins_may_see
from ledger.access.policy_desk import GoverningPolicy
from ledger.errors import EntitlementDenied, InvalidInput, PrincipalNotPinned
from ledger.receipts.validation import ReceiptRequest
from ledger.registry.evidence import ResolvedSpan, SpanResolver, pick_version
from ledger.router import route

EXCLUSION_REF = "entitlement"
"""The ``ref`` of an exclusion the gate records (the code says why; nothing says what)."""


def bounded_principal(principal: Principal, pins: Pins | None) -> Principal:
    """``principal`` if its API key's pins allow it; otherwise 403 naming each field."""
    if pins is not None:
        errors = pins.excess(principal)
        if errors:
            raise PrincipalNotPinned(
                "the principal claims attributes this API key does not pin", errors
            )
    return principal


def receipt_principal(context: dict[str, Any]) -> Principal:
    """The principal a receipt was opened for (its recorded one, or its purpose alone)."""
    stored = context.get("principal")
    return Principal.from_json(stored) if stored else Principal(purpose=context["purpose"])


def pins_may_read_receipt(context: dict[str, Any], pins: Pins | None) -> bool:
    """Whether a key with ``pins`` could have claimed the principal a receipt was opened for:
    only then may it read the receipt, its claims and its packet (they quote its evidence)."""
    return pins is None or not pins.excess(receipt_principal(context))


@dataclass
class GateRecord:
    """What the gate decided: protected decisions, safe exclusions and refusals."""

    governing: GoverningPolicy
    principal: Principal
    pins: Pins | None = None
    """The API key's pins: a span of a source they let the key not see is hidden from it."""
    decisions: list[dict[str, Any]] = field(default_factory=list)
    exclusion_codes: set[str] = field(default_factory=set)
    refusals: list[dict[str, str]] = field(default_factory=list)
    restricted: bool = False
    """Whether any span decided belongs to a source with access attributes."""

    def hidden(self, span: ResolvedSpan) -> bool:
        """Whether the key's pins let it not see the span's source at all: to the key, the
        span does not exist (decided before anything is recorded of it)."""
        return self.pins is not None and not pins_may_see(
            self.pins, span.access, self.governing.policy
        )

    def admit(self, ref: str, span: ResolvedSpan, evidence: bool) -> bool:
        """Decide one span; record the decision; True when the principal may see it."""
        decision = decide(self.governing.policy, self.principal, span.access)
        self.restricted = self.restricted or not span.access.unrestricted
        self.decisions.append(
            {
                "ref": ref,
                "span_id": span.span_id,
                "source_id": span.source_id,
                "version": span.version,
                **decision.to_json(),
            }
        )
        if not decision.allowed:
            code = decision.code or "entitlement-denied"
            if evidence:
                self.refusals.append(
                    {
                        "field": ref,
                        "rule": code,
                        "message": "the principal may not see this span",
                    }
                )
            else:
                self.exclusion_codes.add(code)
        return decision.allowed

    def admit_candidates(
        self, resolver: SpanResolver, span_ids: list[str], as_of: str, errors: list[dict[str, str]]
    ) -> None:
        """Decide every candidate span (denied ones become safe exclusions); an unknown one is
        an input error."""
        resolved = resolver.resolve(span_ids) if span_ids else {}
        for index, span_id in enumerate(span_ids):
            found = resolved.get(span_id)
            if not found or self.hidden(found[0]):
                errors.append(
                    {
                        "field": f"candidates[{index}]",
                        "rule": "exists",
                        "message": f"span {span_id} does not exist",
                    }
                )
                continue
            self.admit(f"candidates[{index}]", pick_version(found, as_of), False)

    def refuse_if_denied(self) -> None:
        """Refuse the opening when any evidence span was denied."""
        if self.refusals:
            raise EntitlementDenied(
                f"the principal may not see {len(self.refusals)} of the evidence spans; "
                "ask for authorised evidence or escalate",
                self.refusals,
            )

    def exclusions(self) -> list[dict[str, str]]:
        """The safe exclusions: one per distinct code, sorted."""
        return [{"ref": EXCLUSION_REF, "reason_code": c} for c in sorted(self.exclusion_codes)]

    def entitlement(self) -> str:
        """``allowed`` when nothing was denied, ``denied`` when nothing was allowed (and there
        was something to decide), else ``partial``: what the router's input must not exceed."""
        allowed = sum(1 for d in self.decisions if d["allowed"])
        if allowed == len(self.decisions):
            return "allowed"
        return "denied" if allowed == 0 else "partial"


_ENTITLEMENT_ORDER = {"allowed": 0, "partial": 1, "denied": 2}


def decide_route(request: ReceiptRequest, gate: GateRecord) -> dict[str, Any]:
    """The router's decision for a receipt's ``routing`` (signed with the opening).

    The routing input may not claim a better entitlement than the gate found (a denied
    candidate makes it at least ``partial``), and a declared ``route`` must be the outcome."""
    assert request.routing is not None
    found = gate.entitlement()
    if _ENTITLEMENT_ORDER[request.routing.entitlement] < _ENTITLEMENT_ORDER[found]:
        raise InvalidInput(
            "routing.entitlement",
            "matches-access-decision",
            f"routing.entitlement is {request.routing.entitlement!r} but the entitlement gate "
            f"found {found!r}",
        )
    decision = route(request.routing).to_json()
    if request.route and request.route != decision["outcome"]:
        raise InvalidInput(
            "route",
            "matches-router",
            f"route {request.route!r} is not the router's outcome {decision['outcome']!r} "
            f"(row {decision['row']}); omit route or send the outcome",
        )
    return decision
