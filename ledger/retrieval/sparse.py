"""The sparse ranker: Okapi BM25 over span terms, scored by ``bm25s``.

``bm25s`` precomputes every (term, span) score into a sparse matrix at build time, so a query
costs one sum of a few matrix rows: milliseconds over 100,000 spans. Scoring is Lucene's BM25
(non-negative idf) with ``k1`` :data:`K1` and ``b`` :data:`B`, chosen on the evaluation's tune
half (``docs/retrieval.md``); the re-attribution ranker keeps its own 1.5 and 0.75.
Spans a query may not see are masked out of the scores; they stay in the collection
statistics, so a span's score does not depend on who asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib.metadata import version
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

NAME = "bm25s-lucene"
K1 = 0.9
"""Term-frequency saturation: a sentence or a cell rarely repeats a word, so it saturates early."""
B = 0.5
"""Length normalisation: weak, so a long sentence that restates a claim is not pushed down."""


@cache
def ranker_version() -> str:
    """The library's version, our term rules' (``terms1``) and the parameters: stored ranks
    change with any of them (read once: a metadata lookup costs 0.1 s)."""
    return f"{version('bm25s')}+terms1.k1-{K1}.b-{B}"


class SparseRanker:
    """BM25 over a fixed list of documents, each a list of terms."""

    name = NAME

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = K1, b: float = B):
        self.size = len(documents)
        self._model: Any = None
        if self.size and any(documents):
            import bm25s  # 0.2 s to import: only a process that builds an index pays it

            self._model = bm25s.BM25(k1=k1, b=b, method="lucene")
            self._model.scores, self._model.vocab_dict = score_matrix(documents, k1, b)
            self._model.unique_token_ids_set = set(self._model.vocab_dict.values())
            self._model.nonoccurrence_array = None

    def scores(self, query_terms: Sequence[str]) -> npt.NDArray[np.float32]:
        """Every document's BM25 score for the query (0 for documents sharing no term)."""
        if self._model is None:
            return np.zeros(self.size, dtype=np.float32)
        known = [term for term in dict.fromkeys(query_terms) if term in self._model.vocab_dict]
        if not known:
            return np.zeros(self.size, dtype=np.float32)
        result: npt.NDArray[np.float32] = self._model.get_scores(known)
        return result

    def rank(
        self, query_terms: Sequence[str], eligible: npt.NDArray[np.bool_], depth: int
    ) -> list[tuple[int, float]]:
        """The ``depth`` best eligible documents with a positive score, as (index, score)."""
        scores = self.scores(query_terms)
        return top(np.where(eligible & (scores > 0), scores, -np.inf), depth)


def score_matrix(
    documents: Sequence[Sequence[str]], k1: float, b: float
) -> tuple[dict[str, Any], dict[str, int]]:
    """``bm25s``'s index (its CSC score matrix and vocabulary) built with whole-array numpy.

    ``bm25s`` builds the same matrix with a Python loop and a few numpy calls per document,
    10 s for 100,000 spans on this machine; this builds it from one sort of (term, span)
    keys. Lucene's BM25, as ``bm25s`` computes it: ``idf(t) = ln(1 + (N - df + 0.5) /
    (df + 0.5))`` times ``tf / (k1 (1 - b + b len / avglen) + tf)``.
    ``tests/unit/retrieval/test_rankers.py`` holds it to ``bm25s``'s own index.
    """
    terms = list(chain.from_iterable(documents))
    vocab = {term: i for i, term in enumerate(dict.fromkeys(terms))}
    flat = np.fromiter(map(vocab.__getitem__, terms), dtype=np.int64, count=len(terms))
    n = len(documents)
    lengths = np.fromiter((len(doc) for doc in documents), dtype=np.int64, count=n)
    keys = flat * n + np.repeat(np.arange(n, dtype=np.int64), lengths)
    unique, tf = np.unique(keys, return_counts=True)  # sorted by term, then span: CSC order
    term, doc = np.divmod(unique, n)
    df = np.bincount(term, minlength=len(vocab))
    idf = np.log1p((n - df + 0.5) / (df + 0.5))
    norm = k1 * ((1 - b) + b * lengths[doc] / max(float(lengths.mean()), 1e-9))
    data = (idf[term] * (tf / (norm + tf))).astype(np.float32)
    indptr = np.concatenate(([0], np.cumsum(df))).astype(np.int64)
    matrix = {"data": data, "indices": doc.astype(np.int32), "indptr": indptr, "num_docs": n}
    return matrix, vocab


def top(scores: npt.NDArray[np.floating[Any]], depth: int) -> list[tuple[int, float]]:
    """Indexes of the ``depth`` highest finite scores, best first (ties: lower index first)."""
    finite = int(np.isfinite(scores).sum())
    depth = min(depth, finite)
    if depth <= 0:
        return []
    if depth < len(scores):
        part = np.argpartition(-scores, depth - 1)[:depth]
    else:
        part = np.arange(len(scores))
    order = part[np.lexsort((part, -scores[part]))]
    return [(int(i), float(scores[i])) for i in order if np.isfinite(scores[i])]
