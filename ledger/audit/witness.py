"""A checkpoint witness: C2SP tlog-witness ``add-checkpoint`` judged against stored state.

A witness remembers, per log it knows, the newest checkpoint it cosigned. It cosigns a new
checkpoint only if the log signed it and a consistency proof (RFC 9162 section 2.1.4) shows
it extends the remembered one; so it never cosigns two views of one log that disagree, nor a
smaller tree after a larger one. The request body (c2sp.org/tlog-witness) is::

    old <size the client believes the witness has>\\n
    <base64 consistency proof hash>\\n      (zero or more, at most 63)
    \\n
    <the checkpoint, a signed note>

Every refusal raises :class:`WitnessError` with a :class:`WitnessRefusal` reason; the HTTP
layer maps reasons to the statuses the spec names (400, 403, 404, 409, 422). The same error
type carries the reasons an auditor's comparison of a local log with a witness can give.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from ledger.crypto.checkpoint import Checkpoint, NoteSigner, parse_note, verify_note
from ledger.crypto.cosignature import cosign
from ledger.crypto.merkle import EMPTY_ROOT, HASH_SIZE, verify_consistency
from ledger.errors import CheckpointError, MerkleVerificationError, WitnessError

MAX_PROOF_HASHES = 63
"""The most consistency proof lines a request may carry."""
MAX_BODY_BYTES = 64 * 1024

_SIZE = re.compile(r"(?:0|[1-9][0-9]{0,19})")


class WitnessRefusal(StrEnum):
    """Why a witness refused a checkpoint, or why a log disagrees with its witness."""

    MALFORMED = "malformed_request"
    UNKNOWN_LOG = "unknown_log"
    NOT_SIGNED_BY_LOG = "not_signed_by_log"
    ROLLBACK = "rollback"
    OLD_SIZE_MISMATCH = "old_size_mismatch"
    FORK = "fork"
    BAD_PROOF = "bad_proof"
    BAD_COSIGNATURE = "bad_cosignature"
    LOG_SHORTER = "log_shorter_than_witnessed"
    LOG_INCONSISTENT = "log_inconsistent_with_witness"
    UNAVAILABLE = "witness_unavailable"


@dataclass(frozen=True)
class AddCheckpoint:
    """A parsed ``add-checkpoint`` request: the client's idea of the witness's size, a proof
    from that size, and the signed checkpoint note."""

    old_size: int
    proof: tuple[bytes, ...]
    note: str


@dataclass(frozen=True)
class WitnessedState:
    """The newest checkpoint a witness cosigned for one log, with the note it cosigned."""

    origin: str
    size: int
    root: bytes
    note: str = ""
    cosignature: str = ""


def _malformed(message: str) -> WitnessError:
    return WitnessError(WitnessRefusal.MALFORMED, message)


def parse_add_checkpoint(body: bytes) -> AddCheckpoint:
    """Parse a tlog-witness ``add-checkpoint`` body; :class:`WitnessError` (malformed) if bad."""
    if len(body) > MAX_BODY_BYTES:
        raise _malformed(f"body is {len(body)} bytes, over {MAX_BODY_BYTES}")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _malformed(f"body is not UTF-8 (byte {exc.start})") from None
    head, newline, rest = text.partition("\n")
    if not newline or not head.startswith("old "):
        raise _malformed("first line must be 'old <size>'")
    if not _SIZE.fullmatch(head[4:]):
        raise _malformed(f"old size {head[4:]!r} is not a canonical decimal number")
    proof: list[bytes] = []
    while True:
        line, newline, rest = rest.partition("\n")
        if not newline:
            raise _malformed("no blank line between the consistency proof and the checkpoint")
        if not line:
            break
        if len(proof) == MAX_PROOF_HASHES:
            raise _malformed(f"consistency proof has more than {MAX_PROOF_HASHES} hashes")
        try:
            value = base64.b64decode(line, validate=True)
        except binascii.Error:
            raise _malformed(f"proof line {len(proof) + 1} is not base64") from None
        if len(value) != HASH_SIZE or base64.b64encode(value).decode("ascii") != line:
            raise _malformed(
                f"proof line {len(proof) + 1} is not a canonical {HASH_SIZE}-byte hash"
            )
        proof.append(value)
    if not rest:
        raise _malformed("no checkpoint after the blank line")
    return AddCheckpoint(int(head[4:]), tuple(proof), rest)


def format_add_checkpoint(old_size: int, proof: Sequence[bytes], note: str) -> bytes:
    """The request body a client sends: the inverse of :func:`parse_add_checkpoint`."""
    lines = [f"old {old_size}", *(base64.b64encode(h).decode("ascii") for h in proof)]
    return ("\n".join(lines) + "\n\n" + note).encode()


LogKeys = Mapping[str, Sequence[bytes]]
"""Per log origin, the Ed25519 public keys that sign its checkpoints (key name = origin)."""


# Over 60 lines on purpose: the checks follow c2sp.org/tlog-witness in its order, each with its
# own status; one function reads against the spec line by line.
def check_add_checkpoint(
    request: AddCheckpoint, logs: LogKeys, current: WitnessedState | None
) -> Checkpoint:
    """Judge ``request`` against the witness's state for its log; return the checkpoint to
    cosign. Checks run in the order of c2sp.org/tlog-witness: the note parses (400), its
    origin is known (404), the log signed it (403), the old size is not past the checkpoint
    (400), the old size is the witness's (409), same size means same root (409), and the
    consistency proof verifies (422)."""
    try:
        checkpoint, _ = parse_note(request.note)
    except CheckpointError as exc:
        raise _malformed(f"checkpoint: {exc}") from None
    keys = logs.get(checkpoint.origin)
    if keys is None:
        raise WitnessError(
            WitnessRefusal.UNKNOWN_LOG, f"this witness does not know the log {checkpoint.origin!r}"
        )
    if not _signed_by_log(request.note, checkpoint.origin, keys):
        raise WitnessError(
            WitnessRefusal.NOT_SIGNED_BY_LOG,
            f"the checkpoint carries no valid signature by a key of {checkpoint.origin}",
        )
    size, root = (0, EMPTY_ROOT) if current is None else (current.size, current.root)
    if request.old_size > checkpoint.size:
        raise WitnessError(
            WitnessRefusal.ROLLBACK,
            f"old size {request.old_size} is larger than the checkpoint's size "
            f"{checkpoint.size}: a log never shrinks",
            size,
        )
    if request.old_size != size:
        raise WitnessError(
            WitnessRefusal.OLD_SIZE_MISMATCH,
            f"old size is {request.old_size} but the witness's size for "
            f"{checkpoint.origin} is {size}",
            size,
        )
    if checkpoint.size == size:
        if request.proof:
            raise WitnessError(
                WitnessRefusal.BAD_PROOF,
                f"proof has {len(request.proof)} hashes, expected none between equal sizes",
            )
        if not hmac.compare_digest(checkpoint.root, root):
            reason = WitnessRefusal.FORK if size else WitnessRefusal.BAD_PROOF
            raise WitnessError(
                reason,
                f"checkpoint of size {size} has root {checkpoint.root.hex()} but the witness "
                f"cosigned root {root.hex()} at that size",
                size,
            )
        return checkpoint
    if size == 0:
        if request.proof:
            raise WitnessError(
                WitnessRefusal.BAD_PROOF,
                f"proof has {len(request.proof)} hashes, expected none from size 0",
            )
        return checkpoint
    try:
        verify_consistency(size, checkpoint.size, list(request.proof), root, checkpoint.root)
    except MerkleVerificationError as exc:
        raise WitnessError(
            WitnessRefusal.BAD_PROOF,
            f"consistency proof from {size} to {checkpoint.size} does not verify: {exc}",
            size,
        ) from None
    return checkpoint


def _signed_by_log(note: str, origin: str, keys: Sequence[bytes]) -> bool:
    for public_key in keys:
        try:
            verify_note(note, origin, public_key, origin=origin)
        except CheckpointError:
            continue
        return True
    return False


class WitnessStateStore(Protocol):
    """Where a witness keeps its per-log state; :meth:`save` is durable before it returns."""

    def load(self, origin: str) -> WitnessedState | None:
        """The newest cosigned state of ``origin``, or None if never cosigned."""

    def save(self, state: WitnessedState) -> None:
        """Persist ``state`` durably (fsynced) before returning."""


class Witness:
    """Checks, records and cosigns checkpoints, one request at a time."""

    def __init__(
        self, name: str, signer: NoteSigner, logs: LogKeys, store: WitnessStateStore
    ) -> None:
        self.name = name
        self.signer = signer
        self.logs = logs
        self.store = store
        self._lock = threading.Lock()

    def add_checkpoint(self, body: bytes, now: int | None = None) -> str:
        """Handle one ``add-checkpoint`` body; return the cosignature line.

        The new state is stored durably before the cosignature leaves the witness, so a
        crash can never let it cosign a checkpoint it would not remember.
        """
        request = parse_add_checkpoint(body)
        with self._lock:
            origin = _origin_of(request.note)
            current = self.store.load(origin) if origin in self.logs else None
            checkpoint = check_add_checkpoint(request, self.logs, current)
            timestamp = int(time.time()) if now is None else now
            if current is not None and current.cosignature:
                timestamp = max(timestamp, _timestamp_of(current.cosignature))
            line = cosign(checkpoint, self.name, self.signer, timestamp)
            self.store.save(
                WitnessedState(
                    checkpoint.origin, checkpoint.size, checkpoint.root, request.note, line
                )
            )
        return line

    def latest(self, origin: str) -> str:
        """The newest cosigned checkpoint of ``origin``: its note and this witness's line."""
        state = self.store.load(origin) if origin in self.logs else None
        if state is None:
            raise WitnessError(
                WitnessRefusal.UNKNOWN_LOG, f"this witness has cosigned nothing for {origin!r}"
            )
        return state.note + state.cosignature


def _origin_of(note: str) -> str:
    return note.partition("\n")[0]


def _timestamp_of(line: str) -> int:
    """The timestamp of a cosignature line this witness wrote (never goes backwards)."""
    payload = base64.b64decode(line.rstrip("\n").rpartition(" ")[2])
    return int.from_bytes(payload[4:12], "big")
