"""Witness cosignatures of checkpoints: C2SP tlog-cosignature (``cosignature/v1``).

A witness's key is an Ed25519 key of C2SP signed-note signature type 0x04. Its key hash is the
first 4 bytes of SHA-256(key name || "\\n" || 0x04 || public key), and its verifier key string
is ``<name>+<hex key hash>+<base64(0x04 || public key)>``. A cosignature is an ordinary signed
note signature line whose payload is::

    key hash (4 bytes) || timestamp (8 bytes, big-endian Unix seconds) || Ed25519 signature (64)

and whose signature covers ``"cosignature/v1\\ntime <timestamp>\\n"`` followed by the
checkpoint body (the note text without its signature lines). It states: this witness saw
that checkpoint at that time, and had verified that it extends every checkpoint of the same
log it cosigned before.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from ledger.crypto.checkpoint import SIGNATURE_PREFIX, Checkpoint, NoteSigner, parse_note
from ledger.errors import CheckpointError

COSIGNATURE_ALGORITHM = b"\x04"
"""C2SP signed-note signature type of a tlog-cosignature/v1 Ed25519 key."""
_PAYLOAD_SIZE = 4 + 8 + 64
MAX_TIMESTAMP = 2**63 - 1


def _check_name(name: str) -> None:
    if not name or any(c.isspace() or c == "+" or ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        raise CheckpointError(
            f"witness name {name!r} must be non-empty, with no spaces, plus signs or "
            "control characters"
        )


def _check_public_key(public_key: bytes) -> None:
    if not isinstance(public_key, bytes) or len(public_key) != 32:
        raise CheckpointError("an Ed25519 public key is 32 bytes")


def cosignature_key_hash(name: str, public_key: bytes) -> bytes:
    """The 4-byte key hash of a cosignature/v1 key: SHA-256(name || 0x0A || 0x04 || key)[:4]."""
    _check_name(name)
    _check_public_key(public_key)
    return hashlib.sha256(name.encode() + b"\n" + COSIGNATURE_ALGORITHM + public_key).digest()[:4]


def witness_vkey(name: str, public_key: bytes) -> str:
    """The C2SP verifier key of a witness: ``<name>+<hex key hash>+<base64(0x04 || key)>``."""
    encoded = base64.b64encode(COSIGNATURE_ALGORITHM + public_key).decode("ascii")
    return f"{name}+{cosignature_key_hash(name, public_key).hex()}+{encoded}"


@dataclass(frozen=True)
class WitnessKey:
    """A witness's public identity: its name and Ed25519 public key."""

    name: str
    public_key: bytes

    @property
    def key_hash(self) -> bytes:
        """The 4-byte key hash its cosignature lines carry."""
        return cosignature_key_hash(self.name, self.public_key)

    @property
    def vkey(self) -> str:
        """Its C2SP verifier key string."""
        return witness_vkey(self.name, self.public_key)


def parse_witness_vkey(text: str) -> WitnessKey:
    """Read a witness verifier key, checking its signature type (0x04) and key hash."""
    name, _, rest = text.strip().partition("+")
    hash_hex, _, encoded = rest.partition("+")
    try:
        material = base64.b64decode(encoded, validate=True)
    except binascii.Error as exc:
        raise CheckpointError(f"witness key {text!r}: key material is not base64") from exc
    if len(material) != 33 or not material.startswith(COSIGNATURE_ALGORITHM):
        raise CheckpointError(
            f"witness key {text!r}: expected a cosignature/v1 Ed25519 key (0x04 + 32 bytes)"
        )
    key = WitnessKey(name, material[1:])
    if hash_hex != key.key_hash.hex():
        raise CheckpointError(
            f"witness key {text!r}: key hash is {hash_hex!r}, expected {key.key_hash.hex()}"
        )
    return key


def signed_message(checkpoint: Checkpoint, timestamp: int) -> bytes:
    """What a cosignature/v1 signature covers: the header lines, then the checkpoint body."""
    return f"cosignature/v1\ntime {timestamp}\n".encode() + checkpoint.body()


def cosign(checkpoint: Checkpoint, name: str, signer: NoteSigner, timestamp: int) -> str:
    """One cosignature line (with its newline) for ``checkpoint`` at ``timestamp``."""
    if not 0 <= timestamp <= MAX_TIMESTAMP:
        raise CheckpointError(f"timestamp {timestamp} is outside 0..2**63-1")
    key_hash = cosignature_key_hash(name, signer.public_key)
    signature = signer.sign(signed_message(checkpoint, timestamp))
    payload = key_hash + timestamp.to_bytes(8, "big") + signature
    return f"{SIGNATURE_PREFIX}{name} {base64.b64encode(payload).decode('ascii')}\n"


@dataclass(frozen=True)
class Cosigned:
    """A checkpoint with one verified cosignature."""

    checkpoint: Checkpoint
    timestamp: int
    line: str


def verify_cosignature(note: str, witness: WitnessKey) -> Cosigned:
    """Return the checkpoint of ``note`` if ``witness`` cosigned it; else :class:`CheckpointError`.

    Lines by other keys are ignored; a line that claims this witness's key hash but does not
    verify rejects the note. The log's own signature is checked separately.
    """
    checkpoint, signatures = parse_note(note)
    ours = [s for s in signatures if s.key_name == witness.name and s.key_hash == witness.key_hash]
    if not ours:
        raise CheckpointError(
            f"note has no cosignature by witness {witness.name} ({witness.key_hash.hex()})"
        )
    verifier = VerifyKey(witness.public_key)
    for signature in ours:
        if len(signature.signature) != _PAYLOAD_SIZE - 4:
            raise CheckpointError(
                f"cosignature by {witness.name} holds {len(signature.signature) + 4} bytes, "
                f"expected {_PAYLOAD_SIZE} (key hash, timestamp, signature)"
            )
        timestamp = int.from_bytes(signature.signature[:8], "big")
        try:
            verifier.verify(signed_message(checkpoint, timestamp), signature.signature[8:])
        except (BadSignatureError, ValueError) as exc:
            raise CheckpointError(
                f"cosignature by witness {witness.name} ({witness.key_hash.hex()}) does not "
                "verify over the checkpoint body"
            ) from exc
    first = ours[0]
    payload = base64.b64encode(first.key_hash + first.signature).decode("ascii")
    line = f"{SIGNATURE_PREFIX}{first.key_name} {payload}\n"
    return Cosigned(checkpoint, int.from_bytes(first.signature[:8], "big"), line)


def add_signature_lines(note: str, lines: str) -> str:
    """``note`` with more signature lines (each newline-terminated) appended."""
    if not note.endswith("\n") or (lines and not lines.endswith("\n")):
        raise CheckpointError("signed notes and signature lines end with a newline")
    return note + lines
