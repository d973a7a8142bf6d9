"""The shared secret that seals receipt envelopes with HMAC-SHA256.

Generated into ``<data dir>/keys/receipt-hmac.key`` (32 random bytes, hex, file mode 0600) on
first start, or supplied from a file. Its key id is the first 16 hex digits of SHA-256 over a
domain-separation prefix and the key, so publishing the id reveals nothing usable.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from pathlib import Path

from ledger.crypto.signing import write_private
from ledger.errors import KeyringError

_KEY_ID_PREFIX = b"provledger-hmac-key-id\x00"


@dataclass(frozen=True)
class HmacKey:
    """A 256-bit HMAC key and its id."""

    secret: bytes

    @property
    def kid(self) -> str:
        """``hmac:`` + 16 hex digits derived from the key."""
        return "hmac:" + hashlib.sha256(_KEY_ID_PREFIX + self.secret).hexdigest()[:16]

    @classmethod
    def load(cls, path: Path) -> HmacKey:
        """Read a key file: 64 hex digits (surrounding whitespace ignored). A refusal names
        the file and the rule, never what the file holds (no error of the reading is chained:
        a decoding error keeps its whole input)."""
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise KeyringError(f"cannot read HMAC key {path}: {exc.strerror}") from None
        secret = _from_hex(raw)
        if secret is None:
            raise KeyringError(f"HMAC key {path} is not hex digits (64 of them: 32 bytes)")
        if len(secret) < 32:
            raise KeyringError(f"HMAC key {path} must hold at least 32 bytes (64 hex digits)")
        return cls(secret)

    def __repr__(self) -> str:  # never show key material
        return f"HmacKey(kid={self.kid!r})"


def _from_hex(raw: bytes) -> bytes | None:
    """The bytes that ASCII hex digits write, or None (the error, which holds them, dropped)."""
    try:
        return bytes.fromhex(raw.decode("ascii").strip())
    except ValueError:
        return None


def open_hmac_key(keys_dir: Path, supplied: Path | None = None) -> HmacKey:
    """Load the supplied key file, or the data-dir key (created on first use)."""
    if supplied is not None:
        if not supplied.exists():
            raise KeyringError(f"HMAC key file {supplied} does not exist")
        return HmacKey.load(supplied)
    path = keys_dir / "receipt-hmac.key"
    if not path.exists():
        write_private(path, secrets.token_bytes(32).hex().encode("ascii") + b"\n")
    return HmacKey.load(path)
