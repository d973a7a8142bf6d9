"""Property tests: the fast code agrees with the naive RFC 9162 tree, and its proofs verify."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.crypto.merkle import (
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    root_hash,
    verify_consistency,
    verify_inclusion,
)
from tests.unit.merkle import _naive


def _entries(size: int, salt: int = 0) -> list[bytes]:
    return [f"entry {salt}/{i}".encode() for i in range(size)]


@given(st.lists(st.binary(max_size=40), max_size=64))
def test_root_equals_the_naive_tree_hash(entries: list[bytes]) -> None:
    assert root_hash([leaf_hash(entry) for entry in entries]) == _naive.mth(entries)


@pytest.mark.parametrize("size", range(1, 65))
def test_every_inclusion_proof_equals_the_naive_path_and_verifies(size: int) -> None:
    entries = _entries(size)
    leaves = [leaf_hash(entry) for entry in entries]
    root = _naive.mth(entries)
    for index in range(size):
        proof = inclusion_proof(leaves, index)
        assert proof == _naive.path(index, entries)
        verify_inclusion(leaves[index], index, size, proof, root)


@pytest.mark.parametrize("size2", range(1, 65))
def test_every_consistency_proof_equals_the_naive_proof_and_verifies(size2: int) -> None:
    entries = _entries(size2)
    leaves = [leaf_hash(entry) for entry in entries]
    root2 = _naive.mth(entries)
    for size1 in range(1, size2 + 1):
        proof = consistency_proof(leaves, size1)
        assert proof == _naive.proof(size1, entries)
        verify_consistency(size1, size2, proof, _naive.mth(entries[:size1]), root2)


@settings(max_examples=40, deadline=None)
@given(size=st.integers(65, 3000), salt=st.integers(0, 2**32), data=st.data())
def test_proofs_in_larger_trees_equal_the_naive_ones_and_verify(
    size: int, salt: int, data: st.DataObject
) -> None:
    entries = _entries(size, salt)
    leaves = [leaf_hash(entry) for entry in entries]
    root = root_hash(leaves)
    assert root == _naive.mth(entries)

    index = data.draw(st.integers(0, size - 1), label="index")
    proof = inclusion_proof(leaves, index)
    assert proof == _naive.path(index, entries)
    verify_inclusion(leaves[index], index, size, proof, root)

    size1 = data.draw(st.integers(1, size), label="size1")
    proof = consistency_proof(leaves, size1)
    assert proof == _naive.proof(size1, entries)
    verify_consistency(size1, size, proof, root_hash(leaves[:size1]), root)
