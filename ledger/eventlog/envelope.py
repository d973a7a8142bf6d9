"""The signed, chained form in which every event is stored.

Each stored event's state is the RFC 8785 canonical JSON of::

    {"body": {...}, "signature": {"alg": "Ed25519", "kid": "<key id>", "sig": "<base64>"}}

``body`` binds everything that identifies the event::

    {"format": "provledger.event/v1", "originator_id": "<uuid>", "originator_version": n,
     "topic": "<stable topic>", "recorded_at": "<RFC 3339, UTC, microseconds>",
     "actor": "<who>", "payload": {...}, "prev": "sha256:<hex>" | null}

The signature is Ed25519 over the canonical bytes of ``body``. The event hash is
SHA-256 of those same bytes; ``prev`` holds the hash of the previous event of the same
aggregate (null for version 1), which makes each aggregate's history a hash chain.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from ledger.crypto.canonical import canonical_json
from ledger.crypto.signing import ALGORITHM, SigningKey
from ledger.errors import LedgerError, MalformedEvent

FORMAT = "provledger.event/v1"
_HEAD = b'{"body":'
HASH_PREFIX = "sha256:"
_HASH_TEXT = len(HASH_PREFIX) + 64
BODY_FIELDS = frozenset(
    {
        "format",
        "originator_id",
        "originator_version",
        "topic",
        "recorded_at",
        "actor",
        "payload",
        "prev",
    }
)


def format_hash(digest: bytes) -> str:
    """Render a SHA-256 digest as ``sha256:<hex>``."""
    return HASH_PREFIX + digest.hex()


def parse_hash(text: str) -> bytes:
    """Parse ``sha256:<hex>`` back to the 32-byte digest."""
    if not isinstance(text, str) or len(text) != _HASH_TEXT or not text.startswith(HASH_PREFIX):
        raise MalformedEvent(f"not a sha256 hash: {text!r}")
    try:
        return bytes.fromhex(text[len(HASH_PREFIX) :])
    except ValueError as exc:
        raise MalformedEvent(f"not a sha256 hash: {text!r}") from exc


@dataclass(frozen=True, slots=True)
class SealedEvent:
    """An event as stored: the canonical body, its signature and its hash."""

    body: dict[str, Any]
    body_bytes: bytes
    kid: str
    signature: bytes

    @property
    def event_hash(self) -> bytes:
        """SHA-256 of the canonical body: what the next event's ``prev`` names."""
        return hashlib.sha256(self.body_bytes).digest()

    @property
    def prev_hash(self) -> bytes | None:
        """The chain link to the previous event of this aggregate, if any."""
        prev = self.body["prev"]
        return None if prev is None else parse_hash(prev)

    def to_state(self) -> bytes:
        """The stored state: the canonical JSON of body and signature.

        Built by concatenation: ``"body"`` sorts before ``"signature"`` and ``alg`` < ``kid`` <
        ``sig``, so the result is itself RFC 8785 canonical.
        """
        sig = base64.b64encode(self.signature).decode("ascii")
        tail = f',"signature":{{"alg":"{ALGORITHM}","kid":"{self.kid}","sig":"{sig}"}}}}'
        return b'{"body":' + self.body_bytes + tail.encode("ascii")

    def to_json(self) -> dict[str, Any]:
        """The stored form as a JSON object, for APIs and audit bundles."""
        return {
            "body": self.body,
            "signature": {
                "alg": ALGORITHM,
                "kid": self.kid,
                "sig": base64.b64encode(self.signature).decode("ascii"),
            },
        }


def seal(
    signing_key: SigningKey,
    *,
    originator_id: str,
    originator_version: int,
    topic: str,
    recorded_at: str,
    actor: str,
    payload: dict[str, Any],
    prev: bytes | None,
) -> SealedEvent:
    """Build, canonicalise and sign one event body."""
    body = {
        "format": FORMAT,
        "originator_id": originator_id,
        "originator_version": originator_version,
        "topic": topic,
        "recorded_at": recorded_at,
        "actor": actor,
        "payload": payload,
        "prev": None if prev is None else format_hash(prev),
    }
    body_bytes = canonical_json(body)
    return SealedEvent(body, body_bytes, signing_key.kid, signing_key.sign(body_bytes))


def open_state(state: bytes) -> SealedEvent:
    """Parse a stored state back into a :class:`SealedEvent`.

    Raises :class:`MalformedEvent` when the state is not JSON or lacks a field; the
    signature is not checked here (see :mod:`ledger.audit.log_verify`).
    """
    try:
        document = json.loads(state)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedEvent(f"stored state is not JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise MalformedEvent("stored state is not a JSON object")
    body = document.get("body")
    signature = document.get("signature")
    if not isinstance(body, dict) or set(body) != BODY_FIELDS:
        raise MalformedEvent("stored state has no well-formed body")
    if body["format"] != FORMAT:
        raise MalformedEvent(f"unknown event format {body['format']!r}")
    if not isinstance(body["payload"], dict):
        raise MalformedEvent("event payload is not a JSON object")
    if not isinstance(signature, dict) or signature.get("alg") != ALGORITHM:
        raise MalformedEvent("stored state has no Ed25519 signature")
    kid, sig = signature.get("kid"), signature.get("sig")
    if not isinstance(kid, str) or not isinstance(sig, str):
        raise MalformedEvent("signature lacks a key id or value")
    try:
        raw_sig = base64.b64decode(sig, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise MalformedEvent("signature is not base64") from exc
    body_bytes = _stored_body_bytes(state, kid, sig) if len(document) == 2 else None
    if body_bytes is None:
        try:
            body_bytes = canonical_json(body)
        except LedgerError as exc:
            raise MalformedEvent(str(exc)) from exc
    return SealedEvent(body, body_bytes, kid, raw_sig)


_TOKEN = re.compile(r"[A-Za-z0-9+/=]+")


def _stored_body_bytes(state: bytes, kid: str, sig: str) -> bytes | None:
    """The body's bytes as stored, when ``state`` has the layout :meth:`SealedEvent.to_state`
    writes; else None (the caller re-canonicalises the parsed body).

    With ``kid`` and ``sig`` restricted to base64 characters, the tail is one fixed JSON
    fragment, so the bytes between the head and the tail are the ``body`` value the parser
    read. Those bytes are what the signature is checked over: an honest state holds exactly
    ``JCS(body)`` there, and any other bytes (a re-spaced or re-ordered body) fail the check.
    This spares re-encoding every body on a verification walk.
    """
    if not (_TOKEN.fullmatch(kid) and _TOKEN.fullmatch(sig)):
        return None
    tail = f',"signature":{{"alg":"{ALGORITHM}","kid":"{kid}","sig":"{sig}"}}}}'.encode("ascii")
    if not (state.startswith(_HEAD) and state.endswith(tail)):
        return None
    return bytes(state[len(_HEAD) : -len(tail)])
