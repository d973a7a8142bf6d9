"""Okapi BM25 over a pool of candidate spans: which spans a claim's words point at, best first.

Each candidate is one document: its text, plus its envelope for a table cell. Text is cut into
terms by :func:`ledger.attribution._words.terms` (NFKC, case folding, stop words removed, light
stemming; numbers kept). For a query with distinct terms ``q`` and a candidate ``d``::

    score(d) = sum over t in q of idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * norm(d))
    norm(d)  = 1 - b + b * len(d) / avgdl
    idf(t)   = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

with ``N`` candidates, ``df(t)`` of them containing ``t`` and ``avgdl`` their mean length in
terms. This ``idf`` (Lucene's) is never negative, so a term that occurs in most candidates
still counts a little instead of pulling a score below zero. Query terms count once each: a
claim that repeats a word does not make that word weigh more.

Excluded candidates stay in the collection statistics (``N``, ``df``, ``avgdl``), so a span's
score does not depend on which other spans a caller excludes. Candidates that share no term
with the query score 0 and are dropped. Ties are broken by ``span_id`` (ascending), so the
order is a pure function of the inputs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ledger.attribution._words import terms
from ledger.errors import InvalidInput

ALGORITHM_NAME = "provledger-bm25"
ALGORITHM_VERSION = "1"
"""Bumped whenever tokenisation or scoring changes, since stored ranks would then differ."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A span that may be ranked: its id, its verbatim text, and its envelope for a table cell."""

    span_id: str
    text: str
    envelope: str | None = None


@dataclass(frozen=True, slots=True)
class Ranked:
    """A candidate's place in a ranking; ``rank`` 1 is the best."""

    span_id: str
    rank: int
    score: float


class Bm25Ranker:
    """Okapi BM25 with term-frequency saturation ``k1`` and length normalisation ``b``."""

    name: str
    version: str

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        if not (math.isfinite(k1) and k1 >= 0):
            raise InvalidInput("k1", "non_negative", f"k1 must be a finite number >= 0; got {k1}")
        if not (math.isfinite(b) and 0 <= b <= 1):
            raise InvalidInput("b", "unit_interval", f"b must be between 0 and 1; got {b}")
        self.k1 = k1
        self.b = b
        self.name = ALGORITHM_NAME
        self.version = ALGORITHM_VERSION

    def __repr__(self) -> str:
        return f"Bm25Ranker(k1={self.k1}, b={self.b})"

    def rank(
        self, query: str, candidates: Sequence[Candidate], exclude: Collection[str] = ()
    ) -> list[Ranked]:
        """Rank ``candidates`` against ``query``; those in ``exclude`` or scoring 0 are left out.

        Raises :class:`~ledger.errors.InvalidInput` when two candidates share a span id.
        """
        _require_unique(candidates)
        wanted = sorted(set(terms(query)))
        if not wanted or not candidates:
            return []
        documents = [_document_terms(c.text, c.envelope) for c in candidates]
        counts = [Counter(document) for document in documents]
        average = sum(len(document) for document in documents) / len(documents) or 1.0
        total = len(documents)
        idf: dict[str, float] = {}
        for term in wanted:
            df = sum(1 for count in counts if term in count)
            if df:
                idf[term] = math.log(1 + (total - df + 0.5) / (df + 0.5))
        if not idf:
            return []
        excluded = frozenset(exclude)
        scored: list[tuple[float, str]] = []
        for candidate, document, count in zip(candidates, documents, counts, strict=True):
            if candidate.span_id in excluded:
                continue
            norm = self.k1 * (1 - self.b + self.b * len(document) / average)
            score = 0.0
            for term, weight in idf.items():
                tf = count.get(term, 0)
                if tf:
                    score += weight * tf * (self.k1 + 1) / (tf + norm)
            if score > 0:
                scored.append((score, candidate.span_id))
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        return [Ranked(span_id, rank, score) for rank, (score, span_id) in enumerate(scored, 1)]


@lru_cache(maxsize=16384)
def _document_terms(text: str, envelope: str | None) -> tuple[str, ...]:
    """The terms of a candidate's text and envelope, cached: pools recur across claims."""
    if envelope:
        return (*terms(text), *terms(envelope))
    return tuple(terms(text))


def _require_unique(candidates: Sequence[Candidate]) -> None:
    """Raise when a span id occurs twice: a ranking names each span once."""
    seen: set[str] = set()
    for candidate in candidates:
        if candidate.span_id in seen:
            raise InvalidInput(
                "candidates",
                "unique_span_ids",
                f"span {candidate.span_id!r} is a candidate more than once",
            )
        seen.add(candidate.span_id)
