"""The search index as the retriever reads it (:class:`ledger.retrieval.port.SearchIndex`):
a snapshot of the index folder, the version table, and the rows of the candidates.

Keys are document numbers (``retrieval_spans.row_id``). Nothing here is copied per query
but the eligibility flags: one per version, and for the dense side one per span, gathered
from the version of each span.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ledger.retrieval.dense import DenseQuery
from ledger.retrieval.index import IndexedSpan
from ledger.retrieval.sparse import K1, B
from projections.search.directory import Snapshot
from projections.search.versions import VersionTable

SpanRows = Callable[[Sequence[int]], Mapping[int, tuple[IndexedSpan, Sequence[str]]]]
"""The span and terms of each document number (read from ``retrieval_spans``)."""
POOL = 1_000
"""Candidates Tantivy hands over for the retriever's BM25 (five times its depth)."""
FEW = 50_000
"""At most this many eligible spans may be named to Tantivy as a filter."""


@dataclass
class Eligibility:
    """Which versions one query may see, and (computed when first asked) which spans."""

    versions: npt.NDArray[np.bool_]
    span_keys: npt.NDArray[np.int32]
    _spans: npt.NDArray[np.bool_] | None = field(default=None, repr=False)

    @property
    def spans(self) -> npt.NDArray[np.bool_]:
        """One flag per document number."""
        if self._spans is None:
            known = self.span_keys < len(self.versions)
            flags = np.zeros(len(self.span_keys), dtype=bool)
            flags[known] = self.versions[self.span_keys[known]]
            self._spans = flags
        return self._spans

    def allows(self, row: int) -> bool:
        """Whether the span numbered ``row`` may be seen."""
        if row >= len(self.span_keys):
            return False
        key = int(self.span_keys[row])
        return key < len(self.versions) and bool(self.versions[key])

    def few(self) -> list[int] | None:
        """Every eligible document number, when there are at most :data:`FEW`."""
        if int(self.versions.sum()) == 0:
            return []
        spans = self.spans
        if int(spans.sum()) > FEW:
            return None
        return [int(i) for i in np.flatnonzero(spans)]


class EngineIndex:
    """One query's view of the search index."""

    def __init__(self, snapshot: Snapshot | None, versions: VersionTable, rows: SpanRows):
        self.snapshot = snapshot
        self.versions = versions
        self.rows = rows

    @property
    def dense_version(self) -> str:
        """The dense model of the stored vectors (``none`` while the index is empty)."""
        return self.snapshot.state.model if self.snapshot is not None else "none"

    def __len__(self) -> int:
        return self.snapshot.state.rows if self.snapshot is not None else 0

    def eligible(
        self,
        as_of: str,
        source_ids: Sequence[str] | None = None,
        authorities: Sequence[str] | None = None,
    ) -> Eligibility:
        """The versions in force at ``as_of``, not withdrawn, within the filters."""
        keys = (
            self.snapshot.arrays.version_keys
            if self.snapshot is not None
            else np.zeros(0, dtype=np.int32)
        )
        return Eligibility(self.versions.eligible(as_of, source_ids, authorities), keys)

    def sparse_rank(
        self, query_terms: Sequence[str], eligible: Eligibility, depth: int
    ) -> list[tuple[int, float]]:
        """The best eligible spans by BM25 with the retriever's ``k1`` and ``b``
        (:mod:`ledger.retrieval.sparse`), scored over Tantivy's best :data:`POOL` (by its
        own parameters), more when too few of those were eligible.

        A filter clause in the Tantivy query would turn block-max WAND off (16 ms against
        0.8 ms a query at a million spans, docs/dependencies.md), so spans the query may not
        see are dropped after; they stay in the collection statistics, so a span's score
        does not depend on who asks. Past ``16 POOL`` the eligible spans, when few, become
        the query's filter."""
        if self.snapshot is None or not eligible.versions.any() or depth <= 0:
            return []
        lexical, arrays = self.snapshot.lexical, self.snapshot.arrays
        distinct = list(dict.fromkeys(query_terms))
        if not distinct:
            return []
        n = len(self)
        frequencies = np.array([lexical.document_frequency(t) for t in distinct], dtype=float)
        idf = np.log1p((n - frequencies + 0.5) / (frequencies + 0.5))
        limit = max(POOL, 2 * depth)
        within: list[int] | None = None
        while True:
            pool = lexical.candidates(distinct, limit, within)
            rows = np.array([r for r in pool if r < n and eligible.allows(r)], dtype=np.int64)
            complete = len(pool) < limit or within is not None
            if len(rows) >= depth or complete:
                break
            limit *= 4
            if limit > 16 * POOL:
                within = eligible.few()
        if not len(rows):
            return []
        scores = arrays.bm25(rows, distinct, idf, K1, B)
        order = np.lexsort((rows, -scores))[:depth]
        return [(int(rows[i]), float(scores[i])) for i in order if scores[i] > 0]

    def dense_rank(
        self, query: DenseQuery, eligible: Eligibility, depth: int
    ) -> list[tuple[int, float]]:
        """The best eligible spans by the dense score (the mapped arrays)."""
        if self.snapshot is None or not eligible.versions.any():
            return []
        return self.snapshot.arrays.dense_rank(query, eligible.spans, depth)

    def source_versions(self, keys: Sequence[int]) -> dict[int, tuple[str, int]]:
        """The source id and version of each document number (from the mapped version keys
        and the version table: nothing is read from the database)."""
        if self.snapshot is None:
            return {}
        span_keys = self.snapshot.arrays.version_keys
        table = self.versions
        return {
            key: (table.sources[int(span_keys[key])], table.numbers[int(span_keys[key])])
            for key in keys
        }

    def fetch(self, keys: Sequence[int]) -> Mapping[int, tuple[IndexedSpan, Sequence[str]]]:
        """The span and terms of each document number, from the read model."""
        return self.rows(keys) if keys else {}
