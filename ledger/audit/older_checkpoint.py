"""An older checkpoint, pasted by an auditor, checked against the log's latest.

The checks ``provledger audit verify --previous-checkpoint`` makes, in the same order and with
the same reason codes (RFC 9162 section 2.1.4): both notes are signed by a trusted key for the
log's origin, the older tree is no larger than the newer, two trees of one size have one
root, and the consistency proof the log serves takes the older root to the newer.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from ledger.audit.bundle.log import trusted_checkpoint
from ledger.audit.bundle.reasons import BundleReason as R
from ledger.crypto.merkle import verify_consistency
from ledger.crypto.signing import Keyring
from ledger.errors import BundleVerificationError, MerkleVerificationError

Checklist = list[tuple[bool, str]]


def check_older_checkpoint(
    pasted: str,
    latest: str,
    origin: str,
    keyring: Keyring,
    proof_for: Callable[[int, int], dict[str, Any]],
) -> tuple[Checklist, str | None]:
    """Each check that held (and the one that failed, last) and the failure's reason code.

    ``proof_for(first, second)`` is the log's consistency proof (base64 hashes)."""
    items: Checklist = []
    note = pasted.replace("\r\n", "\n").strip("\n") + "\n"
    try:
        newer = trusted_checkpoint(
            latest,
            origin,
            keyring,
            "latest checkpoint",
            (
                R.CHECKPOINT_MALFORMED,
                R.CHECKPOINT_ORIGIN_MISMATCH,
                R.CHECKPOINT_KEY_UNTRUSTED,
                R.CHECKPOINT_SIGNATURE_INVALID,
            ),
        )
        items.append((True, f"latest checkpoint signed by a trusted key: size {newer.size}"))
        untrusted = R.PREVIOUS_CHECKPOINT_UNTRUSTED
        older = trusted_checkpoint(note, origin, keyring, "pasted checkpoint", (untrusted,) * 4)
        items.append((True, f"pasted checkpoint signed by a trusted key: size {older.size}"))
        if older.size > newer.size:
            raise BundleVerificationError(
                R.CHECKPOINT_ROLLBACK,
                f"the log's latest checkpoint (size {newer.size}) is older than the pasted one "
                f"(size {older.size}): the log was rolled back",
            )
        if older.size == newer.size:
            if older.root != newer.root:
                raise BundleVerificationError(
                    R.CHECKPOINT_FORK,
                    f"fork: two checkpoints of size {older.size} with different roots",
                )
            items.append((True, "the pasted checkpoint is the latest one"))
            return items, None
        if older.size == 0:
            items.append((True, "an empty tree is a prefix of every tree"))
            return items, None
        proof = proof_for(older.size, newer.size)
        hashes = [base64.b64decode(h) for h in proof["proof"]]
        try:
            verify_consistency(older.size, newer.size, hashes, older.root, newer.root)
        except MerkleVerificationError as exc:
            raise BundleVerificationError(
                R.CONSISTENCY_PROOF_INVALID,
                f"consistency from size {older.size} to {newer.size}: {exc}",
            ) from None
        items.append(
            (
                True,
                f"consistency proof of {len(hashes)} hashes: the tree of size {newer.size} "
                f"extends the tree of size {older.size} (append-only, no fork)",
            )
        )
        return items, None
    except BundleVerificationError as exc:
        items.append((False, f"{exc.reason.value}: {exc.detail}"))
        return items, exc.reason.value
