"""Signed checkpoints of the Merkle log: C2SP tlog-checkpoint bodies in C2SP signed notes.

A checkpoint body is three lines, each ending in a newline (c2sp.org/tlog-checkpoint): the
log's origin, the tree size in decimal, and the base64 root hash. This ledger writes no
extension lines, and refuses checkpoints that carry any. The signed note (c2sp.org/signed-note)
is the body, a blank line, then one line per signature::

    — <key name> <base64(key hash || Ed25519 signature)>

where the key hash is the first 4 bytes of SHA-256(key name || "\\n" || 0x01 || public key),
0x01 being the signed-note algorithm byte for Ed25519. The signature covers the body only.

Every malformed, unsigned or badly signed note raises :class:`CheckpointError`; Merkle proof
failures stay with :class:`ledger.crypto.merkle.MerkleVerificationError`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from typing import Protocol

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from ledger.crypto.merkle import HASH_SIZE
from ledger.errors import CheckpointError

ED25519_ALGORITHM = b"\x01"
"""C2SP signed-note signature type for Ed25519."""
SIGNATURE_PREFIX = "\u2014 "
"""Every signature line starts with an em dash (U+2014) and a space."""
MAX_SIGNATURES = 100
"""C2SP signed-note lets verifiers reject notes with more signatures than this."""
MAX_TREE_SIZE = 2**64 - 1

_SIZE = re.compile(r"(?:0|[1-9][0-9]*)")  # ASCII decimal, no sign, no leading zeros


class NoteSigner(Protocol):
    """What signs a note: :class:`ledger.crypto.signing.SigningKey` fits."""

    @property
    def public_key(self) -> bytes:
        """The raw 32-byte Ed25519 public key."""

    def sign(self, message: bytes) -> bytes:
        """A 64-byte Ed25519 signature of ``message``."""


def _check_name(name: str, what: str) -> None:
    """Key names and origins: non-empty, no Unicode spaces, no plus, no control characters."""
    if not name:
        raise CheckpointError(f"{what} is empty, expected a name such as example.com/log")
    for char in name:
        if char.isspace() or char == "+" or ord(char) < 0x20 or ord(char) == 0x7F:
            raise CheckpointError(
                f"{what} {name!r} contains {char!r}: expected no spaces, plus signs "
                "or control characters"
            )


@dataclass(frozen=True)
class Checkpoint:
    """One signed statement of the log: its origin, tree size and root hash."""

    origin: str
    size: int
    root: bytes

    def __post_init__(self) -> None:
        _check_name(self.origin, "origin")
        if isinstance(self.size, bool) or not isinstance(self.size, int):
            raise CheckpointError(f"tree size is {self.size!r}, expected an integer")
        if not 0 <= self.size <= MAX_TREE_SIZE:
            raise CheckpointError(f"tree size {self.size} is outside 0..2**64-1")
        if not isinstance(self.root, bytes) or len(self.root) != HASH_SIZE:
            raise CheckpointError(f"root hash must be {HASH_SIZE} bytes")

    def body(self) -> bytes:
        """The C2SP tlog-checkpoint note text: origin, size and root lines."""
        root = base64.b64encode(self.root).decode("ascii")
        return f"{self.origin}\n{self.size}\n{root}\n".encode()


@dataclass(frozen=True)
class NoteSignature:
    """One signature line of a signed note, not yet verified."""

    key_name: str
    key_hash: bytes
    signature: bytes


def key_hash(key_name: str, public_key: bytes) -> bytes:
    """The 4-byte C2SP signed-note key hash of an Ed25519 key."""
    _check_name(key_name, "key name")
    _check_public_key(public_key)
    material = key_name.encode() + b"\n" + ED25519_ALGORITHM + public_key
    return hashlib.sha256(material).digest()[:4]


def vkey(key_name: str, public_key: bytes) -> str:
    """The C2SP verifier key ``<name>+<hex key hash>+<base64(0x01 || public key)>``."""
    encoded = base64.b64encode(ED25519_ALGORITHM + public_key).decode("ascii")
    return f"{key_name}+{key_hash(key_name, public_key).hex()}+{encoded}"


def parse_vkey(text: str) -> tuple[str, bytes]:
    """Read a verifier key back into ``(key name, public key)``, checking its key hash."""
    name, _, rest = text.partition("+")
    hash_hex, _, encoded = rest.partition("+")
    try:
        material = base64.b64decode(encoded, validate=True)
    except binascii.Error as exc:
        raise CheckpointError(f"verifier key {text!r}: key material is not base64") from exc
    if not material.startswith(ED25519_ALGORITHM) or len(material) != 33:
        raise CheckpointError(f"verifier key {text!r}: expected an Ed25519 key (0x01 + 32 bytes)")
    public_key = material[1:]
    expected = key_hash(name, public_key).hex()
    if hash_hex != expected:
        raise CheckpointError(
            f"verifier key {text!r}: key hash is {hash_hex!r}, expected {expected}"
        )
    return name, public_key


def _check_public_key(public_key: bytes) -> None:
    if not isinstance(public_key, bytes) or len(public_key) != 32:
        raise CheckpointError("an Ed25519 public key is 32 bytes")


def sign_note(checkpoint: Checkpoint, key_name: str, signing_key: NoteSigner) -> str:
    """Sign ``checkpoint`` as a C2SP signed note with one Ed25519 signature line."""
    body = checkpoint.body()
    blob = key_hash(key_name, signing_key.public_key) + signing_key.sign(body)
    encoded = base64.b64encode(blob).decode("ascii")
    return f"{body.decode()}\n{SIGNATURE_PREFIX}{key_name} {encoded}\n"


def parse_note(text: str) -> tuple[Checkpoint, list[NoteSignature]]:
    """Split a signed note into its checkpoint and its signature lines, verifying nothing."""
    body, signatures = _split_note(text)
    return _parse_body(body), signatures


def verify_note(
    text: str, key_name: str, public_key: bytes, *, origin: str | None = None
) -> Checkpoint:
    """Return the checkpoint in ``text`` if ``key_name``/``public_key`` signed it.

    Signatures by other keys are ignored, as C2SP signed-note requires; a signature line
    that claims this key but does not verify rejects the note. ``origin``, when given, must
    equal the checkpoint's origin.
    """
    body, signatures = _split_note(text)
    checkpoint = _parse_body(body)
    if origin is not None and checkpoint.origin != origin:
        raise CheckpointError(f"checkpoint origin is {checkpoint.origin!r}, expected {origin!r}")
    expected_hash = key_hash(key_name, public_key)
    ours = [s for s in signatures if s.key_name == key_name and s.key_hash == expected_hash]
    if not ours:
        found = ", ".join(f"{s.key_name} ({s.key_hash.hex()})" for s in signatures)
        raise CheckpointError(
            f"note has no signature by {key_name} ({expected_hash.hex()}); found: {found}"
        )
    verifier = VerifyKey(public_key)
    message = body.encode()
    for signature in ours:
        try:
            verifier.verify(message, signature.signature)
        except (BadSignatureError, ValueError) as exc:
            raise CheckpointError(
                f"signature by {key_name} ({expected_hash.hex()}) does not verify "
                "over the checkpoint body"
            ) from exc
    return checkpoint


def _split_note(text: str) -> tuple[str, list[NoteSignature]]:
    if not isinstance(text, str):
        raise CheckpointError(f"a signed note is text, got {type(text).__name__}")
    if any(ord(c) < 0x20 and c != "\n" for c in text):
        raise CheckpointError("signed note contains a control character other than newline")
    split = text.rfind("\n\n")
    if split < 0:
        raise CheckpointError(
            "signed note has no blank line between the checkpoint and its signatures"
        )
    body, tail = text[: split + 1], text[split + 2 :]
    if not tail.endswith("\n"):
        raise CheckpointError("signed note does not end with a newline after its signatures")
    lines = tail[:-1].split("\n")
    if len(lines) > MAX_SIGNATURES:
        raise CheckpointError(f"signed note has {len(lines)} signatures, over {MAX_SIGNATURES}")
    return body, [_parse_signature_line(line) for line in lines]


def _parse_signature_line(line: str) -> NoteSignature:
    if not line.startswith(SIGNATURE_PREFIX):
        raise CheckpointError(f"signature line {line!r} does not start with an em dash and space")
    name, space, encoded = line[len(SIGNATURE_PREFIX) :].partition(" ")
    if not space:
        raise CheckpointError(f"signature line {line!r} is not '— <key name> <base64>'")
    _check_name(name, "signature key name")
    try:
        blob = base64.b64decode(encoded, validate=True)
    except binascii.Error as exc:
        raise CheckpointError(f"signature line {line!r} does not hold base64") from exc
    if len(blob) < 5:
        raise CheckpointError(f"signature line {line!r} holds {len(blob)} bytes, expected > 4")
    return NoteSignature(name, blob[:4], blob[4:])


def _parse_body(body: str) -> Checkpoint:
    lines = body.split("\n")[:-1]  # the body ends in "\n"
    if len(lines) != 3:
        raise CheckpointError(
            f"checkpoint has {len(lines)} lines, expected 3 (origin, size, root hash)"
        )
    origin, size_text, root_text = lines
    if not _SIZE.fullmatch(size_text):
        raise CheckpointError(
            f"tree size {size_text!r} is not canonical: expected ASCII decimal digits "
            "without sign, spaces or leading zeros"
        )
    try:
        root = base64.b64decode(root_text, validate=True)
    except binascii.Error as exc:
        raise CheckpointError(f"root hash {root_text!r} is not base64") from exc
    if base64.b64encode(root).decode("ascii") != root_text:
        raise CheckpointError(f"root hash {root_text!r} is not canonical padded base64")
    if len(root) != HASH_SIZE:
        raise CheckpointError(f"root hash is {len(root)} bytes, expected {HASH_SIZE}")
    return Checkpoint(origin, int(size_text), root)
