"""The retrieval index as the retriever reads it: a port, whatever engine stands behind it.

The retriever (:mod:`ledger.retrieval.retriever`) asks an index five things: which spans a
query may see (:meth:`SearchIndex.eligible`), the best of them by BM25 and by the dense
score, each restricted to those, the source version of every candidate (for the visibility
filter) and the spans and terms of the candidates it walks in fused order until ``k`` pass
the gate. Two
adapters answer: :class:`ledger.retrieval.index.SpanIndex`, every span in memory (the
reference the unit tests and the evaluation compare with), and the search index the service
runs on (:mod:`projections.search`: Tantivy for BM25, memory-mapped arrays for the dense
side, maintained from the retrieval read model). docs/scaling.md says what an adapter for a
distributed engine must do.

Candidates are named by an integer key the index chooses (a position, a document number);
the retriever only passes keys back to the same index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ledger.retrieval.dense import DenseQuery
from ledger.retrieval.index import IndexedSpan

Eligible = Any
"""Which spans one query may see: what :meth:`SearchIndex.eligible` answered, passed back to
the same index as it is (its type is the adapter's own)."""


class SearchIndex(Protocol):
    """What the retriever needs of an index."""

    @property
    def dense_version(self) -> str:
        """The dense model and method that made the stored vectors."""

    def __len__(self) -> int:
        """How many spans the index holds (every version, in force or not)."""

    def eligible(
        self,
        as_of: str,
        source_ids: Sequence[str] | None = None,
        authorities: Sequence[str] | None = None,
    ) -> Eligible:
        """Spans of versions in force at ``as_of``, not withdrawn, within the filters."""

    def sparse_rank(
        self, query_terms: Sequence[str], eligible: Eligible, depth: int
    ) -> list[tuple[int, float]]:
        """The ``depth`` best eligible spans by BM25 with a positive score, best first."""

    def dense_rank(
        self, query: DenseQuery, eligible: Eligible, depth: int
    ) -> list[tuple[int, float]]:
        """The ``depth`` best eligible spans by the dense score, best first."""

    def source_versions(self, keys: Sequence[int]) -> Mapping[int, tuple[str, int]]:
        """The source id and version of each key (what the visibility filter is asked)."""

    def fetch(self, keys: Sequence[int]) -> Mapping[int, tuple[IndexedSpan, Sequence[str]]]:
        """The span and the terms of each key (the candidates the retriever walks)."""
