"""An older checkpoint pasted into the transparency page, checked against the latest, by the
tampering each check catches (named as the audit bundle's reason codes)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.audit.older_checkpoint import check_older_checkpoint
from ledger.crypto.checkpoint import Checkpoint, sign_note
from ledger.crypto.merkle import consistency_proof, leaf_hash, root_hash
from ledger.crypto.signing import Keyring, PublicKeyRecord, SigningKey, key_id_for

ORIGIN = "ledger.example/log"
LOG_KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
OTHER_KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33))))
KEYRING = Keyring(
    [PublicKeyRecord(key_id_for(LOG_KEY.public_key), LOG_KEY.public_key, "active", "2026")]
)
LEAVES = [leaf_hash(f"entry {i}".encode()) for i in range(9)]
FORKED = [leaf_hash(f"forged {i}".encode()) for i in range(9)]


def _note(size: int, leaves: list[bytes] = LEAVES, key: SigningKey = LOG_KEY) -> str:
    return sign_note(Checkpoint(ORIGIN, size, root_hash(leaves[:size])), ORIGIN, key)


def _proofs(leaves: list[bytes]) -> Any:
    def proof(first: int, second: int) -> dict[str, Any]:
        hashes = consistency_proof(leaves[:second], first)
        return {"proof": [base64.b64encode(h).decode() for h in hashes]}

    return proof


def test_a_checkpoint_the_log_grew_from_is_consistent() -> None:
    items, reason = check_older_checkpoint(
        _note(4).replace("\n", "\r\n"), _note(9), ORIGIN, KEYRING, _proofs(LEAVES)
    )
    assert reason is None
    assert all(ok for ok, _ in items)
    assert "extends the tree of size 4" in items[-1][1]


def test_the_latest_checkpoint_itself_is_consistent() -> None:
    items, reason = check_older_checkpoint(_note(9), _note(9), ORIGIN, KEYRING, _proofs(LEAVES))
    assert reason is None
    assert items[-1] == (True, "the pasted checkpoint is the latest one")


@pytest.mark.parametrize(
    ("pasted", "latest", "leaves", "expected"),
    [
        ("untrusted-key", 9, LEAVES, "previous-checkpoint-untrusted"),
        ("rollback", 4, LEAVES, "checkpoint-rollback"),
        ("fork-same-size", 9, FORKED, "checkpoint-fork"),
        ("fork-proof", 9, FORKED, "consistency-proof-invalid"),
    ],
)
def test_a_tampered_history_is_refused_with_its_reason(
    pasted: str, latest: int, leaves: list[bytes], expected: str
) -> None:
    older = {
        "untrusted-key": _note(4, key=OTHER_KEY),
        "rollback": _note(9),
        "fork-same-size": _note(9),
        "fork-proof": _note(4),
    }[pasted]
    items, reason = check_older_checkpoint(
        older, _note(latest, leaves), ORIGIN, KEYRING, _proofs(leaves)
    )
    assert reason == expected
    assert items[-1][0] is False
    assert items[-1][1].startswith(expected + ":")
