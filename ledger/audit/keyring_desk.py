"""The published keys and the envelope checks made with them: ``GET /v1/keys`` and
``POST /v1/envelopes/verify``.

The keyring is read from its file on each call, so a rotation made by the command line
(``provledger signing-keys rotate``) is what the next call publishes and verifies with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.audit.envelope_verification import verify_receipt_envelope
from ledger.crypto.hmac_keys import HmacKey
from ledger.crypto.signing import Keyring


class KeyringDesk:
    """Publishes the ledger's public keys and checks receipt envelopes against them."""

    def __init__(self, load_keyring: Callable[[], Keyring], hmac_key: HmacKey) -> None:
        self.load_keyring = load_keyring
        """Reads the keyring file (``KeyStore.load_keyring``)."""
        self.hmac_key = hmac_key

    def public_keys(self) -> dict[str, Any]:
        """Every Ed25519 public key, active and retired, with its key id."""
        return self.load_keyring().to_json()

    def verify_envelope(self, envelope: Any) -> dict[str, Any]:
        """``{valid, reasons, signatures, receipt_id, status}`` for a receipt envelope: the
        checks of ``provledger envelope verify`` (``envelope_verification.py``)."""
        return verify_receipt_envelope(envelope, self.hmac_key, self.load_keyring())
