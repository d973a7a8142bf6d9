"""A Merkle log kept as stored perfect subtrees (RFC 9162 section 2.1 trees).

For a growing log, :class:`MerkleLog` stores only *perfect subtrees*: the hash of each aligned
power-of-two range ``[index * 2**level, (index + 1) * 2**level)``, written once, when its last
leaf arrives, and keyed by ``(level, index)`` (level 0 holds the leaf hashes). Any root,
inclusion proof or consistency proof for any size is then a function of O(log n) of those
nodes; :func:`proof_node_ids_for_inclusion` and :func:`proof_node_ids_for_consistency` name
them, so a database can fetch all of them in one query.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from ledger.crypto.merkle import (
    EMPTY_ROOT,
    NODE_PREFIX,
    _check_hash,
    _fold,
    _require,
    _split,
)

NodeId = tuple[int, int]
"""A perfect subtree: ``(level, index)``, covering leaves ``index * 2**level`` onwards."""
Node = tuple[int, int, bytes]
"""A perfect subtree with its hash: ``(level, index, hash)``."""
NodeReader = Callable[[int, int], bytes]
"""Returns the stored hash of perfect subtree ``(level, index)``."""

_sha256 = hashlib.sha256


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
