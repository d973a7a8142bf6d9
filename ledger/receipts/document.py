"""The receipt as a document: what a DSSE envelope carries and what an auditor checks.

The payload is the RFC 8785 canonical JSON of :func:`receipt_document`. Its ``receipt_id``
is derived from its own fields, so a verifier can recompute it: from ``opened_by`` and
``inference_id`` (:func:`ledger.receipts.receipt.receipt_id_for_inference`), or, for a receipt
opened before receipts were per inference (``inference_id`` null), from its opening content
(:func:`ledger.receipts.receipt.receipt_id_for`: an edited context or pool no longer matches).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from ledger.crypto.canonical import canonical_json
from ledger.eventlog.clock import format_time
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_ids import opening_content, receipt_id_for, receipt_id_for_inference

FORMAT = "provledger.receipt/v1"
OPTIONAL_CONTEXT = (
    "principal",
    "route_decision",
    "packet",
    "retrieval",
    "context_assembly",
    "memory",
)
"""Context fields a receipt carries only when its opening gave them (a receipt opened without
them keeps the document, and the id derivation, it always had)."""


def receipt_status(receipt: Receipt, now: datetime | None = None) -> dict[str, Any]:
    """``open`` or ``expired``, with the first expiry's reason and every expiry recorded.

    Expiry is an event (:class:`~ledger.receipts.receipt.Receipt.Expired`). Between ``expires_at``
    and the expiry sweep that records it (within a second in a running service), the status
    already reads ``expired`` with reason ``expires_at_passed``.
    """
    if receipt.expiries:
        first = receipt.expiries[0]
        return {
            "status": "expired",
            "reason": first["reason"],
            "at": first["at"],
            "expiries": receipt.expiries,
        }
    moment = format_time(now or datetime.now(UTC))
    if receipt.expires_at is not None and receipt.expires_at <= moment:
        return {
            "status": "expired",
            "reason": "expires_at_passed",
            "at": receipt.expires_at,
            "expiries": [],
        }
    return {"status": "open", "reason": None, "at": None, "expiries": []}


def expiry_text(reason: str, detail: dict[str, Any]) -> str:
    """An expiry in words: what changed (``source_superseded: version 1 of source 'memo' was
    superseded by version 2``)."""
    words = {
        "source_superseded": f"version {detail.get('version')} of source "
        f"{detail.get('source_id')!r} was superseded by version {detail.get('superseded_by')}",
        "source_withdrawn": f"source {detail.get('source_id')!r} was withdrawn",
        "source_access_changed": f"the access attributes of source {detail.get('source_id')!r} "
        "changed",
        "policy_retired": f"policy {detail.get('policy_version')!r} was retired",
        "memory_corrected": f"version {detail.get('version')} of memory item "
        f"{detail.get('memory_id')!r} was corrected by version {detail.get('corrected_by')}",
        "memory_revoked": f"memory item {detail.get('memory_id')!r} was revoked",
        "memory_expired": f"memory item {detail.get('memory_id')!r} (version "
        f"{detail.get('version')}) expired at {detail.get('expires_at')}",
        "expires_at_passed": f"its expires_at ({detail.get('expires_at')}) passed",
        "api_key_revoked": f"the API key that opened it ({detail.get('opened_by')}) was revoked",
        "model_retired": f"model {detail.get('name')!r} version {detail.get('version')!r} "
        "was retired",
        "tool_retired": f"tool {detail.get('name')!r} version {detail.get('version')!r} was "
        "retired"
        + (
            " (the receipt recorded the tool without a version)"
            if detail.get("recorded") == detail.get("name")
            else ""
        ),
        "context_assembly_changed": f"version {detail.get('in_force')!r} of context assembly "
        f"{detail.get('name')!r} was declared in force; the receipt recorded version "
        f"{detail.get('version')!r}",
    }
    what = words.get(reason)
    if reason == "source_superseded" and detail.get("superseded_by") is None:
        what = (
            f"claims were committed on version {detail.get('version')} of source "
            f"{detail.get('source_id')!r}, already superseded"
        )
    return f"{reason}: {what}" if what else reason


def standing_text(receipt: Receipt, now: datetime | None = None) -> str:
    """The receipt's standing in words: open, or expired with when and why."""
    status = receipt_status(receipt, now)
    if status["status"] != "expired":
        return f"receipt {receipt.receipt_id} is open"
    first = status["expiries"][0] if status["expiries"] else None
    detail = first["detail"] if first else {"expires_at": receipt.expires_at}
    return (
        f"receipt {receipt.receipt_id} EXPIRED at {status['at']} "
        f"({expiry_text(status['reason'], detail)})"
    )


def receipt_document(receipt: Receipt, now: datetime | None = None) -> dict[str, Any]:
    """Everything the receipt seals and records, as one JSON object."""
    context = receipt.context
    document = {
        "format": FORMAT,
        "receipt_id": receipt.receipt_id,
        "inference_id": receipt.inference_id,
        "opened_by": receipt.opened_by,
        "request": context["request"],
        "actor": context["actor"],
        "purpose": context["purpose"],
        "policy_version": context["policy_version"],
        "route": context["route"],
        "model": context["model"],
        "tools": context["tools"],
        "budget": context["budget"],
        **{key: context[key] for key in OPTIONAL_CONTEXT if key in context},
        "as_of": receipt.as_of,
        "expires_at": receipt.expires_at,
        "opened_at": format_time(receipt.created_on),
        "pool": receipt.pool,
        "excluded": receipt.excluded,
        "claims": receipt.claims,
        "quarantined": receipt.rejected,
        "status": receipt_status(receipt, now),
    }
    if "retrieval" in context:  # opened from a recorded retrieval (docs/retrieval.md)
        document["retrieval"] = context["retrieval"]
    if receipt.transformations:  # a receipt without any keeps the document it always had
        document["transformations"] = receipt.transformations
    if receipt.outcomes:  # recorded after opening (ledger/receipts/outcomes.py)
        document["outcome"] = receipt.outcome
        document["outcomes"] = receipt.outcomes
        document["actions"] = receipt.actions
    if receipt.usage:  # prompt-cache usage of its inferences (docs/observability.md)
        document["usage"] = receipt.usage
    return document


def receipt_payload(receipt: Receipt, now: datetime | None = None) -> bytes:
    """The envelope payload: RFC 8785 canonical JSON of the receipt document."""
    return canonical_json(receipt_document(receipt, now))


def check_receipt_payload(payload: bytes) -> tuple[dict[str, Any] | None, list[str]]:
    """Parse a payload and list what is wrong with it (empty when it is sound)."""
    try:
        document = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None, ["payload is not JSON"]
    if not isinstance(document, dict):
        return None, ["payload is not a JSON object"]
    reasons: list[str] = []
    if document.get("format") != FORMAT:
        reasons.append(f"payload format is {document.get('format')!r}, expected {FORMAT!r}")
        return document, reasons
    try:
        if canonical_json(document) != payload:
            reasons.append("payload is not in RFC 8785 canonical form")
        context = {
            key: document[key]
            for key in (
                "request",
                "actor",
                "purpose",
                "policy_version",
                "route",
                "model",
                "tools",
                "budget",
            )
        }
        inference_id = document.get("inference_id")
        if inference_id is not None:
            derived = receipt_id_for_inference(str(document["opened_by"]), str(inference_id))
        else:
            context.update({key: document[key] for key in OPTIONAL_CONTEXT if key in document})
            derived = receipt_id_for(
                opening_content(
                    context,
                    document["pool"],
                    document["excluded"],
                    document["as_of"],
                    document["expires_at"],
                )
            )
    except (KeyError, ValueError) as exc:
        reasons.append(f"payload lacks a receipt field: {exc}")
        return document, reasons
    if derived != document.get("receipt_id"):
        reasons.append(
            f"receipt_id {document.get('receipt_id')} does not match its content ({derived})"
        )
    return document, reasons
