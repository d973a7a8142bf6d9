"""The in-memory retrieval index of one process, loaded from the retrieval read model.

Every process (each API worker, on SQLite or PostgreSQL) holds its own
:class:`~ledger.retrieval.index.SpanIndex`, built from ``retrieval_spans`` whenever the
retrieval projection's position has moved since the last build: the rows carry terms,
vectors and token ids, so a build embeds nothing and costs the BM25 matrix and a copy of the
vectors. The database stays the one place the index's content lives; the in-memory form is
a cache of it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
from sqlalchemy import Engine, select

from ledger.errors import ConfigurationError
from ledger.retrieval.dense import DIMENSIONS, Tokens
from ledger.retrieval.index import IndexedSpan, SpanIndex, empty_index
from projections.schema import retrieval_spans

_ROWS = select(retrieval_spans).order_by(
    retrieval_spans.c.source_id, retrieval_spans.c.version, retrieval_spans.c.ord
)


def load_index(engine: Engine, position: int = 0) -> SpanIndex:
    """A fresh index of every row of ``retrieval_spans``."""
    spans: list[IndexedSpan] = []
    terms: list[list[str]] = []
    vectors: list[bytes] = []
    tokens: list[Tokens] = []
    model = "none"
    with engine.connect() as conn:
        for row in conn.execute(_ROWS).mappings():
            spans.append(
                IndexedSpan(
                    span_id=row["span_id"],
                    source_id=row["source_id"],
                    version=row["version"],
                    start=row["start"],
                    end=row["end"],
                    text=row["text"],
                    heading_path=tuple(row["heading_path"]),
                    envelope=row["envelope"],
                    table_ref=row["table_ref"],
                    authority=row["authority"],
                    effective_from=row["effective_from"],
                    effective_to=row["effective_to"],
                    withdrawn=bool(row["withdrawn"]),
                )
            )
            terms.append(row["terms"])
            vectors.append(row["vector"])
            tokens.append(np.frombuffer(row["tokens"] or b"", dtype="<u2").astype(np.uint16))
            if model not in ("none", row["model"]):
                raise ConfigurationError(
                    f"retrieval rows hold vectors of {model} and {row['model']}: "
                    "run `provledger projections rebuild`"
                )
            model = row["model"]
    if not spans:
        return empty_index()
    matrix = np.frombuffer(b"".join(vectors), dtype=np.float16).reshape(len(spans), DIMENSIONS)
    return SpanIndex(spans, terms, matrix.astype(np.float32), model, position, tokens)


class RetrievalIndex:
    """The process's current index: rebuilt when the projection moved, else reused."""

    def __init__(self, engine: Engine, catch_up: Callable[[], int]) -> None:
        self.engine = engine
        self.catch_up = catch_up
        self._lock = threading.Lock()
        self._index: SpanIndex | None = None

    def current(self) -> SpanIndex:
        """The index as of the projection's latest position (caught up first)."""
        position = self.catch_up()
        with self._lock:
            if self._index is None or self._index.position != position:
                self._index = load_index(self.engine, position)
                self._index.position = position
            return self._index
