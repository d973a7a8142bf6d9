"""A naive Merkle tree, written straight from the definitions of RFC 9162 section 2.1.

Recursive, over the raw entries, slicing lists at every step: slow and obviously right, so
the fast code in :mod:`ledger.crypto.merkle` can be compared against it.
"""

from __future__ import annotations

import hashlib


def _hash(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _k(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(entries: list[bytes]) -> bytes:
    """MTH(D[n]), section 2.1.1."""
    n = len(entries)
    if n == 0:
        return _hash(b"")
    if n == 1:
        return _hash(b"\x00" + entries[0])
    k = _k(n)
    return _hash(b"\x01" + mth(entries[:k]) + mth(entries[k:]))


def path(m: int, entries: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]), section 2.1.3.1."""
    n = len(entries)
    if n == 1:
        return []
    k = _k(n)
    if m < k:
        return [*path(m, entries[:k]), mth(entries[k:])]
    return [*path(m - k, entries[k:]), mth(entries[:k])]


def proof(m: int, entries: list[bytes]) -> list[bytes]:
    """PROOF(m, D[n]), section 2.1.4.1."""
    return _subproof(m, entries, True)


def _subproof(m: int, entries: list[bytes], b: bool) -> list[bytes]:
    n = len(entries)
    if m == n:
        return [] if b else [mth(entries)]
    k = _k(n)
    if m <= k:
        return [*_subproof(m, entries[:k], b), mth(entries[k:])]
    return [*_subproof(m - k, entries[k:], False), mth(entries[:k])]
