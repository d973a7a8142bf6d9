"""What a commit checks before the gate judges: the receipt still stands, every binding is to
a span of its sealed pool, every bound span is one the receipt's principal may see now, and
the gate's facts of each span, read from verified events."""

from __future__ import annotations

from ledger.access.policy import AccessPolicy, decide
from ledger.errors import EntitlementDenied, InvalidInput, ReceiptExpired
from ledger.gate import SpanFacts
from ledger.receipts.document import receipt_status, standing_text
from ledger.receipts.entitlement import receipt_principal
from ledger.receipts.receipt import Receipt
from ledger.receipts.validation import CommitRequest
from ledger.registry.evidence import ResolvedSpan, SpanResolver, pick_version


def check_open(receipt: Receipt) -> None:
    """409 ``receipt-expired`` for a receipt that no longer stands (its expiry named)."""
    if receipt_status(receipt)["status"] == "expired":
        raise ReceiptExpired(
            f"{standing_text(receipt)}; it takes no more claims: open a new receipt with "
            "current evidence"
        )


def check_in_pool(receipt: Receipt, request: CommitRequest) -> None:
    """422 (``in-pool``) for every binding to a span outside the receipt's sealed pool,
    before any check reads a span: a span outside the pool is judged by nothing."""
    errors = {
        request.binding_field(index, b_index): {
            "field": request.binding_field(index, b_index),
            "rule": "in-pool",
            "message": f"span {binding.span_id} is not in the receipt's sealed evidence pool",
        }
        for index, claim in enumerate(request.claims)
        for b_index, binding in enumerate(claim.bindings)
        if binding.span_id not in receipt.pool_index
    }
    if errors:
        raise InvalidInput.many(list(errors.values()))


def refuse_unseen(request: CommitRequest, unseen: dict[str, str]) -> None:
    """403 ``entitlement-denied`` before any check runs when a binding names a pool span the
    receipt's principal may not see now (the errors name the binding and the code only)."""
    found = {
        request.binding_field(index, b_index): {
            "field": request.binding_field(index, b_index),
            "rule": unseen[binding.span_id],
            "message": "the receipt's principal may not see this span",
        }
        for index, claim in enumerate(request.claims)
        for b_index, binding in enumerate(claim.bindings)
        if binding.span_id in unseen
    }
    refusals = list(found.values())  # one per field: a transformation's inputs share theirs
    if refusals:
        raise EntitlementDenied(
            f"the receipt's principal may not see {len(refusals)} of the bound spans now",
            refusals,
        )


def span_facts(
    resolver: SpanResolver, policy: AccessPolicy, receipt: Receipt, span_ids: set[str]
) -> tuple[dict[str, SpanFacts], dict[str, str]]:
    """The gate's facts of ``span_ids`` from verified events, and the safe code of each
    one the receipt's principal may not see now under ``policy`` (the one in force)."""
    resolved = resolver.resolve(span_ids) if span_ids else {}
    principal = receipt_principal(receipt.context)
    unseen: dict[str, str] = {}
    facts: dict[str, SpanFacts] = {}
    for span_id in span_ids:
        candidates = resolved.get(span_id, ())
        entry = receipt.pool_index.get(span_id)
        span: ResolvedSpan | None = None
        if entry is not None:
            span = next((c for c in candidates if c.version == entry["version"]), None)
        elif candidates:
            span = pick_version(candidates, receipt.as_of)
        if span is None:
            facts[span_id] = SpanFacts(span_id, False, entry is not None, False, False, "")
            continue
        decision = decide(policy, principal, span.access)
        if not decision.allowed:
            unseen[span_id] = decision.code or "entitlement-denied"
        intact = entry is None or span.text_sha256 == entry["text_sha256"]
        facts[span_id] = SpanFacts(
            span_id=span_id,
            exists=intact,
            in_pool=entry is not None,
            in_force=span.in_force_at(receipt.as_of),
            withdrawn=span.withdrawn_at is not None,
            text=span.text if intact else "",
            envelope=span.envelope,
            version_detail=(
                f"{span.source_id} version {span.version}, effective "
                f"{span.effective_from} to {span.effective_to or 'now'}"
            ),
        )
    return facts, unseen
