"""Merkle tree hashing, inclusion and consistency proofs (RFC 9162 section 2.1).

The tree is the Certificate Transparency tree: SHA-256, with a one-byte prefix that separates
leaf hashes from interior node hashes (RFC 9162 section 2.1.1), so a leaf can never be passed
off as an interior node. Verification follows RFC 9162 sections 2.1.3.2 and 2.1.4.2; every
failure raises :class:`MerkleVerificationError` saying what was expected and what was found.

For a growing log, :class:`MerkleLog` stores only *perfect subtrees*: the hash of each aligned
power-of-two range ``[index * 2**level, (index + 1) * 2**level)``, written once, when its last
leaf arrives, and keyed by ``(level, index)`` (level 0 holds the leaf hashes). Any root,
inclusion proof or consistency proof for any size is then a function of O(log n) of those
nodes; :func:`proof_node_ids_for_inclusion` and :func:`proof_node_ids_for_consistency` name
them, so a database can fetch all of them in one query.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence

from ledger.errors import InvalidInput, MerkleVerificationError

LEAF_PREFIX = b"\x00"
"""RFC 9162 section 2.1.1: prefix of a leaf hash, HASH(0x00 || data)."""
NODE_PREFIX = b"\x01"
"""RFC 9162 section 2.1.1: prefix of an interior node hash, HASH(0x01 || left || right)."""
HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()
"""RFC 9162 section 2.1.1: the hash of an empty tree is the hash of the empty string."""

NodeId = tuple[int, int]
"""A perfect subtree: ``(level, index)``, covering leaves ``index * 2**level`` onwards."""
Node = tuple[int, int, bytes]
"""A perfect subtree with its hash: ``(level, index, hash)``."""
NodeReader = Callable[[int, int], bytes]
"""Returns the stored hash of perfect subtree ``(level, index)``."""

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


# Proofs from stored perfect subtrees.


def _range_ids(begin: int, end: int) -> list[NodeId]:
    """The perfect subtrees that tile ``[begin, end)``, largest first.

    ``begin`` is a multiple of the first (largest) tile, which holds for every range an
    RFC 9162 proof asks for: the tiles are then the bits of ``end - begin``.
    """
    ids: list[NodeId] = []
    while begin < end:
        level = (end - begin).bit_length() - 1
        ids.append((level, begin >> level))
        begin += 1 << level
    return ids


def _inclusion_plan(index: int, size: int) -> list[list[NodeId]]:
    """For each hash of PATH(index, D[size]), leaf side first, the nodes that fold into it."""
    plan: list[list[NodeId]] = []
    lo, hi = 0, size
    while hi - lo > 1:
        k = _split(hi - lo)
        if index < lo + k:
            plan.append(_range_ids(lo + k, hi))  # right of the path; can reach the right edge
            hi = lo + k
        else:
            plan.append([(k.bit_length() - 1, lo // k)])  # a perfect left sibling
            lo += k
    plan.reverse()
    return plan


def _consistency_plan(size1: int, size2: int) -> list[list[NodeId]]:
    """For each hash of PROOF(size1, D[size2]), in proof order, the nodes that fold into it."""
    plan: list[list[NodeId]] = []
    lo, hi, m, complete = 0, size2, size1, True
    while m != hi - lo:
        k = _split(hi - lo)
        if m <= k:
            plan.append(_range_ids(lo + k, hi))
            hi = lo + k
        else:
            plan.append([(k.bit_length() - 1, lo // k)])
            lo += k
            m -= k
            complete = False
    if not complete:
        plan.append(_range_ids(lo, hi))
    plan.reverse()
    return plan


def _flatten(plan: list[list[NodeId]]) -> list[NodeId]:
    return [node_id for item in plan for node_id in item]


def root_node_ids(size: int) -> list[NodeId]:
    """The perfect subtrees whose hashes give the root of the tree of ``size`` leaves."""
    return _range_ids(0, size)


def proof_node_ids_for_inclusion(index: int, size: int) -> list[NodeId]:
    """The perfect subtrees read to build the inclusion proof of ``index`` at ``size``."""
    _require(0 <= index < size, "index", f"{index} is outside a tree of {size} leaves")
    return _flatten(_inclusion_plan(index, size))


def proof_node_ids_for_consistency(size1: int, size2: int) -> list[NodeId]:
    """The perfect subtrees read to build the consistency proof from ``size1`` to ``size2``."""
    _require(0 < size1 <= size2, "size1", f"{size1} is outside 1..{size2}")
    return _flatten(_consistency_plan(size1, size2))


def _build(plan: list[list[NodeId]], read_node: NodeReader) -> list[bytes]:
    return [_fold([read_node(level, index) for level, index in item]) for item in plan]


def root_from_nodes(size: int, read_node: NodeReader) -> bytes:
    """The root of the tree of ``size`` leaves, from O(log size) stored nodes."""
    _require(size >= 0, "size", f"{size} is negative")
    ids = root_node_ids(size)
    return _fold([read_node(level, index) for level, index in ids]) if ids else EMPTY_ROOT


def inclusion_proof_from_nodes(index: int, size: int, read_node: NodeReader) -> list[bytes]:
    """PATH(index, D[size]) from the nodes :func:`proof_node_ids_for_inclusion` names."""
    _require(0 <= index < size, "index", f"{index} is outside a tree of {size} leaves")
    return _build(_inclusion_plan(index, size), read_node)


def consistency_proof_from_nodes(size1: int, size2: int, read_node: NodeReader) -> list[bytes]:
    """PROOF(size1, D[size2]) from the nodes :func:`proof_node_ids_for_consistency` names."""
    _require(0 < size1 <= size2, "size1", f"{size1} is outside 1..{size2}")
    return _build(_consistency_plan(size1, size2), read_node)


class MerkleLog:
    """An append-only Merkle log over a store of perfect-subtree hashes.

    ``read_node`` reads the store; :meth:`append` returns the nodes each new leaf completes
    (amortised two per leaf) for the caller to write before it asks for proofs. The right
    edge of the tree (one hash per set bit of the size) is kept in memory, read lazily from
    the store when the log is opened at a non-zero ``size``.
    """

    def __init__(self, read_node: NodeReader, size: int = 0) -> None:
        _require(size >= 0, "size", f"{size} is negative")
        self._read_node = read_node
        self._size = size
        self._edge: list[bytes] | None = [] if size == 0 else None

    @property
    def size(self) -> int:
        """How many leaves the log holds."""
        return self._size

    def _right_edge(self) -> list[bytes]:
        if self._edge is None:
            self._edge = [
                self._read_node(level, index) for level, index in root_node_ids(self._size)
            ]
        return self._edge

    def append(self, leaf_hash: bytes) -> list[Node]:
        """Add one leaf hash; return the perfect subtrees it completes, leaf first."""
        _check_hash(leaf_hash, "leaf hash")
        edge = self._right_edge()
        index = self._size
        completed: list[Node] = [(0, index, leaf_hash)]
        edge.append(leaf_hash)
        level = 0
        while index & 1:
            right = edge.pop()
            merged = _sha256(NODE_PREFIX + edge[-1] + right).digest()
            edge[-1] = merged
            level += 1
            index >>= 1
            completed.append((level, index, merged))
        self._size += 1
        return completed

    def _size_or_current(self, size: int | None) -> int:
        if size is None:
            return self._size
        _require(0 <= size <= self._size, "size", f"{size} is outside 0..{self._size}")
        return size

    def root(self, size: int | None = None) -> bytes:
        """The root at ``size`` leaves (default: now)."""
        size = self._size_or_current(size)
        if size == self._size:
            edge = self._right_edge()
            return _fold(edge) if edge else EMPTY_ROOT
        return root_from_nodes(size, self._read_node)

    def inclusion_proof(self, index: int, size: int | None = None) -> list[bytes]:
        """The proof that leaf ``index`` is in the tree of ``size`` leaves (default: now)."""
        return inclusion_proof_from_nodes(index, self._size_or_current(size), self._read_node)

    def consistency_proof(self, size1: int, size2: int | None = None) -> list[bytes]:
        """The proof that the tree of ``size2`` leaves (default: now) extends ``size1``."""
        return consistency_proof_from_nodes(size1, self._size_or_current(size2), self._read_node)


class MemoryNodeStore:
    """Perfect-subtree hashes in a dict: the in-memory store for tests and small logs."""

    def __init__(self) -> None:
        self.nodes: dict[NodeId, bytes] = {}

    def get(self, level: int, index: int) -> bytes:
        """Read one node; a missing node is a :class:`KeyError`."""
        return self.nodes[level, index]

    def put(self, nodes: Sequence[Node]) -> None:
        """Write the nodes :meth:`MerkleLog.append` returned."""
        for level, index, value in nodes:
            self.nodes[level, index] = value
