"""Merkle tree hashing, inclusion and consistency proofs (RFC 9162 section 2.1).

The tree is the Certificate Transparency tree: SHA-256, with a one-byte prefix that separates
leaf hashes from interior node hashes (RFC 9162 section 2.1.1), so a leaf can never be passed
off as an interior node. Verification follows RFC 9162 sections 2.1.3.2 and 2.1.4.2; every
failure raises :class:`MerkleVerificationError` saying what was expected and what was found.

The log kept as stored perfect subtrees is :mod:`ledger.crypto.merkle_log`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from ledger.errors import InvalidInput, MerkleVerificationError

LEAF_PREFIX = b"\x00"
"""RFC 9162 section 2.1.1: prefix of a leaf hash, HASH(0x00 || data)."""
NODE_PREFIX = b"\x01"
"""RFC 9162 section 2.1.1: prefix of an interior node hash, HASH(0x01 || left || right)."""
HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()
"""RFC 9162 section 2.1.1: the hash of an empty tree is the hash of the empty string."""


_sha256 = hashlib.sha256


def leaf_hash(data: bytes) -> bytes:
    """Hash one log entry: SHA-256(0x00 || data)."""
    return _sha256(LEAF_PREFIX + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """Hash two children: SHA-256(0x01 || left || right)."""
    return _sha256(NODE_PREFIX + left + right).digest()


def _fold(hashes: Sequence[bytes]) -> bytes:
    """Root of consecutive perfect subtrees, largest first: they join from the right."""
    result = hashes[-1]
    for left in reversed(hashes[:-1]):
        result = _sha256(NODE_PREFIX + left + result).digest()
    return result


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (``n >= 2``): where RFC 9162 splits."""
    return 1 << ((n - 1).bit_length() - 1)


def root_hash(leaf_hashes: Sequence[bytes]) -> bytes:
    """MTH(D[n]) of RFC 9162 section 2.1.1, in O(n) hashes and O(log n) memory."""
    edge: list[bytes] = []
    for index, leaf in enumerate(leaf_hashes):
        edge.append(leaf)
        carries = index
        while carries & 1:  # each trailing one bit of the index completes a subtree
            right = edge.pop()
            edge[-1] = _sha256(NODE_PREFIX + edge[-1] + right).digest()
            carries >>= 1
    return _fold(edge) if edge else EMPTY_ROOT


# Reference proof generators over a full list of leaf hashes.


def inclusion_proof(leaf_hashes: Sequence[bytes], index: int) -> list[bytes]:
    """PATH(index, D[n]) of RFC 9162 section 2.1.3.1, computed from every leaf hash."""
    _require(0 <= index < len(leaf_hashes), "index", f"{index} is outside 0..{len(leaf_hashes)}")

    def path(m: int, lo: int, hi: int) -> list[bytes]:
        if hi - lo == 1:
            return []
        k = _split(hi - lo)
        if m < k:
            return [*path(m, lo, lo + k), root_hash(leaf_hashes[lo + k : hi])]
        return [*path(m - k, lo + k, hi), root_hash(leaf_hashes[lo : lo + k])]

    return path(index, 0, len(leaf_hashes))


def consistency_proof(leaf_hashes: Sequence[bytes], size1: int) -> list[bytes]:
    """PROOF(size1, D[n]) of RFC 9162 section 2.1.4.1, computed from every leaf hash."""
    _require(0 < size1 <= len(leaf_hashes), "size1", f"{size1} is outside 1..{len(leaf_hashes)}")

    def subproof(m: int, lo: int, hi: int, complete: bool) -> list[bytes]:
        if m == hi - lo:
            return [] if complete else [root_hash(leaf_hashes[lo:hi])]
        k = _split(hi - lo)
        if m <= k:
            return [*subproof(m, lo, lo + k, complete), root_hash(leaf_hashes[lo + k : hi])]
        return [*subproof(m - k, lo + k, hi, False), root_hash(leaf_hashes[lo : lo + k])]

    return subproof(size1, 0, len(leaf_hashes), True)


def _require(condition: bool, field: str, detail: str) -> None:
    if not condition:
        raise InvalidInput(field, "within_tree", f"{field} {detail}")


# Verification (RFC 9162 sections 2.1.3.2 and 2.1.4.2).


def _check_hash(value: object, what: str) -> None:
    if not isinstance(value, bytes):
        raise MerkleVerificationError(
            f"{what} is {type(value).__name__}, expected {HASH_SIZE} bytes"
        )
    if len(value) != HASH_SIZE:
        raise MerkleVerificationError(f"{what} is {len(value)} bytes, expected {HASH_SIZE}")


def _check_size(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise MerkleVerificationError(f"{what} is {value!r}, expected an integer >= 0")
    return value


def inclusion_proof_length(index: int, size: int) -> int:
    """How many hashes the inclusion proof of leaf ``index`` in a tree of ``size`` has."""
    inner = (index ^ (size - 1)).bit_length()
    return inner + (index >> inner).bit_count()


def consistency_proof_length(size1: int, size2: int) -> int:
    """How many hashes the consistency proof from ``size1`` to ``size2`` has (0 < size1)."""
    if size1 == size2:
        return 0
    level = (size1 & -size1).bit_length() - 1
    index = (size1 - 1) >> level
    inner = (index ^ ((size2 - 1) >> level)).bit_length()
    return (1 if index else 0) + inner + (index >> inner).bit_count()


def verify_inclusion(
    leaf_hash: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> None:
    """Check that ``leaf_hash`` is leaf ``index`` of the tree of ``size`` leaves with ``root``.

    RFC 9162 section 2.1.3.2. Whether each proof hash is a left or a right sibling follows from
    ``index`` and ``size`` alone. The proof does not bind ``size`` on its own (leaf 3 has the
    same path shape in every tree of 9 to 16 leaves), so ``size`` and ``root`` must come from
    one signed checkpoint. Raises :class:`MerkleVerificationError`.
    """
    _check_hash(leaf_hash, "leaf hash")
    _check_hash(root, "root")
    index = _check_size(index, "leaf index")
    size = _check_size(size, "tree size")
    if index >= size:
        raise MerkleVerificationError(
            f"leaf index {index} is outside a tree of {size} leaves (expected 0 <= index < {size})"
        )
    for position, sibling in enumerate(proof):
        _check_hash(sibling, f"proof hash {position}")
    expected = inclusion_proof_length(index, size)
    if len(proof) != expected:
        raise MerkleVerificationError(
            f"proof has {len(proof)} hashes, expected {expected} "
            f"for index {index} in a tree of {size}"
        )
    fn, sn = index, size - 1
    r = leaf_hash
    for p in proof:
        if sn == 0:  # unreachable after the length check; kept as the RFC states it
            raise MerkleVerificationError("proof is longer than the path to the root")
        if fn & 1 or fn == sn:
            r = _sha256(NODE_PREFIX + p + r).digest()
            while not fn & 1 and fn:
                fn >>= 1
                sn >>= 1
        else:
            r = _sha256(NODE_PREFIX + r + p).digest()
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise MerkleVerificationError("proof is shorter than the path to the root")
    if not hmac.compare_digest(r, root):
        raise MerkleVerificationError(
            f"computed root {r.hex()} but expected {root.hex()} "
            f"(leaf index {index}, tree size {size})"
        )


# Over 60 lines on purpose: RFC 9162 section 2.1.4.2's algorithm kept in one piece, step by
# step, so it can be checked against the spec.
def verify_consistency(
    size1: int, size2: int, proof: Sequence[bytes], root1: bytes, root2: bytes
) -> None:
    """Check that the tree of ``size2`` leaves with ``root2`` extends the one of ``size1``.

    RFC 9162 section 2.1.4.2, which defines proofs for ``0 < size1 < size2``. Equal sizes are
    accepted with an empty proof and equal roots; ``size1 == 0`` is rejected (there is
    nothing to prove about an empty tree). Raises :class:`MerkleVerificationError`.
    """
    size1 = _check_size(size1, "size1")
    size2 = _check_size(size2, "size2")
    _check_hash(root1, "root1")
    _check_hash(root2, "root2")
    if size1 > size2:
        raise MerkleVerificationError(
            f"size1 {size1} is greater than size2 {size2} (expected size1 <= size2: "
            "a log only grows)"
        )
    if size1 == 0:
        raise MerkleVerificationError(
            f"size1 is 0, expected 0 < size1 <= size2 ({size2}): RFC 9162 defines no "
            "consistency proof from an empty tree"
        )
    for position, node in enumerate(proof):
        _check_hash(node, f"proof hash {position}")
    expected = consistency_proof_length(size1, size2)
    if len(proof) != expected:
        raise MerkleVerificationError(
            f"proof has {len(proof)} hashes, expected {expected} from size {size1} to size {size2}"
        )
    if size1 == size2:
        if not hmac.compare_digest(root1, root2):
            raise MerkleVerificationError(
                f"root2 is {root2.hex()} but expected {root1.hex()}: "
                f"two trees of size {size1} must have the same root"
            )
        return
    path = [root1, *proof] if size1 & (size1 - 1) == 0 else list(proof)
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:  # unreachable after the length check; kept as the RFC states it
            raise MerkleVerificationError("proof is longer than the path to the root")
        if fn & 1 or fn == sn:
            fr = _sha256(NODE_PREFIX + c + fr).digest()
            sr = _sha256(NODE_PREFIX + c + sr).digest()
            while not fn & 1 and fn:
                fn >>= 1
                sn >>= 1
        else:
            sr = _sha256(NODE_PREFIX + sr + c).digest()
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise MerkleVerificationError("proof is shorter than the path to the root")
    mismatches = [
        f"computed {name} {got.hex()} but expected {want.hex()}"
        for name, got, want in (("root1", fr, root1), ("root2", sr, root2))
        if not hmac.compare_digest(got, want)
    ]
    if mismatches:
        raise MerkleVerificationError("; ".join(mismatches) + f" (size1 {size1}, size2 {size2})")
