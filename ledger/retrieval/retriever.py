"""One hybrid retrieval: rank, withhold what the principal may not see, fuse, then withhold
what fails the lexical gate, until ``k`` spans are found.

1. Both rankers rank the spans in force at ``as_of`` (and within the request's filters) and
   hand over their best :data:`DEPTH` candidates.
2. The visibility filter is asked about each candidate's source version; a withheld one is
   counted under its code and dropped from both lists, so it takes no rank and moves no other
   candidate's rank, RRF score or place.
3. Reciprocal Rank Fusion (k = 60) merges the two lists.
4. Candidates are taken in fused order and the lexical gate asked about each one's text; a
   refusal is counted and the walk goes on, so up to ``k`` spans leave and each passed both.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from ledger.errors import ConfigurationError, InvalidInput
from ledger.retrieval import dense, sparse
from ledger.retrieval.dense import Embedder
from ledger.retrieval.fusion import RRF_K, reciprocal_rank_fusion
from ledger.retrieval.gate import GATE_EXCLUSION, LexicalGate
from ledger.retrieval.index import IndexedSpan
from ledger.retrieval.port import SearchIndex
from ledger.retrieval.terms import gate_terms, terms
from ledger.retrieval.visibility import AllowAll, CachedFilter, SourceFilter

MAX_K = 100
DEPTH = 200
"""Candidates each ranker hands to the fusion (at least ``2 k``)."""
FUSION_NAME = "rrf"


@dataclass(frozen=True)
class RetrievalQuery:
    """What to retrieve: the query text, how many, when, and within which sources."""

    query: str
    k: int
    as_of: str
    source_ids: tuple[str, ...] | None = None
    authorities: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Hit:
    """A span that left, with its place in each ranking (``None``: that ranker did not
    hand it over)."""

    span: IndexedSpan
    bm25: tuple[int, float] | None
    dense: tuple[int, float] | None
    rrf: float

    def scores(self) -> dict[str, Any]:
        """The scores as the API and the retrieval event show them."""

        def entry(place: tuple[int, float] | None) -> dict[str, Any] | None:
            return None if place is None else {"rank": place[0], "score": round(place[1], 6)}

        return {"bm25": entry(self.bm25), "dense": entry(self.dense), "rrf": round(self.rrf, 8)}


@dataclass(frozen=True)
class RetrievalOutcome:
    """The spans that left, best first, and how many candidates were withheld, by code."""

    hits: list[Hit]
    exclusions: dict[str, int] = field(default_factory=dict)
    rankers: list[dict[str, str]] = field(default_factory=list)


class HybridRetriever:
    """BM25 + dense, RRF, visibility filter, lexical gate."""

    def __init__(
        self, embedder: Embedder, gate: LexicalGate | None = None, depth: int = DEPTH
    ) -> None:
        self.embedder = embedder
        self.gate = gate if gate is not None else LexicalGate()
        self.depth = depth

    def rankers(self, index: SearchIndex) -> list[dict[str, str]]:
        """Names and versions of every stage, as a receipt records them."""
        return [
            {"name": sparse.NAME, "version": sparse.ranker_version(), "role": "sparse"},
            {"name": dense.NAME, "version": self.embedder.version, "role": "dense"},
            {"name": FUSION_NAME, "version": f"k={RRF_K}", "role": "fusion"},
            {"name": "lexical-gate", "version": f"r_lex>={self.gate.threshold}", "role": "gate"},
        ]

    def retrieve(
        self,
        index: SearchIndex,
        query: RetrievalQuery,
        visibility: SourceFilter | None = None,
        use: Collection[str] = ("bm25", "dense"),
    ) -> RetrievalOutcome:
        """The ``query.k`` best spans that pass visibility and the gate (``use`` names the
        rankers to fuse; the evaluation compares each alone with both)."""
        check_query(query)
        query_terms = terms(query.query)
        required = gate_terms(query.query)
        if not required:
            raise InvalidInput(
                "query",
                "content-terms",
                "the query has no content words once stop words are removed",
            )
        if len(index) and index.dense_version != self.embedder.version:
            raise ConfigurationError(
                f"the retrieval index holds {index.dense_version} vectors but queries are "
                f"embedded with {self.embedder.version}: run `provledger projections rebuild`"
            )
        eligible = index.eligible(query.as_of, query.source_ids, query.authorities)
        depth = max(self.depth, 2 * query.k)
        by_bm25 = index.sparse_rank(query_terms, eligible, depth) if "bm25" in use else []
        by_dense = (
            index.dense_rank(self.embedder.query(query.query), eligible, depth)
            if "dense" in use
            else []
        )
        # Visibility first: a withheld span takes no rank, so it moves no other span's rank,
        # RRF score or place (a principal learns nothing of it but its code's count).
        visible = CachedFilter(visibility if visibility is not None else AllowAll())
        excluded: Counter[str] = Counter()
        withheld: set[int] = set()
        asked = [] if isinstance(visible.inner, AllowAll) else [*by_bm25, *by_dense]
        versions = index.source_versions(list(dict.fromkeys(i for i, _ in asked)))
        for i, (source_id, version) in versions.items():
            code = visible.exclusion(source_id, version)
            if code is not None:
                excluded[code] += 1
                withheld.add(i)
        if withheld:
            by_bm25 = [(i, score) for i, score in by_bm25 if i not in withheld]
            by_dense = [(i, score) for i, score in by_dense if i not in withheld]
        places: dict[str, dict[int, tuple[int, float]]] = {
            "bm25": {i: (rank, score) for rank, (i, score) in enumerate(by_bm25, start=1)},
            "dense": {i: (rank, score) for rank, (i, score) in enumerate(by_dense, start=1)},
        }
        fused = reciprocal_rank_fusion(
            {"bm25": [i for i, _ in by_bm25], "dense": [i for i, _ in by_dense]}
        )
        hits: list[Hit] = []
        chunk = max(2 * query.k, 32)
        for begin in range(0, len(fused), chunk):
            part = fused[begin : begin + chunk]
            found = index.fetch([i for i, _ in part])  # only the candidates walked
            for i, rrf in part:
                span, span_terms = found[i]
                if not self.gate.passes(required, span_terms):
                    excluded[GATE_EXCLUSION] += 1
                    continue
                hits.append(Hit(span, places["bm25"].get(i), places["dense"].get(i), rrf))
                if len(hits) == query.k:
                    break
            if len(hits) == query.k:
                break
        return RetrievalOutcome(hits, dict(sorted(excluded.items())), self.rankers(index))


def check_query(query: RetrievalQuery) -> None:
    """Refuse a query the retriever cannot answer, naming the field and the rule."""
    errors: list[dict[str, str]] = []
    if not query.query.strip():
        errors.append({"field": "query", "rule": "empty", "message": "query must not be empty"})
    elif len(query.query) > 4000:
        errors.append(
            {"field": "query", "rule": "max-length", "message": "query is at most 4000 chars"}
        )
    if not 1 <= query.k <= MAX_K:
        errors.append(
            {"field": "k", "rule": "range", "message": f"k must be between 1 and {MAX_K}"}
        )
    if errors:
        raise InvalidInput.many(errors)
