"""Tampered proofs, named by what they simulate: each is rejected with expected-versus-found.

The tree has 9 leaves; the inclusion proof is for leaf 3 and the consistency proof runs from
size 5 to size 9 (and from 4, a power of two, where the verifier supplies root1 itself).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from ledger.crypto.merkle import (
    EMPTY_ROOT,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    root_hash,
    verify_consistency,
    verify_inclusion,
)
from ledger.errors import MerkleVerificationError

LEAVES = [leaf_hash(f"entry {i}".encode()) for i in range(9)]
ROOT = {size: root_hash(LEAVES[:size]) for size in range(1, 10)}
PATH = inclusion_proof(LEAVES, 3)  # 4 hashes
CONSISTENCY = consistency_proof(LEAVES, 5)
CONSISTENCY_FROM_4 = consistency_proof(LEAVES, 4)
ANY = "[0-9a-f]{64}"


def _flip(value: bytes) -> bytes:
    return bytes([value[0] ^ 0x01]) + value[1:]


def _with(proof: list[bytes], position: int, value: bytes) -> list[bytes]:
    return [value if i == position else node for i, node in enumerate(proof)]


CASES: list[tuple[str, Callable[[], None], str]] = [
    (
        "wrong-leaf",
        lambda: verify_inclusion(leaf_hash(b"forged"), 3, 9, PATH, ROOT[9]),
        f"computed root {ANY} but expected {ROOT[9].hex()} (leaf index 3, tree size 9)",
    ),
    (
        "wrong-index",
        lambda: verify_inclusion(LEAVES[3], 2, 9, PATH, ROOT[9]),
        f"computed root {ANY} but expected {ROOT[9].hex()} (leaf index 2, tree size 9)",
    ),
    (
        "index-out-of-range",
        lambda: verify_inclusion(LEAVES[3], 9, 9, PATH, ROOT[9]),
        "leaf index 9 is outside a tree of 9 leaves (expected 0 <= index < 9)",
    ),
    (
        "truncated-proof",
        lambda: verify_inclusion(LEAVES[3], 3, 9, PATH[:-1], ROOT[9]),
        "proof has 3 hashes, expected 4 for index 3 in a tree of 9",
    ),
    (
        "extended-proof",
        lambda: verify_inclusion(LEAVES[3], 3, 9, [*PATH, ROOT[1]], ROOT[9]),
        "proof has 5 hashes, expected 4 for index 3 in a tree of 9",
    ),
    (
        "flipped-hash-in-proof",
        lambda: verify_inclusion(LEAVES[3], 3, 9, _with(PATH, 1, _flip(PATH[1])), ROOT[9]),
        f"computed root {ANY} but expected {ROOT[9].hex()}",
    ),
    (
        "wrong-root",
        lambda: verify_inclusion(LEAVES[3], 3, 9, PATH, ROOT[8]),
        f"computed root {ROOT[9].hex()} but expected {ROOT[8].hex()}",
    ),
    (
        "wrong-tree-size",
        lambda: verify_inclusion(LEAVES[3], 3, 8, PATH, ROOT[9]),
        "proof has 4 hashes, expected 3 for index 3 in a tree of 8",
    ),
    (
        "empty-tree-inclusion",
        lambda: verify_inclusion(LEAVES[0], 0, 0, [], EMPTY_ROOT),
        "leaf index 0 is outside a tree of 0 leaves (expected 0 <= index < 0)",
    ),
    (
        "short-hash-in-proof",
        lambda: verify_inclusion(LEAVES[3], 3, 9, _with(PATH, 2, PATH[2][:31]), ROOT[9]),
        "proof hash 2 is 31 bytes, expected 32",
    ),
    (
        "text-in-place-of-hash",
        lambda: verify_inclusion(LEAVES[3], 3, 9, PATH, ROOT[9].hex()),  # type: ignore[arg-type]
        "root is str, expected 32 bytes",
    ),
    (
        "size1-greater-than-size2",
        lambda: verify_consistency(9, 5, CONSISTENCY, ROOT[9], ROOT[5]),
        "size1 9 is greater than size2 5 (expected size1 <= size2",
    ),
    (
        "consistency-from-empty",
        lambda: verify_consistency(0, 9, [], EMPTY_ROOT, ROOT[9]),
        "size1 is 0, expected 0 < size1 <= size2 (9)",
    ),
    (
        "swapped-roots",
        lambda: verify_consistency(5, 9, CONSISTENCY, ROOT[9], ROOT[5]),
        f"computed root1 {ROOT[5].hex()} but expected {ROOT[9].hex()}; "
        f"computed root2 {ROOT[9].hex()} but expected {ROOT[5].hex()} (size1 5, size2 9)",
    ),
    (
        "wrong-old-root",
        lambda: verify_consistency(5, 9, CONSISTENCY, ROOT[6], ROOT[9]),
        f"computed root1 {ROOT[5].hex()} but expected {ROOT[6].hex()} (size1 5, size2 9)",
    ),
    (
        "wrong-old-root-at-power-of-two",
        lambda: verify_consistency(4, 9, CONSISTENCY_FROM_4, ROOT[5], ROOT[9]),
        f"computed root2 {ANY} but expected {ROOT[9].hex()} (size1 4, size2 9)",
    ),
    (
        "wrong-new-root",
        lambda: verify_consistency(5, 9, CONSISTENCY, ROOT[5], ROOT[8]),
        f"computed root2 {ROOT[9].hex()} but expected {ROOT[8].hex()} (size1 5, size2 9)",
    ),
    (
        "truncated-consistency-proof",
        lambda: verify_consistency(5, 9, CONSISTENCY[:-1], ROOT[5], ROOT[9]),
        f"proof has {len(CONSISTENCY) - 1} hashes, expected {len(CONSISTENCY)} "
        "from size 5 to size 9",
    ),
    (
        "extended-consistency-proof",
        lambda: verify_consistency(5, 9, [*CONSISTENCY, ROOT[1]], ROOT[5], ROOT[9]),
        f"proof has {len(CONSISTENCY) + 1} hashes, expected {len(CONSISTENCY)} "
        "from size 5 to size 9",
    ),
    (
        "flipped-hash-in-consistency-proof",
        lambda: verify_consistency(
            5, 9, _with(CONSISTENCY, 0, _flip(CONSISTENCY[0])), ROOT[5], ROOT[9]
        ),
        f"computed root1 {ANY} but expected {ROOT[5].hex()}",
    ),
    (
        "equal-sizes-different-roots",
        lambda: verify_consistency(9, 9, [], ROOT[9], ROOT[8]),
        f"root2 is {ROOT[8].hex()} but expected {ROOT[9].hex()}",
    ),
    (
        "equal-sizes-with-a-proof",
        lambda: verify_consistency(9, 9, [ROOT[1]], ROOT[9], ROOT[9]),
        "proof has 1 hashes, expected 0 from size 9 to size 9",
    ),
]


@pytest.mark.parametrize(
    ("attempt", "message"), [pytest.param(call, msg, id=name) for name, call, msg in CASES]
)
def test_tampered_proof_is_rejected_with_expected_and_found(
    attempt: Callable[[], None], message: str
) -> None:
    pattern = re.escape(message).replace(re.escape(ANY), ANY)
    with pytest.raises(MerkleVerificationError, match=pattern) as caught:
        attempt()
    assert "expected" in str(caught.value)


def test_the_untampered_proofs_verify() -> None:
    verify_inclusion(LEAVES[3], 3, 9, PATH, ROOT[9])
    verify_consistency(5, 9, CONSISTENCY, ROOT[5], ROOT[9])
    verify_consistency(4, 9, CONSISTENCY_FROM_4, ROOT[4], ROOT[9])
    verify_consistency(9, 9, [], ROOT[9], ROOT[9])


def test_a_proof_alone_does_not_bind_the_tree_size_so_size_and_root_come_signed_together() -> None:
    # Leaf 3 sits on the same left/right path in every tree of 9 to 16 leaves, so the proof
    # for size 9 also "verifies" against ROOT[9] claimed as size 12. The size is bound by the
    # checkpoint that signs (size, root) together, never by the proof.
    verify_inclusion(LEAVES[3], 3, 12, PATH, ROOT[9])


def test_the_error_belongs_to_the_ledger_hierarchy() -> None:
    from ledger.errors import LedgerError

    assert issubclass(MerkleVerificationError, LedgerError)
