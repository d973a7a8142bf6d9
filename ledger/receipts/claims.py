"""The claim as the ledger keeps it: one JSON form from a commit request to the event and back.

A :class:`~ledger.gate.ClaimDraft` (what the gate judges) becomes :func:`claim_content` (the
content a claim id is derived from); the committed record adds its id, ordinal, the source of
each binding (:func:`with_sources`), its status and checks; :func:`draft_from_json` turns a
stored record back into a draft (for repair).
"""

from __future__ import annotations

from typing import Any

from ledger.gate import Binding, ClaimDraft, ClaimType, Role
from ledger.receipts.receipt import Receipt
from ledger.registry.evidence import ResolvedSpan


def claim_content(claim: ClaimDraft) -> dict[str, Any]:
    """A claim as submitted, in JSON form (what its id is derived from)."""
    return {
        "client_ref": claim.client_ref,
        "text": claim.text,
        "type": claim.type.value,
        "material": claim.material,
        "bindings": [
            {"span_id": b.span_id, "role": b.role.value, "quote": b.quote} for b in claim.bindings
        ],
    }


def draft_from_json(claim: dict[str, Any]) -> ClaimDraft:
    """Rebuild a draft from its JSON form (schema already validated)."""
    return ClaimDraft(
        text=claim["text"],
        type=ClaimType(claim.get("type", "factual")),
        material=bool(claim.get("material", True)),
        bindings=tuple(
            Binding(b["span_id"], Role(b.get("role", "primary_support")), b.get("quote"))
            for b in claim.get("bindings", [])
        ),
        client_ref=claim.get("client_ref"),
    )


def with_sources(receipt: Receipt, bindings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each binding with the source version the receipt's sealed pool holds for its span."""
    return [
        {**binding, **_binding_source(receipt.pool_index.get(binding["span_id"]))}
        for binding in bindings
    ]


def pool_entry(span: ResolvedSpan) -> dict[str, Any]:
    """What a sealed pool records of one span."""
    return {
        "span_id": span.span_id,
        "source_id": span.source_id,
        "version": span.version,
        "version_hash": span.version_hash,
        "text_sha256": span.text_sha256,
    }


def _binding_source(entry: dict[str, Any] | None) -> dict[str, Any]:
    if entry is None:
        return {"source_id": None, "version": None, "version_hash": None}
    return {
        "source_id": entry["source_id"],
        "version": entry["version"],
        "version_hash": entry["version_hash"],
    }
