"""The ledger's signing keys on disk: the active Ed25519 key and the keyring, with rotation.

Files, inside ``<data dir>/keys`` unless a signing key file is configured:

- ``signing.pem``: the active private key, PKCS#8 PEM, file mode 0600;
- ``keyring.json``: every public key ever used, with its status, for verifiers.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from ledger.crypto.signing import Keyring, PublicKeyRecord, SigningKey, write_private
from ledger.errors import KeyringError


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _write_public(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class KeyStore:
    """The signing key and keyring kept on disk for one ledger."""

    def __init__(self, keys_dir: Path, signing_key_file: Path | None = None) -> None:
        self.keys_dir = keys_dir
        self.keyring_path = keys_dir / "keyring.json"
        self.signing_key_path = signing_key_file or keys_dir / "signing.pem"
        self.key_is_supplied = signing_key_file is not None

    def open(self) -> tuple[SigningKey, Keyring]:
        """Load (or on first start create) the signing key, and register it in the keyring.

        A supplied key file must exist; a key in the data dir is generated when missing. When
        the active key differs from the keyring's active entry, the old entry is retired: that
        is how rotating a supplied key file takes effect.
        """
        if self.signing_key_path.exists():
            signing_key = SigningKey.from_pem(self.signing_key_path.read_bytes())
        elif self.key_is_supplied:
            raise KeyringError(f"signing key file {self.signing_key_path} does not exist")
        else:
            signing_key = SigningKey.generate()
            write_private(self.signing_key_path, signing_key.to_pem())
        keyring = self._register_active(signing_key)
        return signing_key, keyring

    def rotate(self) -> tuple[SigningKey, Keyring]:
        """Replace the data-dir signing key with a new one; the old one is retired."""
        if self.key_is_supplied:
            raise KeyringError(
                "the signing key is supplied from a file: rotate it by replacing that file"
            )
        self.open()
        signing_key = SigningKey.generate()
        write_private(self.signing_key_path, signing_key.to_pem())
        return signing_key, self._register_active(signing_key)

    def load_keyring(self) -> Keyring:
        """Read the keyring without touching the signing key."""
        if not self.keyring_path.exists():
            raise KeyringError(f"no keyring at {self.keyring_path}")
        return Keyring.load(self.keyring_path)

    def _register_active(self, signing_key: SigningKey) -> Keyring:
        records = (
            list(Keyring.load(self.keyring_path).records.values())
            if self.keyring_path.exists()
            else []
        )
        now = _now()
        updated: list[PublicKeyRecord] = []
        seen = False
        changed = False
        for record in records:
            current = record
            if record.kid == signing_key.kid:
                seen = True
                if record.status != "active":
                    current = PublicKeyRecord(
                        record.kid, record.public_key, "active", record.created_at
                    )
            elif record.status == "active":
                current = PublicKeyRecord(
                    record.kid, record.public_key, "retired", record.created_at, now
                )
            changed = changed or current != record
            updated.append(current)
        if not seen:
            updated.append(PublicKeyRecord(signing_key.kid, signing_key.public_key, "active", now))
            changed = True
        keyring = Keyring(updated)
        if changed:
            _write_public(self.keyring_path, json.dumps(keyring.to_json(), indent=2) + "\n")
        return keyring
