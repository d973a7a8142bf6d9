"""The search index of a ledger, kept level with the retrieval read model for every query.

Every process serves retrievals from the one index folder on its machine
(:mod:`projections.search`): Tantivy segments and memory-mapped dense arrays that the
operating system holds once for all processes. Before a query, :meth:`RetrievalIndex.current`
catches the retrieval projection up (so a span ingested through this process is in the read
model), lets the folder follow the read model's new rows (whichever process comes first
appends them; the others find them there), takes the versions changed since its last query,
and hands the retriever a view of all three. Nothing is rebuilt per change: a query after an
ingest costs the new rows' append, not the index's size.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, select

from ledger.errors import ConfigurationError
from ledger.retrieval.index import IndexedSpan
from projections.retrieval import EPOCH
from projections.schema import retrieval_spans, retrieval_state, retrieval_versions
from projections.search.directory import IndexDirectory, Snapshot
from projections.search.engine import EngineIndex
from projections.search.versions import VersionTable

_FOLLOWED = (
    retrieval_spans.c.row_id,
    retrieval_spans.c.version_key,
    retrieval_spans.c.terms,
    retrieval_spans.c.vector,
    retrieval_spans.c.tokens,
    retrieval_spans.c.model,
)
_SHOWN = (
    retrieval_spans.c.row_id,
    retrieval_spans.c.span_id,
    retrieval_spans.c.source_id,
    retrieval_spans.c.version,
    retrieval_spans.c.start,
    retrieval_spans.c.end,
    retrieval_spans.c.text,
    retrieval_spans.c.heading_path,
    retrieval_spans.c.envelope,
    retrieval_spans.c.table_ref,
    retrieval_spans.c.authority,
    retrieval_spans.c.effective_from,
    retrieval_spans.c.terms,
    retrieval_spans.c.version_key,
)
_END = select(func.coalesce(func.max(retrieval_spans.c.row_id) + 1, 0))
_UNNUMBERED = select(retrieval_spans.c.span_id).where(retrieval_spans.c.row_id.is_(None)).limit(1)
_EPOCH = select(retrieval_state.c.value).where(retrieval_state.c.name == EPOCH)


class RetrievalIndex:
    """This process's access to the search index at ``path`` over the read model."""

    def __init__(self, engine: Engine, catch_up: Callable[[], int], path: Path) -> None:
        self.engine = engine
        self.catch_up = catch_up
        self.directory = IndexDirectory(path)
        self.versions = VersionTable()
        self._epoch: str | None = None
        self._lock = threading.Lock()

    def current(self) -> EngineIndex:
        """The index as of the retrieval projection's latest position (caught up first)."""
        self.catch_up()
        with self._lock, self.engine.connect() as conn:
            epoch = conn.execute(_EPOCH).scalar_one_or_none() or ""
            end = int(conn.execute(_END).scalar_one())
            if epoch != self._epoch:
                if conn.execute(_UNNUMBERED).first() is not None:
                    raise ConfigurationError(
                        "retrieval rows of an earlier release have no document number: run "
                        "`provledger projections rebuild`"
                    )
                self.versions = VersionTable()
                self._epoch = epoch
            changed = select(retrieval_versions).where(
                retrieval_versions.c.changed_at > self.versions.changed_at
            )
            self.versions.update([dict(row) for row in conn.execute(changed).mappings()])
            snapshot = self.directory.snapshot()
            if snapshot is None or _behind(snapshot, epoch, end):
                self.directory.follow(epoch, self._rows_from)
                snapshot = self.directory.snapshot()
            return EngineIndex(snapshot, self.versions, self._spans)

    def _rows_from(self, first: int, limit: int) -> Sequence[Mapping[str, Any]]:
        query = (
            select(*_FOLLOWED)
            .where(retrieval_spans.c.row_id >= first)
            .order_by(retrieval_spans.c.row_id)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [dict(row) for row in conn.execute(query).mappings()]

    def _spans(self, keys: Sequence[int]) -> dict[int, tuple[IndexedSpan, Sequence[str]]]:
        query = select(*_SHOWN).where(retrieval_spans.c.row_id.in_(list(keys)))
        with self.engine.connect() as conn:
            rows = list(conn.execute(query).mappings())
        found: dict[int, tuple[IndexedSpan, Sequence[str]]] = {}
        for row in rows:
            key = int(row["version_key"])
            table = self.versions
            effective_to, withdrawn = table.range_of(key)
            span = IndexedSpan(
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
                effective_to=effective_to,
                withdrawn=withdrawn,
            )
            found[int(row["row_id"])] = (span, list(row["terms"]))
        return found


def _behind(snapshot: Snapshot, epoch: str, end: int) -> bool:
    return snapshot.state.epoch != epoch or snapshot.state.rows < end
