"""The search index's arrays: one entry per span, append-only files on disk, memory-mapped.

In document-number order: ``vectors.f16`` (256 float16 a span), ``signs.u64`` (its 256 sign
bits), ``version_keys.i32``, ``token_ends.i64`` (where its token ids end in ``tokens.u16``)
and ``term_ends.i64`` (where its terms end in ``terms.u64``, each term as the first 8 bytes of
its BLAKE2b digest: what BM25 needs of a candidate, its length and its term frequencies).
Spans are only ever appended; a reader
maps the first ``count`` entries (the count the directory's state names), so bytes a writer
appended after it, or left behind when it stopped half-way, are never read. Every process
maps the same files: the operating system keeps one copy of their pages for all of them.

Ranking is the dense ranker's exact method (:class:`ledger.retrieval.dense.DenseRanker`):
from 20,000 spans on, the 2,000 eligible spans nearest in Hamming distance of sign bits, then
exact cosine and the token match on the best of those. A brute-force scan of 32 bytes a span
was measured against an ANN index at one million spans (docs/dependencies.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ledger.retrieval.dense import (
    DIMENSIONS,
    SHORTLIST_FROM,
    DenseQuery,
    DenseRanker,
    Tokens,
    sign_bits,
)

_FILES = {
    "vectors": ("vectors.f16", np.float16, DIMENSIONS),
    "signs": ("signs.u64", np.uint64, DIMENSIONS // 64),
    "version_keys": ("version_keys.i32", np.int32, 1),
    "token_ends": ("token_ends.i64", np.int64, 1),
    "term_ends": ("term_ends.i64", np.int64, 1),
}
_TOKENS = "tokens.u16"
_TERMS = "terms.u64"


def term_hash(term: str) -> int:
    """A term as the arrays store it."""
    return int.from_bytes(hashlib.blake2b(term.encode(), digest_size=8).digest(), "little")


class SpanAppender:
    """Appends spans to the files at ``path``, which hold ``count`` spans (anything past
    them, from a writer that stopped, is cut off first)."""

    def __init__(self, path: Path, count: int) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._token_end = int(_map(path, "token_ends", count)[-1]) if count else 0
        self._term_end = int(_map(path, "term_ends", count)[-1]) if count else 0
        for file, dtype, width in _FILES.values():
            _truncate(path / file, count * width * np.dtype(dtype).itemsize)
        _truncate(path / _TOKENS, self._token_end * 2)
        _truncate(path / _TERMS, self._term_end * 8)
        self._vectors: list[npt.NDArray[np.float16]] = []
        self._keys: list[int] = []
        self._tokens: list[Tokens] = []
        self._terms: list[list[int]] = []

    def add(self, vector: bytes, version_key: int, tokens: bytes, terms: list[str]) -> None:
        """Buffer one span (its float16 vector, little-endian uint16 token ids, terms)."""
        self._vectors.append(np.frombuffer(vector, dtype="<f2"))
        self._keys.append(version_key)
        self._tokens.append(np.frombuffer(tokens, dtype="<u2"))
        self._terms.append([term_hash(term) for term in terms])

    def flush(self) -> None:
        """Write the buffered spans to the end of the files."""
        if not self._vectors:
            return
        vectors = np.vstack(self._vectors).astype(np.float16)
        lengths = np.fromiter((len(t) for t in self._tokens), dtype=np.int64)
        ends = self._token_end + np.cumsum(lengths)
        term_lengths = np.fromiter((len(t) for t in self._terms), dtype=np.int64)
        term_ends = self._term_end + np.cumsum(term_lengths)
        parts = {
            "vectors": vectors,
            "signs": sign_bits(vectors),
            "version_keys": np.asarray(self._keys, dtype=np.int32),
            "token_ends": ends,
            "term_ends": term_ends,
        }
        for name, (file, dtype, _) in _FILES.items():
            with (self.path / file).open("ab") as out:
                out.write(np.ascontiguousarray(parts[name], dtype=dtype).tobytes())
        with (self.path / _TOKENS).open("ab") as out:
            out.write(np.concatenate(self._tokens).astype("<u2").tobytes())
        with (self.path / _TERMS).open("ab") as out:
            flat = [term for terms in self._terms for term in terms]
            out.write(np.asarray(flat, dtype="<u8").tobytes())
        self._token_end = int(ends[-1])
        self._term_end = int(term_ends[-1])
        self._vectors.clear()
        self._keys.clear()
        self._tokens.clear()
        self._terms.clear()


class SpanArrays:
    """The first ``count`` spans of the files at ``path``, mapped read-only."""

    def __init__(self, path: Path, count: int, version: str) -> None:
        self.count = count
        self.version_keys: npt.NDArray[np.int32] = _map(path, "version_keys", count)
        offsets = _offsets(_map(path, "token_ends", count))
        tokens = _map_flat(path / _TOKENS, "<u2", int(offsets[-1]))
        vectors = _map(path, "vectors", count)
        if count < SHORTLIST_FROM:
            # Scored in full per query: converted once here (at most 20 MB), not per query.
            vectors = np.asarray(vectors, dtype=np.float32)
        self.ranker = DenseRanker.over(
            vectors, version, _map(path, "signs", count), tokens, offsets
        )
        self.term_offsets = _offsets(_map(path, "term_ends", count))
        self.terms: npt.NDArray[np.uint64] = _map_flat(
            path / _TERMS, "<u8", int(self.term_offsets[-1])
        )

    def dense_rank(
        self, query: DenseQuery, eligible: npt.NDArray[np.bool_], depth: int
    ) -> list[tuple[int, float]]:
        """The ``depth`` eligible spans nearest the query."""
        return self.ranker.rank(query, eligible, depth)

    def bm25(
        self,
        rows: npt.NDArray[np.int64],
        query_terms: Sequence[str],
        idf: npt.NDArray[np.float64],
        k1: float,
        b: float,
    ) -> npt.NDArray[np.float32]:
        """Okapi BM25 of each span of ``rows`` for the distinct ``query_terms`` (``idf``:
        each term's inverse document frequency), with the mean length of every span."""
        starts, ends = self.term_offsets[rows], self.term_offsets[rows + 1]
        counts = ends - starts
        lengths = counts.astype(np.float64)
        mean = float(self.term_offsets[-1]) / max(self.count, 1)
        wanted = np.asarray([term_hash(t) for t in query_terms], dtype=np.uint64)
        tf = np.zeros((len(rows), len(wanted)), dtype=np.float64)
        total = int(lengths.sum())
        if total and len(wanted):
            first = np.repeat(
                starts - (np.cumsum(lengths.astype(np.int64)) - lengths.astype(np.int64)),
                lengths.astype(np.int64),
            )
            flat = self.terms[np.arange(total) + first]
            owner = np.repeat(np.arange(len(rows)), lengths.astype(np.int64))
            for j, term in enumerate(wanted):
                tf[:, j] = np.bincount(owner[flat == term], minlength=len(rows))
        norm = k1 * ((1 - b) + b * lengths / max(mean, 1e-9))
        scores = (idf[None, :] * (tf / (norm[:, None] + tf))).sum(axis=1)
        result: npt.NDArray[np.float32] = scores.astype(np.float32)
        return result


def _map(path: Path, name: str, count: int) -> npt.NDArray[Any]:
    file, dtype, width = _FILES[name]
    shape: Sequence[int] = (count,) if width == 1 else (count, width)
    if count == 0:
        return np.zeros(shape, dtype=dtype)
    return np.memmap(path / file, dtype=dtype, mode="r", shape=tuple(shape))


def _map_flat(file: Path, dtype: str, count: int) -> npt.NDArray[Any]:
    if count == 0:
        return np.zeros(0, dtype=dtype)
    return np.memmap(file, dtype=dtype, mode="r", shape=(count,))


def _offsets(ends: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    offsets = np.zeros(len(ends) + 1, dtype=np.int64)
    offsets[1:] = ends
    return offsets


def _truncate(file: Path, size: int) -> None:
    if not file.exists():
        file.touch()
    if file.stat().st_size != size:
        with file.open("r+b") as handle:
            handle.truncate(size)
