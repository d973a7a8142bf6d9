"""An immutable snapshot of every indexed span with its sparse and dense rankers, in memory.

The reference adapter of the retrieval port (:mod:`ledger.retrieval.port`): the unit tests
and the evaluation's naive reference use it; the service runs on :mod:`projections.search`.

The snapshot holds every version of every source, superseded and withdrawn ones included, so
a query ``as_of`` a past moment sees what was in force then; which spans a query may see is a
mask computed per query (:meth:`SpanIndex.eligible`). Effective times are ledger-format
strings (fixed width, they sort like the times), compared as fixed-width byte arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ledger.retrieval.dense import (
    CONTEXT_WEIGHT,
    CONTEXT_WINDOW,
    DenseQuery,
    DenseRanker,
    Embedder,
    Tokens,
    Vectors,
    in_context,
)
from ledger.retrieval.sparse import SparseRanker
from ledger.retrieval.terms import terms
from ledger.text.tables import cell_labels

_FOREVER = "9999-12-31T23:59:59.999999Z"


@dataclass(frozen=True, slots=True)
class IndexedSpan:
    """One span of one source version, with what a retrieval answer shows of it."""

    span_id: str
    source_id: str
    version: int
    start: int
    end: int
    text: str
    heading_path: tuple[str, ...]
    envelope: str | None
    table_ref: dict[str, Any] | None
    authority: str
    effective_from: str
    effective_to: str | None
    withdrawn: bool

    @property
    def ranked_text(self) -> str:
        """What the rankers and the gate read: the breadcrumb, then the text (a cell's
        envelope, which carries its title, headers and value)."""
        body = self.envelope if self.envelope is not None else self.text
        return " / ".join((*self.heading_path, body)) if self.heading_path else body

    @property
    def embedded_text(self) -> str:
        """What the dense ranker embeds: a prose span's ranked text; a cell's row labels and
        column header alone. The table's heading is every cell's, and in a mean of token
        vectors it makes the cells of one table near-identical, the labels that tell them apart
        drowned (measured in docs/retrieval.md); the sparse ranker still reads the heading."""
        if self.envelope is None:
            return self.ranked_text
        return cell_labels(self.envelope, self.text)

    def served(self) -> dict[str, Any]:
        """The span as the verified-spans check compares it (``check_served``)."""
        return {
            "span_id": self.span_id,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "heading_path": list(self.heading_path),
            "envelope": self.envelope,
        }


def embed_spans(
    embedder: Embedder,
    spans: Sequence[IndexedSpan],
    window: int = CONTEXT_WINDOW,
    weight: float = CONTEXT_WEIGHT,
) -> tuple[Vectors, list[Tokens]]:
    """The vectors and token ids ``spans`` are stored with, from their
    :attr:`~IndexedSpan.embedded_text`: a table cell's from its labels alone, a prose span's
    with its neighbours in its version as context (:func:`~ledger.retrieval.dense.in_context`).
    Spans of one version come in reading order."""
    vectors, tokens = embedder.embed_with_tokens([s.embedded_text for s in spans])
    documents = [(s.source_id, s.version) if s.envelope is None else None for s in spans]
    return in_context(vectors, documents, window, weight), tokens


def span_terms(span: IndexedSpan) -> list[str]:
    """The terms a span is indexed under."""
    return terms(span.ranked_text)


class SpanIndex:
    """Spans, their terms, unit vectors and token ids, and the two rankers over them
    (without ``tokens`` the dense ranker orders by cosine alone)."""

    def __init__(
        self,
        spans: Sequence[IndexedSpan],
        span_terms: Sequence[Sequence[str]],
        vectors: Vectors,
        dense_version: str,
        position: int = 0,
        tokens: Sequence[Tokens] | None = None,
    ) -> None:
        if not (len(spans) == len(span_terms) == len(vectors)) or vectors.ndim != 2:
            raise ValueError("spans, terms and vectors (a matrix) must have the same length")
        self.spans = list(spans)
        self.terms = list(span_terms)
        self.position = position
        """The notification id the snapshot reflects."""
        self.sparse = SparseRanker(self.terms)
        self.dense = DenseRanker(vectors, dense_version, tokens)
        n = len(self.spans)
        self._from = np.array([s.effective_from for s in self.spans], dtype="S27").reshape(n)
        self._to = np.array([s.effective_to or _FOREVER for s in self.spans], dtype="S27").reshape(
            n
        )
        self._withdrawn = np.fromiter((s.withdrawn for s in self.spans), dtype=bool, count=n)
        self._sources = np.array([s.source_id for s in self.spans], dtype=object).reshape(n)
        self._authorities = np.array([s.authority for s in self.spans], dtype=object).reshape(n)

    def __len__(self) -> int:
        return len(self.spans)

    @property
    def dense_version(self) -> str:
        """The dense model and method that made the vectors."""
        return self.dense.version

    def sparse_rank(
        self, query_terms: Sequence[str], eligible: npt.NDArray[np.bool_], depth: int
    ) -> list[tuple[int, float]]:
        """The ``depth`` best eligible spans by BM25 (keys are positions)."""
        return self.sparse.rank(query_terms, eligible, depth)

    def dense_rank(
        self, query: DenseQuery, eligible: npt.NDArray[np.bool_], depth: int
    ) -> list[tuple[int, float]]:
        """The ``depth`` best eligible spans by the dense score (keys are positions)."""
        return self.dense.rank(query, eligible, depth)

    def source_versions(self, keys: Sequence[int]) -> dict[int, tuple[str, int]]:
        """The source id and version at each position."""
        return {key: (self.spans[key].source_id, self.spans[key].version) for key in keys}

    def fetch(self, keys: Sequence[int]) -> dict[int, tuple[IndexedSpan, Sequence[str]]]:
        """The span and terms at each position."""
        return {key: (self.spans[key], self.terms[key]) for key in keys}

    def eligible(
        self,
        as_of: str,
        source_ids: Sequence[str] | None = None,
        authorities: Sequence[str] | None = None,
    ) -> npt.NDArray[np.bool_]:
        """Spans of versions in force at ``as_of`` whose source is not withdrawn, within the
        optional source and authority filters."""
        moment = np.bytes_(as_of.encode())
        mask: npt.NDArray[np.bool_] = (self._from <= moment) & (moment < self._to)
        mask &= ~self._withdrawn
        if source_ids is not None:
            mask &= np.isin(self._sources, list(source_ids))
        if authorities is not None:
            mask &= np.isin(self._authorities, list(authorities))
        return mask


EMPTY_INDEX_VERSION = "none"


def empty_index(dimensions: int = 256) -> SpanIndex:
    """An index with no spans."""
    return SpanIndex([], [], np.zeros((0, dimensions), dtype=np.float32), EMPTY_INDEX_VERSION)
