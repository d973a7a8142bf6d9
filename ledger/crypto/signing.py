"""Ed25519 signing keys and the keyring of public keys that verify the log.

The ledger signs every event with one active Ed25519 key (RFC 8032). Each key is named by a key
id derived from its public key, so a signature always says which key made it. Retired keys keep
their public half in the keyring so that old events still verify; their private half is
destroyed on rotation.

The files that hold them on disk are kept by :class:`ledger.keys.signing_keys.KeyStore`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from ledger.errors import KeyringError

ALGORITHM = "Ed25519"
KeyStatus = Literal["active", "retired"]


def key_id_for(public_key: bytes) -> str:
    """Return the key id of a raw 32-byte Ed25519 public key: 16 hex digits of its SHA-256."""
    return hashlib.sha256(public_key).hexdigest()[:16]


def _raw_public(public_key: Ed25519PublicKey) -> bytes:
    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


class SigningKey:
    """The private key that signs new events."""

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._private_key = private_key
        self.public_key = _raw_public(private_key.public_key())
        self.kid = key_id_for(self.public_key)

    @classmethod
    def generate(cls) -> SigningKey:
        """Create a fresh random key."""
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_pem(cls, pem: bytes) -> SigningKey:
        """Load a PKCS#8 PEM private key, refusing anything that is not Ed25519."""
        try:
            key = serialization.load_pem_private_key(pem, password=None)
        except (ValueError, TypeError) as exc:
            raise KeyringError(f"signing key is not a readable PEM private key: {exc}") from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise KeyringError("signing key must be an Ed25519 private key")
        return cls(key)

    def to_pem(self) -> bytes:
        """Serialise as unencrypted PKCS#8 PEM (protected by file permissions)."""
        return self._private_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def sign(self, message: bytes) -> bytes:
        """Sign ``message`` (RFC 8032 pure Ed25519, 64-byte signature)."""
        return self._private_key.sign(message)

    def __repr__(self) -> str:  # never show key material
        return f"SigningKey(kid={self.kid!r})"


@dataclass(frozen=True)
class PublicKeyRecord:
    """One public key in the keyring."""

    kid: str
    public_key: bytes
    status: KeyStatus
    created_at: str
    retired_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Render for ``keyring.json`` and ``GET /v1/keys``."""
        return {
            "kid": self.kid,
            "alg": ALGORITHM,
            "public_key": base64.b64encode(self.public_key).decode("ascii"),
            "status": self.status,
            "created_at": self.created_at,
            "retired_at": self.retired_at,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PublicKeyRecord:
        """Parse one keyring entry, checking that the key id matches the key."""
        try:
            public_key = base64.b64decode(data["public_key"], validate=True)
            kid = str(data["kid"])
            status = data.get("status", "retired")
        except (KeyError, ValueError, TypeError) as exc:
            raise KeyringError(f"malformed keyring entry: {exc}") from exc
        if len(public_key) != 32:
            raise KeyringError(f"key {kid}: an Ed25519 public key is 32 bytes")
        if key_id_for(public_key) != kid:
            raise KeyringError(f"key {kid}: key id does not match its public key")
        if status not in ("active", "retired"):
            raise KeyringError(f"key {kid}: unknown status {status!r}")
        return cls(
            kid=kid,
            public_key=public_key,
            status=status,
            created_at=str(data.get("created_at", "")),
            retired_at=data.get("retired_at"),
        )


class Keyring:
    """Public keys by key id: what a verifier trusts."""

    def __init__(self, records: list[PublicKeyRecord]) -> None:
        self.records = {record.kid: record for record in records}
        self._verifiers = {record.kid: VerifyKey(record.public_key) for record in records}

    def __contains__(self, kid: object) -> bool:
        return kid in self.records

    def verify(self, kid: str, message: bytes, signature: bytes) -> bool:
        """Tell whether ``signature`` is a valid signature of ``message`` under key ``kid``.

        Verification uses libsodium (PyNaCl), about 2.5x faster per signature than OpenSSL 4
        on the machines measured (see docs/dependencies.md); signing stays with
        ``cryptography``. An unknown key id raises :class:`KeyError`.
        """
        verifier = self._verifiers[kid]
        try:
            verifier.verify(message, signature)
        except (BadSignatureError, ValueError):
            return False
        return True

    def to_json(self) -> dict[str, Any]:
        """Render the whole keyring, oldest key first."""
        ordered = sorted(self.records.values(), key=lambda r: (r.created_at, r.kid))
        return {"keys": [record.to_json() for record in ordered]}

    @classmethod
    def from_json(cls, data: Any) -> Keyring:
        """Parse a keyring document (``keyring.json`` or a ``GET /v1/keys`` response)."""
        if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
            raise KeyringError('a keyring is a JSON object with a "keys" list')
        return cls([PublicKeyRecord.from_json(entry) for entry in data["keys"]])

    @classmethod
    def load(cls, path: Path) -> Keyring:
        """Read a keyring file."""
        try:
            return cls.from_json(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError) as exc:
            raise KeyringError(f"cannot read keyring {path}: {exc}") from exc


def load_public_keys(path: Path) -> Keyring:
    """Trusted public keys from a keyring JSON file or a single PEM public key."""
    data = path.read_bytes()
    if data.lstrip().startswith(b"-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(data)
        except ValueError as exc:
            raise KeyringError(f"{path} is not a readable PEM public key: {exc}") from exc
        if not isinstance(key, Ed25519PublicKey):
            raise KeyringError(f"{path} is not an Ed25519 public key")
        raw = _raw_public(key)
        return Keyring([PublicKeyRecord(key_id_for(raw), raw, "active", "")])
    return Keyring.load(path)


def verify_with_cryptography(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Verify with ``cryptography`` (OpenSSL); the reference the fast path is tested against."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def write_private(path: Path, data: bytes) -> None:
    """Write a secret file atomically, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
