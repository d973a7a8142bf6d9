"""The lexical side of the search index: Okapi BM25 by Tantivy over each span's terms.

Each span is one Tantivy document: its terms (:func:`ledger.retrieval.terms.terms`, already
folded and stemmed, split on spaces only, frequencies without positions) and its document
number ``row``. A query is a disjunction of its distinct terms; Tantivy keeps the best by
its BM25 (``k1`` 1.2, ``b`` 0.75: not settable from Python) with block-max WAND, reading only
the postings that can still change the top. That top is the candidate pool:
:class:`projections.search.engine.EngineIndex` scores it again with the retriever's own
parameters and drops the spans a query may not see.

Segments are written by one process at a time (:mod:`projections.search.directory` holds the
lock) and read by every process through the files, memory-mapped: the index is on disk once,
not in each process.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import tantivy

TOKENIZER = "terms"
HEAP_BYTES = 50_000_000
"""The writer's buffer (Tantivy's floor is 15 MB a thread)."""


def _schema() -> Any:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("terms", tokenizer_name=TOKENIZER, index_option="freq")
    builder.add_unsigned_field("row", indexed=True, fast=True)
    return builder.build()


def _open(path: Path) -> Any:
    path.mkdir(parents=True, exist_ok=True)
    index = tantivy.Index(_schema(), path=str(path), reuse=True)
    analyzer = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
    index.register_tokenizer(TOKENIZER, analyzer)
    return index


class LexicalWriter:
    """Adds spans to the Tantivy index at ``path``; nothing is visible before :meth:`commit`."""

    def __init__(self, path: Path) -> None:
        self._index = _open(path)
        self._writer = self._index.writer(heap_size=HEAP_BYTES, num_threads=1)

    def add(self, row: int, terms: Iterable[str]) -> None:
        """Add one span."""
        document = tantivy.Document()
        document.add_text("terms", " ".join(terms))
        document.add_unsigned("row", row)
        self._writer.add_document(document)

    def drop_from(self, row: int) -> None:
        """Delete the documents numbered ``row`` and after (a follower that stopped between
        its commit here and its record of the count left them)."""
        after = tantivy.Query.range_query(
            self._index.schema, "row", tantivy.FieldType.Unsigned, lower_bound=row
        )
        self._writer.delete_documents_by_query(after)

    def commit(self) -> None:
        """Make what was added durable and visible, and let merges finish."""
        self._writer.commit()
        self._writer.wait_merging_threads()

    def abandon(self) -> None:
        """Drop what was added since the last commit."""
        self._writer.rollback()
        self._writer.wait_merging_threads()


class LexicalReader:
    """Searches the Tantivy index at ``path`` as of its last commit."""

    def __init__(self, path: Path) -> None:
        self._index = _open(path)
        self._schema = self._index.schema
        self._searcher = self._index.searcher()

    def reload(self) -> None:
        """See the last commit."""
        self._index.reload()
        self._searcher = self._index.searcher()

    def candidates(
        self, query_terms: Sequence[str], limit: int, within: Sequence[int] | None = None
    ) -> list[int]:
        """The document numbers of the ``limit`` best spans by Tantivy's BM25 for the
        distinct ``query_terms`` (only among ``within`` when given), best first."""
        if limit <= 0 or not query_terms or (within is not None and not within):
            return []
        should = tantivy.Occur.Should
        clauses = [
            (should, tantivy.Query.term_query(self._schema, "terms", term)) for term in query_terms
        ]
        query = tantivy.Query.boolean_query(clauses)
        if within is not None:
            members = tantivy.Query.term_set_query(self._schema, "row", [int(r) for r in within])
            must = tantivy.Occur.Must
            query = tantivy.Query.boolean_query(
                [(must, query), (must, tantivy.Query.const_score_query(members, 0.0))]
            )
        found = self._searcher.search(query, limit, count=False).hits
        rows = self._searcher.fast_field_values("row", [address for _, address in found])
        return [int(row) for row in rows if row is not None]

    def document_frequency(self, term: str) -> int:
        """How many spans hold ``term``."""
        return int(self._searcher.doc_freq("terms", term))
