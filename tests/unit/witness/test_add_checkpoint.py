"""``add-checkpoint`` judged against a witness's state: acceptance, then tamper vectors named
by the attack or mistake they simulate, each refused with its reason and message.

The log has 9 leaves; the witness last cosigned size 5. A forked log shares nothing with it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.audit.witness import (
    MAX_PROOF_HASHES,
    AddCheckpoint,
    WitnessedState,
    WitnessRefusal,
    check_add_checkpoint,
    format_add_checkpoint,
    parse_add_checkpoint,
)
from ledger.crypto.checkpoint import Checkpoint, sign_note
from ledger.crypto.merkle import consistency_proof, leaf_hash, root_hash
from ledger.crypto.signing import SigningKey
from ledger.errors import WitnessError

ORIGIN = "ledger.example/log"
LOG_KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
OTHER_KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33))))
LOGS = {ORIGIN: [LOG_KEY.public_key]}
LEAVES = [leaf_hash(f"entry {i}".encode()) for i in range(9)]
FORKED = [leaf_hash(f"forged {i}".encode()) for i in range(9)]
ROOT = {size: root_hash(LEAVES[:size]) for size in range(1, 10)}
STATE = WitnessedState(ORIGIN, 5, ROOT[5])


def _note(
    size: int, leaves: list[bytes] = LEAVES, key: SigningKey = LOG_KEY, origin: str = ORIGIN
) -> str:
    return sign_note(Checkpoint(origin, size, root_hash(leaves[:size])), origin, key)


def _request(old: int, proof: list[bytes], note: str) -> AddCheckpoint:
    return parse_add_checkpoint(format_add_checkpoint(old, proof, note))


def _flip(value: bytes) -> bytes:
    return bytes([value[0] ^ 1]) + value[1:]


PROOF_5_9 = consistency_proof(LEAVES, 5)


def test_a_checkpoint_that_extends_the_witnessed_one_is_accepted() -> None:
    checkpoint = check_add_checkpoint(_request(5, PROOF_5_9, _note(9)), LOGS, STATE)
    assert checkpoint == Checkpoint(ORIGIN, 9, ROOT[9])


def test_the_first_checkpoint_of_a_log_needs_old_size_0_and_no_proof() -> None:
    checkpoint = check_add_checkpoint(_request(0, [], _note(9)), LOGS, None)
    assert checkpoint.size == 9


def test_the_witnessed_checkpoint_itself_is_accepted_again() -> None:
    assert check_add_checkpoint(_request(5, [], _note(5)), LOGS, STATE).root == ROOT[5]


def test_the_request_body_round_trips() -> None:
    body = format_add_checkpoint(5, PROOF_5_9, _note(9))
    assert body.startswith(b"old 5\n" + base64.b64encode(PROOF_5_9[0]) + b"\n")
    assert b"\n\n" + _note(9).encode() in body
    assert parse_add_checkpoint(body) == AddCheckpoint(5, tuple(PROOF_5_9), _note(9))


@dataclass(frozen=True)
class Vector:
    """One refused request: what it simulates, what the witness must say."""

    request: AddCheckpoint
    reason: WitnessRefusal
    message: str
    state: WitnessedState | None = STATE
    size: int | None = None


VECTORS = {
    "rollback-to-a-smaller-tree": Vector(
        _request(5, [], _note(3)),
        WitnessRefusal.ROLLBACK,
        "old size 5 is larger than the checkpoint's size 3: a log never shrinks",
        size=5,
    ),
    "stale-old-size": Vector(
        _request(4, consistency_proof(LEAVES, 4), _note(9)),
        WitnessRefusal.OLD_SIZE_MISMATCH,
        f"old size is 4 but the witness's size for {ORIGIN} is 5",
        size=5,
    ),
    "old-size-0-after-cosigning": Vector(
        _request(0, [], _note(9)),
        WitnessRefusal.OLD_SIZE_MISMATCH,
        f"old size is 0 but the witness's size for {ORIGIN} is 5",
        size=5,
    ),
    "fork-at-the-witnessed-size": Vector(
        _request(5, [], _note(5, FORKED)),
        WitnessRefusal.FORK,
        f"checkpoint of size 5 has root {root_hash(FORKED[:5]).hex()} but the witness "
        f"cosigned root {ROOT[5].hex()} at that size",
        size=5,
    ),
    "fork-with-the-forked-logs-own-proof": Vector(
        _request(5, consistency_proof(FORKED, 5), _note(9, FORKED)),
        WitnessRefusal.BAD_PROOF,
        "consistency proof from 5 to 9 does not verify: computed root1",
    ),
    "flipped-proof-hash": Vector(
        _request(5, [_flip(PROOF_5_9[0]), *PROOF_5_9[1:]], _note(9)),
        WitnessRefusal.BAD_PROOF,
        "consistency proof from 5 to 9 does not verify: computed root1",
    ),
    "truncated-proof": Vector(
        _request(5, PROOF_5_9[:-1], _note(9)),
        WitnessRefusal.BAD_PROOF,
        f"proof has {len(PROOF_5_9) - 1} hashes, expected {len(PROOF_5_9)} from size 5 to size 9",
    ),
    "proof-from-size-0": Vector(
        _request(0, [ROOT[1]], _note(9)),
        WitnessRefusal.BAD_PROOF,
        "proof has 1 hashes, expected none from size 0",
        state=None,
    ),
    "proof-between-equal-sizes": Vector(
        _request(5, [ROOT[1]], _note(5)),
        WitnessRefusal.BAD_PROOF,
        "proof has 1 hashes, expected none between equal sizes",
    ),
    "empty-tree-with-a-non-empty-root": Vector(
        _request(0, [], sign_note(Checkpoint(ORIGIN, 0, ROOT[1]), ORIGIN, LOG_KEY)),
        WitnessRefusal.BAD_PROOF,
        f"checkpoint of size 0 has root {ROOT[1].hex()}",
        state=None,
    ),
    "signed-by-another-key": Vector(
        _request(5, PROOF_5_9, _note(9, key=OTHER_KEY)),
        WitnessRefusal.NOT_SIGNED_BY_LOG,
        f"the checkpoint carries no valid signature by a key of {ORIGIN}",
    ),
    "size-edited-after-signing": Vector(
        _request(5, PROOF_5_9, _note(8).replace("\n8\n", "\n9\n", 1)),
        WitnessRefusal.NOT_SIGNED_BY_LOG,
        f"the checkpoint carries no valid signature by a key of {ORIGIN}",
    ),
    "unknown-origin": Vector(
        _request(0, [], _note(9, origin="other.example/log")),
        WitnessRefusal.UNKNOWN_LOG,
        "this witness does not know the log 'other.example/log'",
    ),
    "checkpoint-not-a-signed-note": Vector(
        _request(5, [], f"{ORIGIN}\n9\n{base64.b64encode(ROOT[9]).decode()}\n"),
        WitnessRefusal.MALFORMED,
        "checkpoint: signed note has no blank line between the checkpoint and its signatures",
    ),
}


@pytest.mark.parametrize("name", list(VECTORS))
def test_tampered_request_is_refused_with_its_reason(name: str) -> None:
    vector = VECTORS[name]
    with pytest.raises(WitnessError) as caught:
        check_add_checkpoint(vector.request, LOGS, vector.state)
    assert caught.value.reason is vector.reason
    assert vector.message in caught.value.message
    assert str(caught.value).startswith(vector.reason.value + ": ")
    if vector.size is not None:
        assert caught.value.size == vector.size


NOTE = _note(9).encode()
HASH = base64.b64encode(ROOT[1])

MALFORMED = {
    "no-old-line": (b"5\n\n" + NOTE, "first line must be 'old <size>'"),
    "old-size-with-leading-zero": (b"old 05\n\n" + NOTE, "old size '05' is not a canonical"),
    "old-size-negative": (b"old -1\n\n" + NOTE, "old size '-1' is not a canonical"),
    "proof-line-not-base64": (b"old 5\n%%%\n\n" + NOTE, "proof line 1 is not base64"),
    "proof-hash-too-short": (
        b"old 5\n" + base64.b64encode(b"x" * 31) + b"\n\n" + NOTE,
        "proof line 1 is not a canonical 32-byte hash",
    ),
    "too-many-proof-lines": (
        b"old 5\n" + (HASH + b"\n") * (MAX_PROOF_HASHES + 1) + b"\n" + NOTE,
        f"consistency proof has more than {MAX_PROOF_HASHES} hashes",
    ),
    "no-blank-line-before-the-checkpoint": (
        b"old 5\n" + HASH,
        "no blank line between the consistency proof and the checkpoint",
    ),
    "no-checkpoint": (b"old 5\n\n", "no checkpoint after the blank line"),
    "not-utf-8": (b"old 5\n\n\xff" + NOTE, "body is not UTF-8 (byte 7)"),
    "oversized-body": (b"old 5\n\n" + b"x" * 70_000, "body is 70007 bytes, over 65536"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_body_is_refused_as_malformed(name: str) -> None:
    body, message = MALFORMED[name]
    with pytest.raises(WitnessError) as caught:
        parse_add_checkpoint(body)
    assert caught.value.reason is WitnessRefusal.MALFORMED
    assert message in caught.value.message
