"""Offline checks with no server: the same verifier code the command line runs.

:func:`verify_envelope` calls ``ledger.audit.envelope_verification.verify_receipt_envelope``
(``provledger envelope verify``), :func:`verify_bundle` calls
``ledger.audit.bundle.verify.verify_bundle`` (``provledger audit verify``). The trust root is
the keyring: the JSON of ``GET /v1/keys`` (as :meth:`provledger.Client.public_keys` returns it,
or saved to a file) or an Ed25519 public key in PEM, obtained from a channel you trust.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:  # the verifiers are imported on first use: `import provledger` stays light
    from ledger.crypto.hmac_keys import HmacKey
    from ledger.crypto.signing import Keyring

KeyringSource: TypeAlias = "Keyring | Mapping[str, Any] | str | Path"
"""A keyring, its JSON (``GET /v1/keys``), or the path of a keyring JSON or a PEM file."""


def load_keyring(keys: KeyringSource) -> Keyring:
    """The trusted public keys from any :data:`KeyringSource`."""
    from ledger.crypto.signing import Keyring, load_public_keys

    if isinstance(keys, Keyring):
        return keys
    if isinstance(keys, Mapping):
        return Keyring.from_json(dict(keys))
    return load_public_keys(Path(keys))


@dataclass(frozen=True)
class EnvelopeVerdict:
    """The checks of a receipt envelope: ``valid`` only if a signature verified and the
    payload is the canonical receipt whose id it names."""

    valid: bool
    reasons: list[str]
    signatures: list[dict[str, Any]]
    receipt_id: str | None
    status: dict[str, Any] | None

    def __bool__(self) -> bool:
        return self.valid


@dataclass(frozen=True)
class BundleVerdict:
    """Every check of a bundle that held, in order, and the reason code of the first that
    failed (None when all held); see docs/audit.md."""

    ok: bool
    checks: list[tuple[bool, str]]
    reason: str | None

    def __bool__(self) -> bool:
        return self.ok


def verify_envelope(
    envelope: Mapping[str, Any],
    keyring: KeyringSource | None = None,
    *,
    hmac_key: HmacKey | bytes | str | Path | None = None,
) -> EnvelopeVerdict:
    """Check a receipt envelope offline with the public keys, the shared HMAC key, or both.

    ``hmac_key`` is the key itself (``bytes``, at least 32: the key file's hex digits read with
    ``bytes.fromhex``), or the path of the key file (``str`` or ``Path``). No error says what
    the key or the file holds."""
    from ledger.audit.envelope_verification import verify_receipt_envelope

    if keyring is None and hmac_key is None:
        raise ValueError("give a keyring, an HMAC key, or both")
    keys = None if keyring is None else load_keyring(keyring)
    secret = None if hmac_key is None else _hmac_key(hmac_key)
    result = verify_receipt_envelope(dict(envelope), secret, keys)
    return EnvelopeVerdict(
        valid=bool(result["valid"]),
        reasons=list(result["reasons"]),
        signatures=list(result["signatures"]),
        receipt_id=result["receipt_id"],
        status=result["status"],
    )


def _hmac_key(given: HmacKey | bytes | str | Path) -> HmacKey:
    """The HMAC key from the key, its bytes or its file; errors name the rule, not the value."""
    from ledger.crypto.hmac_keys import HmacKey
    from ledger.errors import KeyringError

    if isinstance(given, HmacKey):
        return given
    if isinstance(given, bytes | bytearray):
        if len(given) < 32:
            raise ValueError(f"hmac_key must hold at least 32 bytes (got {len(given)})")
        return HmacKey(bytes(given))
    if not isinstance(given, str | Path):
        raise TypeError(
            f"hmac_key must be bytes (the key) or a str or Path (its file), "
            f"not {type(given).__name__}"
        )
    path = Path(given)
    try:
        found = path.is_file()
    except (OSError, ValueError):  # a name too long for a path: its error would echo it
        found = False
    if not found:  # a str that is no file may be the key itself: never echo it
        raise KeyringError(
            "hmac_key: no such key file; a str or Path is read as the key file's path, "
            "to pass the key itself as bytes use bytes.fromhex(...)"
        )
    return HmacKey.load(path)


def verify_bundle(
    bundle: Mapping[str, Any],
    keyring: KeyringSource,
    *,
    previous_checkpoint: str | None = None,
    origin: str | None = None,
) -> BundleVerdict:
    """Check a citation-chain bundle offline; ``previous_checkpoint`` (a note seen earlier)
    also demands a consistency proof from it, ``origin`` the log the checkpoint must name."""
    from ledger.audit.bundle.verify import verify_bundle as _verify_bundle

    checklist = _verify_bundle(
        dict(bundle), load_keyring(keyring), previous_checkpoint, origin=origin
    )
    reason = checklist.reason
    return BundleVerdict(
        ok=checklist.ok,
        checks=list(checklist.items),
        reason=None if reason is None else reason.value,
    )
