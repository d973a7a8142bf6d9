"""A receipt prepared for opening, not yet committed: the principal bounded by the key's
pins, ``as_of`` and ``expires_at`` fixed (from the retrieval when the request names one), the
evidence pool sealed, the entitlement gate's decisions taken and recorded, the route decided,
the context packet rendered, and the record of the ``Idempotency-Key``."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from ledger.access.attributes import Pins, Principal
from ledger.access.policy_desk import PolicyDesk
from ledger.errors import InvalidInput
from ledger.eventlog.port import EventLog
from ledger.memory.memory_desk import MemoryDesk
from ledger.receipts.component_desk import ComponentDesk
from ledger.receipts.entitlement import GateRecord, bounded_principal, decide_route
from ledger.receipts.memory_pool import seal_memory
from ledger.receipts.open_keys import OpenKey
from ledger.receipts.opening import PoolSealer, opening_time
from ledger.receipts.packet import render_packet
from ledger.receipts.receipt import Receipt
from ledger.receipts.validation import ReceiptRequest
from ledger.registry.evidence import ResolvedSpan, SpanResolver
from ledger.retrieval.retrieval_desk import retrieval_for_receipt


@dataclass(frozen=True)
class OpeningParts:
    """What preparing a receipt reads: the log (a named retrieval), the span resolver, the
    policies, the components in force (a retired model or tool refuses the opening), the
    pool sealer of the receipt desk and the memory desk."""

    ledger: EventLog
    resolver: SpanResolver
    policies: PolicyDesk
    components: ComponentDesk
    sealer: PoolSealer
    memory: MemoryDesk | None
    """Memory items a receipt's pool may seal (None: every memory id is unknown)."""


def prepare_receipt(
    parts: OpeningParts,
    request: ReceiptRequest,
    actor: str,
    key: str | None,
    fingerprint: str,
    pins: Pins | None,
) -> tuple[Receipt, OpenKey | None]:
    """The receipt to open (its pool sealed, the entitlement gate's decisions recorded)
    and the key's record, not yet committed."""
    errors: list[dict[str, str]] = []
    principal = bounded_principal(request.principal or Principal(purpose=request.purpose), pins)
    as_of = opening_time("as_of", request.as_of, datetime.now(UTC))
    assert as_of is not None
    expires_at = opening_time("expires_at", request.expires_at, None)
    if expires_at is not None and expires_at <= as_of:
        errors.append(
            {
                "field": "expires_at",
                "rule": "after-as-of",
                "message": "expires_at must be after as_of",
            }
        )
    gate = GateRecord(parts.policies.for_request(request.policy_version), principal, pins)
    sealed: list[ResolvedSpan] = []
    retrieval = None
    if request.retrieval_id is not None and not errors:
        retrieval = retrieval_for_receipt(parts.ledger, request.retrieval_id, actor)
        if request.as_of is not None and as_of != retrieval.as_of:
            errors.append(
                {
                    "field": "as_of",
                    "rule": "retrieval-as-of",
                    "message": f"as_of must be the retrieval's ({retrieval.as_of}) or absent",
                }
            )
        as_of = retrieval.as_of
        if expires_at is not None and expires_at <= as_of:
            errors.append(
                {
                    "field": "expires_at",
                    "rule": "after-as-of",
                    "message": "expires_at must be after the retrieval's as_of",
                }
            )
        pool = parts.sealer.seal_retrieved(retrieval.results, as_of, errors, gate, sealed)
    else:
        pool = parts.sealer.seal(request.evidence, as_of, errors, gate=gate, sealed=sealed)
    gate.admit_candidates(parts.resolver, request.candidates, as_of, errors)
    memory = seal_memory(parts.memory, request.memory, as_of, gate, errors)
    if errors:
        raise InvalidInput.many(errors)
    gate.refuse_if_denied()
    decision = None if request.routing is None else decide_route(request, gate)
    context = {
        "request": request.request,
        "actor": request.actor,
        "purpose": request.purpose,
        "policy_version": gate.governing.policy_version,
        "route": request.route if decision is None else decision["outcome"],
        "model": request.model,
        "tools": request.tools,
        "budget": request.budget,
    }
    if retrieval is not None:
        context["retrieval"] = retrieval.summary()
    if request.principal is not None:
        context["principal"] = principal.to_json()
    if decision is not None:
        context["route_decision"] = decision
    if request.context_assembly is not None:
        context["context_assembly"] = dict(request.context_assembly)
    parts.components.refuse_opening(context)
    if memory:
        context["memory"] = [item.entry() for item in memory]
    context["packet"] = render_packet(
        sealed, request.request, memory=[(m.memory_id, m.version) for m in memory]
    ).record()
    excluded = [*request.excluded, *gate.exclusions()]
    inference_id = request.inference_id or f"inf_{uuid.uuid4().hex}"
    receipt = Receipt.open(
        context, pool, excluded, as_of, expires_at, actor, inference_id, fingerprint
    )
    if request.principal is not None or request.candidates or gate.restricted:
        # A request naming no principal over open sources has nothing to protect or
        # explain: its receipt's events are what they were before the gate.
        receipt.record_access(
            gate.governing.policy_version,
            gate.governing.rules_from,
            principal.to_json(),
            gate.decisions,
            actor,
        )
    record = None
    if key is not None:
        record = OpenKey.record(key, receipt.receipt_id, fingerprint, actor)
    return receipt, record
