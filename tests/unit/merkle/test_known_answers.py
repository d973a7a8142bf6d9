"""Known-answer vectors: the eight-entry test tree of the Certificate Transparency code bases.

The roots and proofs below are the published RFC 6962 test values (certificate-transparency-go,
transparency-dev/merkle); they agree with the naive reference in ``_naive.py``.
"""

from __future__ import annotations

import hashlib

import pytest

from ledger.crypto.merkle import (
    EMPTY_ROOT,
    LEAF_PREFIX,
    NODE_PREFIX,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    node_hash,
    root_hash,
    verify_consistency,
    verify_inclusion,
)
from tests.unit.merkle import _naive

ENTRIES = [
    bytes.fromhex(h)
    for h in (
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    )
]
LEAVES = [leaf_hash(entry) for entry in ENTRIES]
ROOTS = {
    1: "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    2: "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    3: "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    4: "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    5: "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    6: "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    7: "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    8: "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
}
INCLUSION = {  # (index, size): proof
    (0, 1): [],
    (0, 8): [
        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
    (5, 8): [
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
    (2, 3): ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"],
    (1, 5): [
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
}
CONSISTENCY = {  # (size1, size2): proof
    (1, 1): [],
    (1, 8): [
        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
    (6, 8): [
        "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
    (2, 5): [
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
}


def test_domain_separation_prefixes_are_those_of_rfc_9162() -> None:
    assert LEAF_PREFIX == b"\x00"
    assert NODE_PREFIX == b"\x01"
    assert leaf_hash(b"x") == hashlib.sha256(b"\x00x").digest()
    assert (
        node_hash(b"L" * 32, b"R" * 32) == hashlib.sha256(b"\x01" + b"L" * 32 + b"R" * 32).digest()
    )


def test_a_leaf_hash_differs_from_a_node_hash_over_the_same_bytes() -> None:
    left, right = leaf_hash(b"a"), leaf_hash(b"b")
    assert node_hash(left, right) != leaf_hash(left + right)


def test_the_empty_tree_hashes_to_sha256_of_nothing() -> None:
    assert root_hash([]) == EMPTY_ROOT == hashlib.sha256(b"").digest()
    assert EMPTY_ROOT.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize("size", sorted(ROOTS))
def test_roots_match_the_published_vectors_and_the_naive_tree(size: int) -> None:
    assert _naive.mth(ENTRIES[:size]).hex() == ROOTS[size]
    assert root_hash(LEAVES[:size]).hex() == ROOTS[size]


@pytest.mark.parametrize(("index", "size"), sorted(INCLUSION))
def test_inclusion_proofs_match_the_published_vectors(index: int, size: int) -> None:
    proof = inclusion_proof(LEAVES[:size], index)
    assert [node.hex() for node in proof] == INCLUSION[index, size]
    verify_inclusion(LEAVES[index], index, size, proof, bytes.fromhex(ROOTS[size]))


@pytest.mark.parametrize(("size1", "size2"), sorted(CONSISTENCY))
def test_consistency_proofs_match_the_published_vectors(size1: int, size2: int) -> None:
    proof = consistency_proof(LEAVES[:size2], size1)
    assert [node.hex() for node in proof] == CONSISTENCY[size1, size2]
    root1, root2 = bytes.fromhex(ROOTS[size1]), bytes.fromhex(ROOTS[size2])
    verify_consistency(size1, size2, proof, root1, root2)
