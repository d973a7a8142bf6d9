"""C2SP tlog-cosignature/v1: key hash, verifier key, signed message, line layout, tampering."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.crypto.checkpoint import Checkpoint, sign_note, verify_note, vkey
from ledger.crypto.cosignature import (
    WitnessKey,
    add_signature_lines,
    cosign,
    cosignature_key_hash,
    parse_witness_vkey,
    signed_message,
    verify_cosignature,
    witness_vkey,
)
from ledger.crypto.merkle import leaf_hash, root_hash
from ledger.crypto.signing import SigningKey, verify_with_cryptography
from ledger.errors import CheckpointError

ORIGIN = "ledger.example/log"
WITNESS_NAME = "witness.example/w1"
LOG_KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
WITNESS_SIGNER = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34))))
WITNESS = WitnessKey(WITNESS_NAME, WITNESS_SIGNER.public_key)
CHECKPOINT = Checkpoint(ORIGIN, 9, root_hash([leaf_hash(f"entry {i}".encode()) for i in range(9)]))
NOTE = sign_note(CHECKPOINT, ORIGIN, LOG_KEY)
TIME = 1_700_000_000


def test_key_hash_is_sha256_of_name_newline_0x04_and_key() -> None:
    expected = hashlib.sha256(WITNESS_NAME.encode() + b"\n\x04" + WITNESS.public_key).digest()
    assert cosignature_key_hash(WITNESS_NAME, WITNESS.public_key) == expected[:4]
    assert WITNESS.key_hash == expected[:4]


def test_verifier_key_carries_type_0x04_and_round_trips() -> None:
    text = witness_vkey(WITNESS_NAME, WITNESS.public_key)
    name, hash_hex, material = text.split("+", 2)
    assert (name, hash_hex) == (WITNESS_NAME, WITNESS.key_hash.hex())
    assert base64.b64decode(material) == b"\x04" + WITNESS.public_key
    assert parse_witness_vkey(text) == WITNESS


def test_a_log_verifier_key_is_not_accepted_as_a_witness_key() -> None:
    with pytest.raises(CheckpointError, match=r"expected a cosignature/v1 Ed25519 key \(0x04"):
        parse_witness_vkey(vkey(WITNESS_NAME, WITNESS.public_key))


def test_a_witness_key_with_a_wrong_key_hash_is_refused() -> None:
    name, _, material = WITNESS.vkey.split("+", 2)
    with pytest.raises(
        CheckpointError, match=f"key hash is '00000000', expected {WITNESS.key_hash.hex()}"
    ):
        parse_witness_vkey(f"{name}+00000000+{material}")


def test_signed_message_is_the_cosignature_header_then_the_checkpoint_body() -> None:
    assert signed_message(CHECKPOINT, TIME) == (
        b"cosignature/v1\ntime 1700000000\n" + CHECKPOINT.body()
    )


def test_a_cosignature_line_holds_key_hash_big_endian_time_and_signature() -> None:
    line = cosign(CHECKPOINT, WITNESS_NAME, WITNESS_SIGNER, TIME)
    assert line.startswith(f"\u2014 {WITNESS_NAME} ")
    assert line.endswith("\n")
    payload = base64.b64decode(line.rstrip("\n").rpartition(" ")[2])
    assert len(payload) == 76
    assert payload[:4] == WITNESS.key_hash
    assert payload[4:12] == TIME.to_bytes(8, "big")
    message = signed_message(CHECKPOINT, TIME)
    assert verify_with_cryptography(WITNESS.public_key, message, payload[12:])


def test_a_cosigned_note_verifies_for_the_witness_and_still_for_the_log() -> None:
    line = cosign(CHECKPOINT, WITNESS_NAME, WITNESS_SIGNER, TIME)
    note = add_signature_lines(NOTE, line)
    cosigned = verify_cosignature(note, WITNESS)
    assert (cosigned.checkpoint, cosigned.timestamp, cosigned.line) == (CHECKPOINT, TIME, line)
    assert verify_note(note, ORIGIN, LOG_KEY.public_key, origin=ORIGIN) == CHECKPOINT


def _cosigned(edit: tuple[str, str] | None = None) -> str:
    note = add_signature_lines(NOTE, cosign(CHECKPOINT, WITNESS_NAME, WITNESS_SIGNER, TIME))
    if edit is None:
        return note
    assert edit[0] in note
    return note.replace(*edit, 1)


def _edit_payload(edit: Callable[[bytes], bytes]) -> str:
    line = cosign(CHECKPOINT, WITNESS_NAME, WITNESS_SIGNER, TIME)
    payload = base64.b64decode(line.rstrip("\n").rpartition(" ")[2])
    return f"\u2014 {WITNESS_NAME} {base64.b64encode(edit(payload)).decode()}\n"


OTHER_SIGNER = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(5, 37))))

TAMPERED = [
    pytest.param(NOTE, "note has no cosignature by witness", id="no-cosignature"),
    pytest.param(
        _cosigned(("\n9\n", "\n10\n")),
        "does not verify over the checkpoint body",
        id="edited-size",
    ),
    pytest.param(
        add_signature_lines(NOTE, cosign(CHECKPOINT, WITNESS_NAME, OTHER_SIGNER, TIME)),
        "note has no cosignature by witness",
        id="cosigned-by-another-key",
    ),
    pytest.param(
        add_signature_lines(NOTE, _edit_payload(lambda p: p[:11] + bytes([p[11] ^ 1]) + p[12:])),
        "does not verify over the checkpoint body",
        id="edited-timestamp",
    ),
    pytest.param(
        add_signature_lines(
            NOTE,
            f"\u2014 {WITNESS_NAME} "
            + base64.b64encode(WITNESS.key_hash + WITNESS_SIGNER.sign(CHECKPOINT.body())).decode()
            + "\n",
        ),
        "holds 68 bytes, expected 76",
        id="plain-note-signature-under-the-witness-key",
    ),
]


@pytest.mark.parametrize(("note", "message"), TAMPERED)
def test_tampered_cosignatures_are_rejected(note: str, message: str) -> None:
    with pytest.raises(CheckpointError, match=message):
        verify_cosignature(note, WITNESS)
