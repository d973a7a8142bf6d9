"""The retrieval read model: every span with its terms and dense vector, and its version's
effective range and withdrawal, kept current as sources are added, superseded and withdrawn.

Vectors and token ids are computed here, once per span, when the version's event is projected
(float16 unit vectors, little-endian uint16 ids); a process builds its in-memory index from
these rows (:mod:`projections.retrieval_index`) without embedding anything again. Rows and the
projection's position are written in one transaction by the runner, so a replay is
exactly-once; ``provledger projections rebuild`` replays it from the first event.
"""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np
from sqlalchemy import Connection, bindparam, func, insert, select, update

from ledger.audit.log_verify import StoredRow
from ledger.registry.source import Source
from ledger.registry.span_codec import decode_spans
from ledger.retrieval.dense import Embedder, shared_embedder
from ledger.retrieval.index import IndexedSpan, embed_spans, span_terms
from projections.runner import Projection
from projections.schema import (
    RETRIEVAL_TABLES,
    retrieval_sources,
    retrieval_spans,
    retrieval_state,
    retrieval_versions,
)

_SUPERSEDE = (
    update(retrieval_spans)
    .where(
        retrieval_spans.c.source_id == bindparam("b_source"),
        retrieval_spans.c.version == bindparam("b_version"),
    )
    .values(effective_to=bindparam("b_to"))
)
_WITHDRAW = (
    update(retrieval_spans)
    .where(retrieval_spans.c.source_id == bindparam("b_source"))
    .values(withdrawn=1)
)
_SUPERSEDE_VERSION = (
    update(retrieval_versions)
    .where(
        retrieval_versions.c.source_id == bindparam("b_source"),
        retrieval_versions.c.version == bindparam("b_version"),
    )
    .values(effective_to=bindparam("b_to"), changed_at=bindparam("b_at"))
)
_WITHDRAW_VERSIONS = (
    update(retrieval_versions)
    .where(retrieval_versions.c.source_id == bindparam("b_source"))
    .values(withdrawn=1, changed_at=bindparam("b_at"))
)
_NEXT_ROW = select(func.coalesce(func.max(retrieval_spans.c.row_id) + 1, 0))
_NEXT_VERSION_KEY = select(func.coalesce(func.max(retrieval_versions.c.version_key) + 1, 0))
EPOCH = "epoch"
"""The ``retrieval_state`` entry a rebuild renews (the search index follows it)."""
_SOURCE_OF_AGGREGATE = select(retrieval_sources.c.source_id, retrieval_sources.c.authority).where(
    retrieval_sources.c.aggregate_id == bindparam("b_aggregate")
)


class RetrievalProjection(Projection):
    """Builds ``retrieval_sources``, ``retrieval_versions`` and ``retrieval_spans``: each
    span a row with the next document number, the journal the search index follows
    (:mod:`projections.search.directory`)."""

    name = "retrieval"
    topics = (Source.Registered.TOPIC, Source.VersionAdded.TOPIC, Source.Withdrawn.TOPIC)

    def __init__(self, embedder: Embedder | None = None) -> None:
        self._embedder = embedder
        self._sources: dict[str, tuple[str, str]] = {}  # aggregate id -> (source id, authority)
        self._new_sources: list[dict[str, Any]] = []
        self._rows: list[dict[str, Any]] = []
        self._versions: list[dict[str, Any]] = []
        self._pending: list[IndexedSpan] = []
        self._supersede: list[dict[str, Any]] = []
        self._withdraw: list[dict[str, Any]] = []

    @property
    def embedder(self) -> Embedder:
        """The dense model (loaded when the first span needs a vector)."""
        if self._embedder is None:
            self._embedder = shared_embedder()
        return self._embedder

    def forget(self) -> None:
        """Drop the source cache and unwritten rows."""
        self._sources.clear()
        self._new_sources.clear()
        self._rows.clear()
        self._versions.clear()
        self._pending.clear()
        self._supersede.clear()
        self._withdraw.clear()

    def apply(self, conn: Connection, event: Any, notification: StoredRow) -> None:
        """Dispatch on the event type."""
        aggregate_id = str(notification.originator_id)
        if isinstance(event, Source.Registered):
            self._sources[aggregate_id] = (event.source_id, event.authority)
            self._new_sources.append(
                {
                    "source_id": event.source_id,
                    "aggregate_id": aggregate_id,
                    "authority": event.authority,
                }
            )
            return
        source_id, authority = self._lookup(conn, aggregate_id)
        at = int(notification.id)
        if isinstance(event, Source.Withdrawn):
            for row in (*self._rows, *self._versions):  # rows of this batch, not yet written
                if row["source_id"] == source_id:
                    row["withdrawn"] = 1
                    if "changed_at" in row:
                        row["changed_at"] = at
            self._withdraw.append({"b_source": source_id, "b_at": at})
        elif isinstance(event, Source.VersionAdded):
            self._add_version(event, source_id, authority, at)

    def _add_version(self, event: Any, source_id: str, authority: str, at: int) -> None:
        if event.version > 1:
            previous = (source_id, event.version - 1)
            for row in (*self._rows, *self._versions):
                if (row["source_id"], row["version"]) == previous:
                    row["effective_to"] = event.effective_from
                    if "changed_at" in row:
                        row["changed_at"] = at
            self._supersede.append(
                {
                    "b_source": source_id,
                    "b_version": event.version - 1,
                    "b_to": event.effective_from,
                    "b_at": at,
                }
            )
        self._versions.append(
            {
                "source_id": source_id,
                "version": event.version,
                "authority": authority,
                "effective_from": event.effective_from,
                "effective_to": None,
                "withdrawn": 0,
                "changed_at": at,
            }
        )
        decoded = decode_spans(
            source_id, event.version_hash, event.text, event.heading_paths, event.spans, event.cells
        )
        for ord_, span in enumerate(decoded):
            ref = span.table_ref
            indexed = IndexedSpan(
                span_id=span.span_id,
                source_id=source_id,
                version=event.version,
                start=span.start,
                end=span.end,
                text=span.text,
                heading_path=tuple(span.heading_path),
                envelope=span.envelope,
                table_ref=(
                    None
                    if ref is None
                    else {"table_id": ref.table_id, "row": ref.row, "col": ref.col}
                ),
                authority=authority,
                effective_from=event.effective_from,
                effective_to=None,
                withdrawn=False,
            )
            self._pending.append(indexed)
            self._rows.append(
                {
                    "source_id": source_id,
                    "version": event.version,
                    "ord": ord_,
                    "span_id": span.span_id,
                    "start": span.start,
                    "end": span.end,
                    "text": span.text,
                    "heading_path": list(span.heading_path),
                    "envelope": span.envelope,
                    "table_ref": indexed.table_ref,
                    "authority": authority,
                    "effective_from": event.effective_from,
                    "effective_to": None,
                    "withdrawn": 0,
                    "terms": span_terms(indexed),
                }
            )

    def flush(self, conn: Connection) -> None:
        """Embed the batch's spans in one call, then write sources, versions, spans (each
        with the next document number) and updates.

        Updates reach rows of earlier batches only (this batch's rows were edited in
        memory), so they commute with the inserts."""
        if self._new_sources:
            conn.execute(insert(retrieval_sources), self._new_sources)
            self._new_sources.clear()
        keys: dict[tuple[str, int], int] = {}
        if self._versions:
            first = int(conn.execute(_NEXT_VERSION_KEY).scalar_one())
            for offset, version in enumerate(self._versions):
                version["version_key"] = first + offset
                keys[(version["source_id"], version["version"])] = first + offset
            conn.execute(insert(retrieval_versions), self._versions)
            self._versions.clear()
        if self._rows:
            vectors, tokens = embed_spans(self.embedder, self._pending)
            packed = vectors.astype(np.float16)
            first_row = int(conn.execute(_NEXT_ROW).scalar_one())
            for offset, (row, vector, ids) in enumerate(
                zip(self._rows, packed, tokens, strict=True)
            ):
                row["vector"] = vector.tobytes()
                row["tokens"] = ids.astype("<u2").tobytes()
                row["model"] = self.embedder.version
                row["row_id"] = first_row + offset
                row["version_key"] = keys[(row["source_id"], row["version"])]
            conn.execute(insert(retrieval_spans), self._rows)
            self._rows.clear()
            self._pending.clear()
        for statement, rows in (
            (_SUPERSEDE, self._supersede),
            (_WITHDRAW, self._withdraw),
            (_SUPERSEDE_VERSION, self._supersede),
            (_WITHDRAW_VERSIONS, self._withdraw),
        ):
            if rows:
                conn.execute(statement, rows)
        self._supersede.clear()
        self._withdraw.clear()

    def _lookup(self, conn: Connection, aggregate_id: str) -> tuple[str, str]:
        cached = self._sources.get(aggregate_id)
        if cached is None:
            row = conn.execute(_SOURCE_OF_AGGREGATE, {"b_aggregate": aggregate_id}).one()
            cached = (str(row.source_id), str(row.authority))
            self._sources[aggregate_id] = cached
        return cached

    def reset(self, conn: Connection) -> None:
        """Delete every retrieval row and start a new epoch (the search index built from
        the old rows is then built again)."""
        for table in reversed(RETRIEVAL_TABLES):
            conn.execute(table.delete())
        conn.execute(insert(retrieval_state).values(name=EPOCH, value=uuid.uuid4().hex))
