"""MerkleLog: proofs from stored perfect subtrees equal the reference, in O(log n) reads."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.crypto.merkle import (
    EMPTY_ROOT,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    node_hash,
    root_hash,
    verify_consistency,
    verify_inclusion,
)
from ledger.crypto.merkle_log import (
    MemoryNodeStore,
    MerkleLog,
    NodeReader,
    consistency_proof_from_nodes,
    inclusion_proof_from_nodes,
    proof_node_ids_for_consistency,
    proof_node_ids_for_inclusion,
    root_from_nodes,
    root_node_ids,
)
from ledger.errors import InvalidInput

SIZE = 64
LEAVES = [leaf_hash(f"entry {i}".encode()) for i in range(SIZE)]


def _filled_log(leaves: list[bytes]) -> tuple[MerkleLog, MemoryNodeStore]:
    store = MemoryNodeStore()
    log = MerkleLog(store.get)
    for leaf in leaves:
        store.put(log.append(leaf))
    return log, store


def _reader(nodes: dict[tuple[int, int], bytes]) -> NodeReader:
    return lambda level, index: nodes[level, index]


class CountingReader:
    """Serves a made-up hash for any complete node of a tree of ``size``, counting reads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.reads: list[tuple[int, int]] = []

    def __call__(self, level: int, index: int) -> bytes:
        assert (index + 1) << level <= self.size, f"node {(level, index)} is not complete"
        self.reads.append((level, index))
        return hashlib.sha256(f"{level}/{index}".encode()).digest()


def test_append_returns_the_leaf_and_every_subtree_it_completes() -> None:
    log = MerkleLog(MemoryNodeStore().get)
    assert log.append(LEAVES[0]) == [(0, 0, LEAVES[0])]
    pair = node_hash(LEAVES[0], LEAVES[1])
    assert log.append(LEAVES[1]) == [(0, 1, LEAVES[1]), (1, 0, pair)]
    assert log.append(LEAVES[2]) == [(0, 2, LEAVES[2])]
    quad = node_hash(pair, node_hash(LEAVES[2], LEAVES[3]))
    assert log.append(LEAVES[3])[-1] == (2, 0, quad)
    assert log.size == 4


def test_appending_n_leaves_writes_fewer_than_2n_nodes() -> None:
    _, store = _filled_log(LEAVES)
    assert len(store.nodes) == 2 * SIZE - 1  # a perfect tree of 64 leaves


@settings(max_examples=25, deadline=None)
@given(st.lists(st.binary(max_size=8), min_size=1, max_size=200))
def test_the_root_after_every_append_equals_the_root_of_the_prefix(entries: list[bytes]) -> None:
    leaves = [leaf_hash(entry) for entry in entries]
    store = MemoryNodeStore()
    log = MerkleLog(store.get)
    assert log.root() == EMPTY_ROOT
    for size, leaf in enumerate(leaves, start=1):
        store.put(log.append(leaf))
        assert log.root() == root_hash(leaves[:size])
    for size in range(len(leaves) + 1):
        assert log.root(size) == root_hash(leaves[:size])


def test_every_inclusion_proof_at_every_size_equals_the_reference() -> None:
    log, _ = _filled_log(LEAVES)
    for size in range(1, SIZE + 1):
        root = log.root(size)
        for index in range(size):
            proof = log.inclusion_proof(index, size)
            assert proof == inclusion_proof(LEAVES[:size], index)
            verify_inclusion(LEAVES[index], index, size, proof, root)


def test_every_consistency_proof_between_any_two_sizes_equals_the_reference() -> None:
    log, _ = _filled_log(LEAVES)
    for size2 in range(1, SIZE + 1):
        for size1 in range(1, size2 + 1):
            proof = log.consistency_proof(size1, size2)
            assert proof == consistency_proof(LEAVES[:size2], size1)
            verify_consistency(size1, size2, proof, log.root(size1), log.root(size2))


def test_a_log_reopened_from_its_store_continues_where_it_stopped() -> None:
    first, store = _filled_log(LEAVES[:37])
    reopened = MerkleLog(store.get, size=37)
    assert reopened.root() == first.root()
    for leaf in LEAVES[37:]:
        store.put(reopened.append(leaf))
    assert reopened.root() == root_hash(LEAVES)
    assert reopened.inclusion_proof(40) == inclusion_proof(LEAVES, 40)


def test_a_proof_can_be_built_from_the_nodes_fetched_in_one_query() -> None:
    _, store = _filled_log(LEAVES)
    for index, size in [(0, 1), (3, 9), (40, 64), (62, 63)]:
        fetched = {
            node_id: store.nodes[node_id] for node_id in proof_node_ids_for_inclusion(index, size)
        }
        proof = inclusion_proof_from_nodes(index, size, _reader(fetched))
        assert proof == inclusion_proof(LEAVES[:size], index)
    for size1, size2 in [(1, 2), (5, 9), (8, 64), (37, 63)]:
        fetched = {
            node_id: store.nodes[node_id]
            for node_id in proof_node_ids_for_consistency(size1, size2)
        }
        proof = consistency_proof_from_nodes(size1, size2, _reader(fetched))
        assert proof == consistency_proof(LEAVES[:size2], size1)
    fetched = {node_id: store.nodes[node_id] for node_id in root_node_ids(45)}
    assert root_from_nodes(45, _reader(fetched)) == root_hash(LEAVES[:45])


@settings(max_examples=200, deadline=None)
@given(size=st.integers(1, 2**48), data=st.data())
def test_an_inclusion_proof_reads_only_the_nodes_it_names_at_most_2_log_n(
    size: int, data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, size - 1), label="index")
    reader = CountingReader(size)
    proof = inclusion_proof_from_nodes(index, size, reader)
    assert reader.reads == proof_node_ids_for_inclusion(index, size)
    assert len(reader.reads) <= 2 * size.bit_length()
    assert len(proof) <= size.bit_length()


@settings(max_examples=200, deadline=None)
@given(size2=st.integers(1, 2**48), data=st.data())
def test_a_consistency_proof_reads_only_the_nodes_it_names_at_most_2_log_n(
    size2: int, data: st.DataObject
) -> None:
    size1 = data.draw(st.integers(1, size2), label="size1")
    reader = CountingReader(size2)
    consistency_proof_from_nodes(size1, size2, reader)
    assert reader.reads == proof_node_ids_for_consistency(size1, size2)
    assert len(reader.reads) <= 2 * size2.bit_length() + 1


@given(size=st.integers(0, 2**48))
def test_a_root_reads_one_node_per_set_bit_of_the_size(size: int) -> None:
    reader = CountingReader(size)
    root_from_nodes(size, reader)
    assert len(reader.reads) == size.bit_count()


def test_a_reopened_log_reads_its_right_edge_only_once() -> None:
    reader = CountingReader(1_000_003)
    log = MerkleLog(reader, size=1_000_003)
    log.append(leaf_hash(b"next"))
    log.append(leaf_hash(b"after"))
    log.root()
    assert len(reader.reads) == (1_000_003).bit_count()


@pytest.mark.parametrize(
    ("call", "field"),
    [
        pytest.param(lambda log: log.inclusion_proof(9, 9), "index", id="index-past-the-end"),
        pytest.param(lambda log: log.inclusion_proof(-1, 9), "index", id="negative-index"),
        pytest.param(lambda log: log.inclusion_proof(0, 10), "size", id="size-past-the-log"),
        pytest.param(lambda log: log.consistency_proof(0, 5), "size1", id="consistency-from-0"),
        pytest.param(lambda log: log.consistency_proof(6, 5), "size1", id="size1-over-size2"),
        pytest.param(lambda log: log.root(10), "size", id="root-past-the-log"),
    ],
)
def test_asking_for_a_proof_outside_the_log_is_invalid_input(
    call: Callable[[MerkleLog], object], field: str
) -> None:
    log, _ = _filled_log(LEAVES[:9])
    with pytest.raises(InvalidInput) as caught:
        call(log)
    assert caught.value.field == field
    assert caught.value.rule == "within_tree"


def test_the_reference_generators_refuse_indexes_outside_the_list() -> None:
    with pytest.raises(InvalidInput, match=re.escape("index 3 is outside 0..3")):
        inclusion_proof(LEAVES[:3], 3)
    with pytest.raises(InvalidInput, match=re.escape("size1 0 is outside 1..3")):
        consistency_proof(LEAVES[:3], 0)
