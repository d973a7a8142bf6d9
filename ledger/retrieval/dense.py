"""The dense ranker: WordLlama static embeddings, cosine similarity.

WordLlama (MIT licence) is a token-embedding table distilled from a large language model's
input embeddings: a text's vector is the mean of its tokens' vectors, L2-normalised. No
neural network runs at query time, so a query embeds in microseconds and 100,000 spans in
seconds on one core. The package ships its 256-dimension weights and its tokenizer inside the
wheel; this module loads both files from the installed package and never calls the
package's own loader, which looks for the tokenizer under a path the wheel does not use and
then tries the network. Nothing is fetched at run time.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ledger.errors import ConfigurationError
from ledger.retrieval.sparse import top

NAME = "wordllama-l2-supercat"
DIMENSIONS = 256
_WEIGHTS = f"weights/l2_supercat_{DIMENSIONS}.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
MAX_TOKENS = 256
"""Tokens of a text that count (longer texts are truncated; spans are sentences and cells)."""

Vectors = npt.NDArray[np.float32]
_CHUNK = 256
"""Texts embedded at a time: the gathered token vectors of a chunk stay in cache."""


def _package_dir() -> Path:
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError("the dense ranker needs the wordllama package")
    return Path(next(iter(spec.submodule_search_locations)))


def _version() -> str:
    from importlib.metadata import version

    return f"{version('wordllama')}-{DIMENSIONS}d"


class Embedder:
    """Texts to unit vectors with the packaged WordLlama table (one per process)."""

    name = NAME

    def __init__(self) -> None:
        # One thread: a request is served on one core; the speed figures assume it.
        os.environ.setdefault("RAYON_NUM_THREADS", "1")
        from safetensors import safe_open
        from tokenizers import Tokenizer

        root = _package_dir()
        with safe_open(str(root / _WEIGHTS), framework="np") as weights:
            table = weights.get_tensor("embedding.weight")
        self.table: Vectors = np.ascontiguousarray(table.astype(np.float32))
        self.tokenizer: Any = Tokenizer.from_file(str(root / _TOKENIZER))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.version = _version()
        self.dimensions = int(self.table.shape[1])

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors of ``texts`` (a text without tokens gets the zero vector)."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for begin in range(0, len(texts), _CHUNK):
            self._embed_into(texts[begin : begin + _CHUNK], out[begin : begin + _CHUNK])
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def _embed_into(self, texts: Sequence[str], out: Vectors) -> None:
        encodings = self.tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(texts))
        ids = np.fromiter(
            (i for e in encodings for i in e.ids), dtype=np.int64, count=int(lengths.sum())
        )
        np.clip(ids, 0, self.table.shape[0] - 1, out=ids)
        filled = lengths > 0
        if filled.any():
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[filled]
            out[filled] = np.add.reduceat(self.table[ids], starts, axis=0)


_shared: dict[str, Embedder] = {}
_shared_lock = threading.Lock()


def shared_embedder() -> Embedder:
    """The process's embedder, loaded on first use (0.15 s; 33 MB of weights)."""
    with _shared_lock:
        if NAME not in _shared:
            _shared[NAME] = Embedder()
        return _shared[NAME]


SHORTLIST_FROM = 20_000
"""From this many spans on, a query first shortlists by the Hamming distance of sign bits."""
SHORTLIST = 2_000
"""Spans scored exactly per query on a large index (at least 10 times the depth asked)."""


class DenseRanker:
    """Cosine similarity of a query vector with a fixed matrix of unit span vectors.

    Over a large index a query reads the spans' sign bits first (32 bytes a span, against
    1 KB of floats): the :data:`SHORTLIST` eligible spans nearest in Hamming distance are
    then scored exactly. Sign bits of unit vectors approximate their angle (random-hyperplane
    hashing, Charikar 2002), so the exact top of the shortlist is the exact top overall
    unless a near neighbour's signs disagree unusually often; ``retrieval_eval`` measures the
    whole pipeline with it.
    """

    name = NAME

    def __init__(self, vectors: Vectors, version: str) -> None:
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.version = version
        self._bits: npt.NDArray[np.uint64] | None = None
        if len(self.vectors) >= SHORTLIST_FROM and self.vectors.shape[1] % 64 == 0:
            self._bits = np.packbits(self.vectors > 0, axis=1).view(np.uint64)

    def rank(
        self, query: Vectors, eligible: npt.NDArray[np.bool_], depth: int
    ) -> list[tuple[int, float]]:
        """The ``depth`` eligible spans most similar to ``query``, as (index, cosine)."""
        if not len(self.vectors) or not np.any(query):
            return []
        if self._bits is None or depth * 10 > SHORTLIST:
            scores = self.vectors @ query
            return top(np.where(eligible, scores, -np.inf), depth)
        signs = np.packbits(query > 0).view(np.uint64)
        counts = np.bitwise_count(self._bits ^ signs)
        distance = counts[:, 0].astype(np.int32)
        for word in range(1, counts.shape[1]):  # column sums: 10x faster than sum(axis=1)
            distance += counts[:, word]
        distance[~eligible] = np.iinfo(np.int32).max
        size = min(SHORTLIST, int(eligible.sum()))
        if size <= 0:
            return []
        shortlist = np.argpartition(distance, size - 1)[:size]
        shortlist.sort()
        exact = self.vectors[shortlist] @ query
        return [(int(shortlist[i]), score) for i, score in top(exact, depth)]
