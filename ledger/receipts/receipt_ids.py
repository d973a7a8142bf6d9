"""How receipts and claims are named: a receipt by its caller and inference id (or, for the
first receipts, by its opening content), its aggregate by its id, a claim by its receipt,
ordinal and content. Ids are part of the storage format: never change how one is derived."""

from __future__ import annotations

import hashlib
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from ledger.crypto.canonical import canonical_json

_NAMESPACE = uuid5(NAMESPACE_URL, "https://provledger.dev/ns/receipt")
RECEIPT_PREFIX = "rcpt_"
CLAIM_PREFIX = "clm_"


def receipt_id_for(opening: dict[str, Any]) -> str:
    """The id of a receipt opened before receipts were per inference (``Opened`` version 1,
    no ``inference_id``): ``rcpt_`` + 32 hex digits of SHA-256 of the RFC 8785 form of the
    opening content (context, sealed pool, exclusions, as_of, expires_at)."""
    return RECEIPT_PREFIX + hashlib.sha256(canonical_json(opening)).hexdigest()[:32]


def receipt_id_for_inference(opened_by: str, inference_id: str) -> str:
    """Per-inference receipt id: ``rcpt_`` + 32 hex digits of SHA-256 of the RFC 8785 form of
    ``{"opened_by", "inference_id"}``. The caller that opened it and its inference id name the
    receipt, so two inferences with the same content get two receipts."""
    identity = {"opened_by": opened_by, "inference_id": inference_id}
    return RECEIPT_PREFIX + hashlib.sha256(canonical_json(identity)).hexdigest()[:32]


def receipt_aggregate_id(receipt_id: str) -> UUID:
    """The aggregate id of a receipt."""
    return uuid5(_NAMESPACE, receipt_id)


def claim_id_for(receipt_id: str, ordinal: int, claim: dict[str, Any]) -> str:
    """Content-derived claim id: the receipt, the claim's ordinal in it and its content."""
    digest = hashlib.sha256(
        receipt_id.encode() + b"\x00" + str(ordinal).encode() + b"\x00" + canonical_json(claim)
    )
    return CLAIM_PREFIX + digest.hexdigest()[:24]


def opening_content(
    context: dict[str, Any],
    pool: list[dict[str, Any]],
    excluded: list[dict[str, str]],
    as_of: str,
    expires_at: str | None,
) -> dict[str, Any]:
    """What a receipt id is derived from."""
    return {
        "context": context,
        "pool": pool,
        "excluded": excluded,
        "as_of": as_of,
        "expires_at": expires_at,
    }
