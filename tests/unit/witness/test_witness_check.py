"""An auditor's comparison of a bundle's checkpoint with the witnessed one, by tampering."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.audit.witness import WitnessRefusal
from ledger.audit.witness_check import check_bundle_against_witness, verify_witnessed_note
from ledger.crypto.checkpoint import Checkpoint, sign_note
from ledger.crypto.cosignature import WitnessKey, add_signature_lines, cosign
from ledger.crypto.merkle import consistency_proof, leaf_hash, root_hash
from ledger.crypto.signing import Keyring, PublicKeyRecord, SigningKey, key_id_for
from ledger.errors import WitnessError

ORIGIN = "ledger.example/log"
LOG_KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
OTHER_KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33))))
WITNESS_SIGNER = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34))))
WITNESS = WitnessKey("witness.example/w1", WITNESS_SIGNER.public_key)
KEYRING = Keyring(
    [PublicKeyRecord(key_id_for(LOG_KEY.public_key), LOG_KEY.public_key, "active", "2026")]
)
LEAVES = [leaf_hash(f"entry {i}".encode()) for i in range(9)]
FORKED = [leaf_hash(f"forged {i}".encode()) for i in range(9)]


def _checkpoint(size: int, leaves: list[bytes] = LEAVES) -> Checkpoint:
    return Checkpoint(ORIGIN, size, root_hash(leaves[:size]))


def _witnessed(size: int, leaves: list[bytes] = LEAVES, key: SigningKey = LOG_KEY) -> str:
    checkpoint = _checkpoint(size, leaves)
    note = sign_note(checkpoint, ORIGIN, key)
    return add_signature_lines(note, cosign(checkpoint, WITNESS.name, WITNESS_SIGNER, 1000))


def _bundle(size: int, leaves: list[bytes] = LEAVES, since: int | None = None) -> dict[str, Any]:
    consistency = None
    if since is not None:
        proof = consistency_proof(leaves[:size], since)
        consistency = {
            "first": since,
            "second": size,
            "proof": [base64.b64encode(h).decode() for h in proof],
        }
    return {
        "origin": ORIGIN,
        "checkpoint": sign_note(_checkpoint(size, leaves), ORIGIN, LOG_KEY),
        "consistency": consistency,
    }


def test_a_bundle_at_the_witnessed_checkpoint_passes() -> None:
    cosigned = check_bundle_against_witness(_bundle(5), _witnessed(5), WITNESS, KEYRING)
    assert (cosigned.checkpoint.size, cosigned.timestamp) == (5, 1000)


def test_a_newer_bundle_with_a_proof_from_the_witnessed_size_passes() -> None:
    cosigned = check_bundle_against_witness(_bundle(9, since=5), _witnessed(5), WITNESS, KEYRING)
    assert cosigned.checkpoint.size == 5


def _flipped_proof() -> dict[str, Any]:
    bundle = _bundle(9, since=5)
    first = base64.b64decode(bundle["consistency"]["proof"][0])
    bundle["consistency"]["proof"][0] = base64.b64encode(bytes([first[0] ^ 1]) + first[1:]).decode()
    return bundle


VECTORS = {
    "bundle-older-than-the-witness": (
        _bundle(5),
        _witnessed(9),
        WitnessRefusal.LOG_SHORTER,
        "the bundle's checkpoint has size 5 but the witness witness.example/w1 cosigned size 9",
    ),
    "fork-at-the-witnessed-size": (
        _bundle(5, FORKED),
        _witnessed(5),
        WitnessRefusal.FORK,
        "both have size 5 but different roots",
    ),
    "newer-bundle-without-a-proof": (
        _bundle(9),
        _witnessed(5),
        WitnessRefusal.BAD_PROOF,
        "no consistency proof from the witnessed size 5: request it with ?since_size=5",
    ),
    "newer-bundle-with-a-proof-from-another-size": (
        _bundle(9, since=4),
        _witnessed(5),
        WitnessRefusal.BAD_PROOF,
        "no consistency proof from the witnessed size 5",
    ),
    "forked-bundle-with-its-own-proof": (
        _bundle(9, FORKED, since=5),
        _witnessed(5),
        WitnessRefusal.LOG_INCONSISTENT,
        "the bundle's checkpoint does not extend the witnessed one: computed root1",
    ),
    "flipped-proof-hash": (
        _flipped_proof(),
        _witnessed(5),
        WitnessRefusal.LOG_INCONSISTENT,
        "does not extend the witnessed one",
    ),
    "witnessed-note-without-cosignature": (
        _bundle(5),
        sign_note(_checkpoint(5), ORIGIN, LOG_KEY),
        WitnessRefusal.BAD_COSIGNATURE,
        "note has no cosignature by witness witness.example/w1",
    ),
    "witnessed-note-not-signed-by-the-log": (
        _bundle(5),
        _witnessed(5, key=OTHER_KEY),
        WitnessRefusal.NOT_SIGNED_BY_LOG,
        f"the witnessed checkpoint is not signed by a trusted key of {ORIGIN}",
    ),
    "bundle-checkpoint-not-signed-by-the-log": (
        {**_bundle(5), "checkpoint": sign_note(_checkpoint(5), ORIGIN, OTHER_KEY)},
        _witnessed(5),
        WitnessRefusal.NOT_SIGNED_BY_LOG,
        f"the bundle's checkpoint is not signed by a trusted key of {ORIGIN}",
    ),
    "bundle-of-another-log": (
        {**_bundle(5), "origin": "other.example/log"},
        _witnessed(5),
        WitnessRefusal.UNKNOWN_LOG,
        f"the witnessed checkpoint is of {ORIGIN!r}, expected 'other.example/log'",
    ),
}


@pytest.mark.parametrize("name", list(VECTORS))
def test_bundle_that_contradicts_the_witness_is_refused(name: str) -> None:
    bundle, note, reason, message = VECTORS[name]
    with pytest.raises(WitnessError) as caught:
        check_bundle_against_witness(bundle, note, WITNESS, KEYRING)
    assert caught.value.reason is reason
    assert message in caught.value.message


def test_a_cosignature_by_another_witness_is_not_trusted() -> None:
    impostor = WitnessKey(WITNESS.name, OTHER_KEY.public_key)
    with pytest.raises(WitnessError) as caught:
        verify_witnessed_note(_witnessed(5), impostor, KEYRING, ORIGIN)
    assert caught.value.reason is WitnessRefusal.BAD_COSIGNATURE
