"""The dense ranker: WordLlama static embeddings, cosine similarity, then token matching.

WordLlama (MIT licence) is a token-embedding table distilled from a large language model's
input embeddings: a text's vector is the mean of its tokens' vectors, L2-normalised. No neural
network runs at query time, so a query embeds in microseconds and 100,000 spans in seconds on
one core.

A mean of token vectors blurs which words a span has: every cell of one table shares its
caption, every sentence of an article its topic. So the ranker reorders its cosine top
:data:`~ledger.retrieval.retriever.DEPTH` by ``0.5 cosine + 0.5 token match``, where the token
match is, for each content token of the query, its best cosine with any token of the span,
averaged over the query's content tokens (late interaction over static token vectors, as
ColBERT scores contextual ones). Span token ids are stored with the span's vector.

The package ships its 256-dimension weights and its tokenizer inside the wheel; this module
loads both files from the installed package and never calls the package's own loader, which
looks for the tokenizer under a path the wheel does not use and then tries the network. Nothing
is fetched at run time.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
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
TOKEN_MATCH = 0.5
"""Weight of the token match in a candidate's dense score (the rest is the pooled cosine)."""
CONTEXT_WINDOW = 2
"""Prose spans on each side of a prose span whose vectors make its context."""
CONTEXT_WEIGHT = 4.0
"""Weight of that context against the span's own vector in its stored vector."""
_FUNCTION_WORDS_TEXT = """
    a an the of to in on at for by with from and or but is are was were be been being has
    have had do does did it its this that these those as which what who whom how when where
    why than then there their they them he she his her not no yes s i we you our your my me us
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())
"""Word-initial tokens that match almost any span, left out of the query's token match."""

Vectors = npt.NDArray[np.float32]
_CHUNK = 256
"""Texts tokenized at a time (one call into the tokenizer)."""
_POOL = 32
"""Texts pooled at a time: their gathered token vectors (about 1 MB for sentences) stay in the
processor's cache; pooling 256 at a time was 5 times slower (4.8 s against 0.9 s for 100,000
sentences)."""


def _package_dir() -> Path:
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError("the dense ranker needs the wordllama package")
    return Path(next(iter(spec.submodule_search_locations)))


def _version() -> str:
    from importlib.metadata import version

    return (
        f"{version('wordllama')}-{DIMENSIONS}d+match{TOKEN_MATCH}"
        f"+context{CONTEXT_WINDOW}x{CONTEXT_WEIGHT}+cell-labels"
    )


Tokens = npt.NDArray[np.uint16]
"""A text's token ids (the vocabulary has 32,000 entries)."""


@dataclass(frozen=True)
class DenseQuery:
    """A query as the dense ranker reads it: its unit vector, the unit vectors of its
    content tokens, and the unit token table the spans' token ids index."""

    vector: Vectors
    tokens: Vectors
    table: Vectors


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
        norms = np.linalg.norm(self.table, axis=1, keepdims=True)
        self.unit_table: Vectors = np.divide(
            self.table, norms, out=np.zeros_like(self.table), where=norms > 0
        )
        self.content = self._content_tokens()

    def _content_tokens(self) -> npt.NDArray[np.bool_]:
        """Tokens with a letter or digit that are not a word-initial function word."""
        content = np.zeros(self.table.shape[0], dtype=bool)
        for piece, i in self.tokenizer.get_vocab().items():
            if i >= len(content):
                continue
            word = piece.replace("\u2581", "").lower()
            alnum = any(c.isalnum() for c in word)
            content[i] = alnum and not (piece.startswith("\u2581") and word in FUNCTION_WORDS)
        return content

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors of ``texts`` (a text without tokens gets the zero vector)."""
        return self.embed_with_tokens(texts)[0]

    def embed_with_tokens(self, texts: Sequence[str]) -> tuple[Vectors, list[Tokens]]:
        """Unit vectors of ``texts`` and each text's token ids (what a span stores)."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        tokens: list[Tokens] = []
        for begin in range(0, len(texts), _CHUNK):
            chunk = texts[begin : begin + _CHUNK]
            tokens.extend(self._embed_into(chunk, out[begin : begin + _CHUNK]))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out, tokens

    def query(self, text: str) -> DenseQuery:
        """The query's vector and its content tokens' unit vectors (all its tokens when it
        has no content token)."""
        vectors, (ids,) = self.embed_with_tokens([text])
        unique = np.unique(ids)
        content = unique[self.content[unique]]
        chosen = content if len(content) else unique
        return DenseQuery(vectors[0], self.unit_table[chosen], self.unit_table)

    def _embed_into(self, texts: Sequence[str], out: Vectors) -> list[Tokens]:
        encodings = self.tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(texts))
        ids = np.fromiter(
            (i for e in encodings for i in e.ids), dtype=np.int64, count=int(lengths.sum())
        )
        np.clip(ids, 0, self.table.shape[0] - 1, out=ids)
        ends = np.cumsum(lengths)
        for begin in range(0, len(texts), _POOL):
            stop = min(begin + _POOL, len(texts))
            low = int(ends[begin - 1]) if begin else 0
            part = lengths[begin:stop]
            filled = part > 0
            if filled.any():
                starts = (np.cumsum(part) - part)[filled]
                pooled = np.add.reduceat(self.table[ids[low : int(ends[stop - 1])]], starts, axis=0)
                out[begin:stop][filled] = pooled
        return np.split(ids.astype(np.uint16), ends[:-1])


def in_context(
    vectors: Vectors,
    documents: Sequence[Hashable | None],
    window: int = CONTEXT_WINDOW,
    weight: float = CONTEXT_WEIGHT,
) -> Vectors:
    """Each prose span's vector plus ``weight`` times the mean vector of the prose spans
    within ``window`` of it in its document (itself included), at unit length again.

    A sentence often names its subject only by a pronoun or not at all ("It opened in
    1998."); its neighbours name it. Joining them moves the sentence towards what its
    passage is about, which a claim about that subject shares. Texts whose document is
    ``None`` are left as they are. ``vectors`` is not changed."""
    if len(documents) != len(vectors):
        raise ValueError("every vector needs its document (or None)")
    members: dict[Hashable, list[int]] = {}
    for i, document in enumerate(documents):
        if document is not None:
            members.setdefault(document, []).append(i)
    out = vectors.copy()
    for indices in members.values():
        rows = vectors[indices]
        sums = np.concatenate((np.zeros((1, rows.shape[1]), rows.dtype), np.cumsum(rows, axis=0)))
        place = np.arange(len(indices))
        low = np.maximum(place - window, 0)
        high = np.minimum(place + window + 1, len(indices))
        out[indices] = rows + weight * (sums[high] - sums[low]) / (high - low)[:, None]
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


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


def sign_bits(vectors: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.uint64]:
    """Each vector's sign bits, packed into 64-bit words (what the shortlist compares)."""
    packed: npt.NDArray[np.uint64] = np.packbits(vectors > 0, axis=1).view(np.uint64)
    return packed


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

    def __init__(
        self, vectors: Vectors, version: str, tokens: Sequence[Tokens] | None = None
    ) -> None:
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.version = version
        self._bits: npt.NDArray[np.uint64] | None = None
        if len(self.vectors) >= SHORTLIST_FROM and self.vectors.shape[1] % 64 == 0:
            self._bits = sign_bits(self.vectors)
        self._tokens: Tokens | None = None
        self._offsets = np.zeros(len(self.vectors) + 1, dtype=np.int64)
        if tokens is not None:
            if len(tokens) != len(self.vectors):
                raise ValueError("every span needs its token ids")
            lengths = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=len(tokens))
            np.cumsum(lengths, out=self._offsets[1:])
            self._tokens = (
                np.concatenate(tokens).astype(np.uint16) if len(tokens) else np.zeros(0, np.uint16)
            )

    @classmethod
    def over(
        cls,
        vectors: npt.NDArray[np.floating[Any]],
        version: str,
        signs: npt.NDArray[np.uint64],
        tokens: Tokens,
        offsets: npt.NDArray[np.int64],
    ) -> DenseRanker:
        """A ranker over arrays kept elsewhere (memory-mapped files: nothing is copied):
        unit vectors (float16 or float32), their sign bits (:func:`sign_bits`), every span's
        token ids end to end and the ``len + 1`` offsets where each span's ids begin."""
        ranker = cls.__new__(cls)
        ranker.vectors = vectors
        ranker.version = version
        ranker._bits = signs if len(vectors) >= SHORTLIST_FROM else None
        ranker._tokens = tokens
        ranker._offsets = offsets
        return ranker

    def rank(
        self, query: DenseQuery | Vectors, eligible: npt.NDArray[np.bool_], depth: int
    ) -> list[tuple[int, float]]:
        """The ``depth`` eligible spans most similar to ``query``, as (index, score): by
        cosine, then, when the spans' tokens are known and ``query`` is a
        :class:`DenseQuery`, reordered by ``(1 - TOKEN_MATCH) cosine + TOKEN_MATCH match``."""
        if isinstance(query, DenseQuery):
            nearest = self._nearest(query.vector, eligible, depth)
            return self._rescored(nearest, query) if self._tokens is not None else nearest
        return self._nearest(query, eligible, depth)

    def _rescored(
        self, nearest: list[tuple[int, float]], query: DenseQuery
    ) -> list[tuple[int, float]]:
        if not nearest or not len(query.tokens):
            return nearest
        assert self._tokens is not None
        spans = np.fromiter((i for i, _ in nearest), dtype=np.int64, count=len(nearest))
        starts, ends = self._offsets[spans], self._offsets[spans + 1]
        lengths = ends - starts
        filled = lengths > 0
        match = np.zeros(len(spans), dtype=np.float32)
        if filled.any():
            lengths_f = lengths[filled]
            # Positions of every candidate's tokens in the flat array, candidate by candidate.
            first = np.repeat(starts[filled] - (np.cumsum(lengths_f) - lengths_f), lengths_f)
            ids = self._tokens[np.arange(int(lengths_f.sum())) + first]
            distinct, which = np.unique(ids, return_inverse=True)
            similar = (query.tokens @ query.table[distinct].T)[:, which]
            segments = np.concatenate(([0], np.cumsum(lengths_f)[:-1]))
            best = np.maximum.reduceat(similar, segments, axis=1)
            match[filled] = best.mean(axis=0)
        cosine = np.fromiter((c for _, c in nearest), dtype=np.float32, count=len(nearest))
        scores = (1 - TOKEN_MATCH) * cosine + TOKEN_MATCH * match
        order = np.lexsort((spans, -scores))
        return [(int(spans[j]), float(scores[j])) for j in order]

    def _nearest(
        self, query: Vectors, eligible: npt.NDArray[np.bool_], depth: int
    ) -> list[tuple[int, float]]:
        if not len(self.vectors) or not np.any(query):
            return []
        if self._bits is None or depth * 10 > SHORTLIST:
            scores = np.asarray(self.vectors @ query, dtype=np.float32)
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
        exact = np.asarray(self.vectors[shortlist] @ query, dtype=np.float32)
        return [(int(shortlist[i]), score) for i, score in top(exact, depth)]
