"""Verify a receipt envelope end to end: DSSE signatures, payload form and receipt id."""

from __future__ import annotations

from typing import Any

from ledger.crypto.dsse import RECEIPT_PAYLOAD_TYPE, verify_envelope
from ledger.crypto.hmac_keys import HmacKey
from ledger.crypto.signing import Keyring
from ledger.receipts.document import check_receipt_payload


def verify_receipt_envelope(
    envelope: Any, hmac_key: HmacKey | None, keyring: Keyring | None
) -> dict[str, Any]:
    """Check signatures (with whichever keys are given), canonical form and content id."""
    check = verify_envelope(envelope, RECEIPT_PAYLOAD_TYPE, hmac_key, keyring)
    reasons = list(check.reasons)
    document: dict[str, Any] | None = None
    if check.payload is not None:
        document, payload_reasons = check_receipt_payload(check.payload)
        reasons.extend(payload_reasons)
    valid = not reasons and any(s["valid"] for s in check.signatures)
    return {
        "valid": valid,
        "reasons": reasons,
        "signatures": check.signatures,
        "receipt_id": None if document is None else document.get("receipt_id"),
        "status": None if document is None else document.get("status"),
    }
