"""DSSE envelopes (Dead Simple Signing Envelope, secure-systems-lab/dsse v1.0).

An envelope is ``{"payload": <base64>, "payloadType": <type>, "signatures": [{"keyid", "sig"}]}``.
Signatures are computed over the pre-authentication encoding::

    PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body

where LEN is the byte length in ASCII decimal and SP a single space. provledger adds two
signatures to each receipt envelope: HMAC-SHA256 with the ledger's shared secret (key id
``hmac:<16 hex>``) and Ed25519 with the ledger's signing key (key id = signing key id), so a
third party can verify without the shared secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any

from ledger.crypto.hmac_keys import HmacKey
from ledger.crypto.signing import Keyring, SigningKey

RECEIPT_PAYLOAD_TYPE = "application/vnd.provledger.receipt+json"


def pae(payload_type: str, body: bytes) -> bytes:
    """The DSSE v1 pre-authentication encoding."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)


def seal_envelope(
    payload: bytes, payload_type: str, hmac_key: HmacKey, signing_key: SigningKey
) -> dict[str, Any]:
    """Wrap ``payload`` in an envelope with an HMAC-SHA256 and an Ed25519 signature."""
    message = pae(payload_type, payload)
    mac = hmac.new(hmac_key.secret, message, hashlib.sha256).digest()
    return {
        "payload": base64.b64encode(payload).decode("ascii"),
        "payloadType": payload_type,
        "signatures": [
            {"keyid": hmac_key.kid, "sig": base64.b64encode(mac).decode("ascii")},
            {
                "keyid": signing_key.kid,
                "sig": base64.b64encode(signing_key.sign(message)).decode("ascii"),
            },
        ],
    }


@dataclass
class EnvelopeCheck:
    """The result of verifying an envelope: every signature's verdict and the reasons."""

    payload: bytes | None = None
    signatures: list[dict[str, Any]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """True when no check failed and at least one signature verified."""
        return not self.reasons and any(s["valid"] for s in self.signatures)


def verify_envelope(
    envelope: Any,
    expected_type: str,
    hmac_key: HmacKey | None = None,
    keyring: Keyring | None = None,
) -> EnvelopeCheck:
    """Check an envelope's shape, type and every signature we hold a key for.

    A signature whose key we do not hold is reported (``valid: false``, ``reason: unknown
    key``) but does not fail the envelope; any signature that fails under a known key does.
    """
    check = EnvelopeCheck()
    if not isinstance(envelope, dict):
        check.reasons.append("envelope is not a JSON object")
        return check
    payload_type = envelope.get("payloadType")
    if payload_type != expected_type:
        check.reasons.append(f"payloadType is {payload_type!r}, expected {expected_type!r}")
        return check
    try:
        payload = base64.b64decode(envelope.get("payload", ""), validate=True)
    except (binascii.Error, ValueError, TypeError):
        check.reasons.append("payload is not base64")
        return check
    check.payload = payload
    signatures = envelope.get("signatures")
    if not isinstance(signatures, list) or not signatures:
        check.reasons.append("envelope has no signatures")
        return check
    message = pae(expected_type, payload)
    for entry in signatures:
        check.signatures.append(_verify_one(entry, message, hmac_key, keyring, check.reasons))
    if not any(s["valid"] for s in check.signatures) and not check.reasons:
        check.reasons.append("no signature could be verified with the keys given")
    return check


def _verify_one(
    entry: Any,
    message: bytes,
    hmac_key: HmacKey | None,
    keyring: Keyring | None,
    reasons: list[str],
) -> dict[str, Any]:
    if not isinstance(entry, dict) or not isinstance(entry.get("keyid"), str):
        reasons.append("a signature entry lacks a keyid")
        return {"keyid": None, "alg": None, "valid": False, "reason": "malformed"}
    keyid = entry["keyid"]
    try:
        sig = base64.b64decode(entry.get("sig", ""), validate=True)
    except (binascii.Error, ValueError, TypeError):
        reasons.append(f"signature {keyid} is not base64")
        return {"keyid": keyid, "alg": None, "valid": False, "reason": "not base64"}
    if keyid.startswith("hmac:"):
        if hmac_key is None or hmac_key.kid != keyid:
            return {"keyid": keyid, "alg": "HMAC-SHA256", "valid": False, "reason": "unknown key"}
        expected = hmac.new(hmac_key.secret, message, hashlib.sha256).digest()
        if hmac.compare_digest(expected, sig):
            return {"keyid": keyid, "alg": "HMAC-SHA256", "valid": True, "reason": "ok"}
        reasons.append(f"HMAC-SHA256 signature {keyid} does not match the payload")
        return {"keyid": keyid, "alg": "HMAC-SHA256", "valid": False, "reason": "mismatch"}
    if keyring is None or keyid not in keyring:
        return {"keyid": keyid, "alg": "Ed25519", "valid": False, "reason": "unknown key"}
    if keyring.verify(keyid, message, sig):
        return {"keyid": keyid, "alg": "Ed25519", "valid": True, "reason": "ok"}
    reasons.append(f"Ed25519 signature {keyid} does not match the payload")
    return {"keyid": keyid, "alg": "Ed25519", "valid": False, "reason": "mismatch"}
