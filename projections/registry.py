"""The evidence registry read model: sources, versions, spans and table cells (and memory
items, a governed source of their own: ``projections/memory.py``).

Statements are built once with bind parameters, and rows of one kind are written with one
``executemany`` per batch of events (:meth:`RegistryProjection.flush`), which keeps the
projection's per-document cost close to the database's own.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update

from ledger.audit.log_verify import StoredRow
from ledger.eventlog.clock import format_time
from ledger.registry.source import Source
from ledger.registry.span_codec import decode_spans
from ledger.text.spans import Span
from projections import memory
from projections.runner import Projection
from projections.schema import REGISTRY_TABLES, source_access, sources, spans, versions

_INSERT_SOURCE = insert(sources)
_INSERT_VERSION = insert(versions)
_INSERT_SPANS = insert(spans)
_INSERT_ACCESS = insert(source_access)
_SUPERSEDE = (
    update(versions)
    .where(
        versions.c.source_id == bindparam("b_source"), versions.c.version == bindparam("b_version")
    )
    .values(effective_to=bindparam("b_to"), superseded_at=bindparam("b_at"))
)
_SET_CURRENT = (
    update(sources)
    .where(sources.c.source_id == bindparam("b_source"))
    .values(current_version=bindparam("b_version"), title=bindparam("b_title"))
)
_WITHDRAW = (
    update(sources)
    .where(sources.c.source_id == bindparam("b_source"))
    .values(
        withdrawn_at=bindparam("b_at"),
        withdraw_reason=bindparam("b_reason"),
        withdrawn_position=bindparam("b_position"),
    )
)
_SOURCE_OF_AGGREGATE = select(sources.c.source_id).where(
    sources.c.aggregate_id == bindparam("b_aggregate")
)


def span_row(span: Span) -> dict[str, Any]:
    """A span's columns in ``registry_spans`` (less its source, version and order)."""
    ref = span.table_ref
    return {
        "span_id": span.span_id,
        "start": span.start,
        "end": span.end,
        "text": span.text,
        "sent_index": span.sent_index,
        "parent_span_id": span.parent_span_id,
        "heading_path": list(span.heading_path),
        "paragraph": span.paragraph,
        "page": span.page,
        "table_id": ref.table_id if ref else None,
        "table_row": ref.row if ref else None,
        "table_col": ref.col if ref else None,
        "envelope": span.envelope,
    }


class RegistryProjection(Projection):
    """Builds ``registry_sources``, ``registry_versions`` and ``registry_spans``."""

    name = "registry"
    topics = (
        Source.Registered.TOPIC,
        Source.VersionAdded.TOPIC,
        Source.AccessChanged.TOPIC,
        Source.Withdrawn.TOPIC,
        *memory.TOPICS,
    )

    def __init__(self) -> None:
        # Aggregate id -> client source id; rebuilt from the table after a restart.
        self._source_ids: dict[str, str] = {}
        # Rows of this batch, written by flush(); later events of the batch edit them here.
        self._source_rows: dict[str, dict[str, Any]] = {}
        self._version_rows: dict[tuple[str, int], dict[str, Any]] = {}
        self._span_rows: list[dict[str, Any]] = []
        self._access_rows: list[dict[str, Any]] = []
        # Updates to rows written by earlier batches, applied in order by flush().
        self._supersede: list[dict[str, Any]] = []
        self._set_current: list[dict[str, Any]] = []
        self._withdraw: list[dict[str, Any]] = []

    def forget(self) -> None:
        """Drop the source id cache and any unwritten rows."""
        self._source_ids.clear()
        self._source_rows.clear()
        self._version_rows.clear()
        self._span_rows.clear()
        self._access_rows.clear()
        self._supersede.clear()
        self._set_current.clear()
        self._withdraw.clear()

    def apply(self, conn: Connection, event: Any, notification: StoredRow) -> None:
        """Dispatch on the event type."""
        if isinstance(event, memory.EVENTS):
            memory.apply_memory_event(conn, event, notification)
            return
        recorded_at = format_time(event.timestamp)
        if isinstance(event, Source.Registered):
            self._source_ids[str(notification.originator_id)] = event.source_id
            self._source_rows[event.source_id] = {
                "source_id": event.source_id,
                "aggregate_id": str(notification.originator_id),
                "title": event.title,
                "authority": event.authority,
                "uri": event.uri,
                "metadata": event.metadata,
                "registered_at": recorded_at,
                "current_version": 0,
                "withdrawn_at": None,
                "withdraw_reason": None,
                "withdrawn_position": None,
            }
            if event.access is not None:
                self._access(event.source_id, event.access, notification, recorded_at)
        elif isinstance(event, Source.AccessChanged):
            self._access(self._lookup(conn, notification), event.access, notification, recorded_at)
        elif isinstance(event, Source.VersionAdded):
            self._add_version(conn, event, notification, recorded_at)
        elif isinstance(event, Source.Withdrawn):
            source_id = self._lookup(conn, notification)
            pending = self._source_rows.get(source_id)
            if pending is not None:
                pending.update(
                    withdrawn_at=recorded_at,
                    withdraw_reason=event.reason,
                    withdrawn_position=notification.id,
                )
                return
            self._withdraw.append(
                {
                    "b_source": source_id,
                    "b_at": recorded_at,
                    "b_reason": event.reason,
                    "b_position": notification.id,
                }
            )

    def flush(self, conn: Connection) -> None:
        """Write the rows collected from the batch, one ``executemany`` per table and kind.

        Updates only touch rows of earlier batches (rows of this batch are edited before they
        are inserted), so they commute with the inserts; each kind keeps its event order.
        """
        if self._source_rows:
            conn.execute(_INSERT_SOURCE, list(self._source_rows.values()))
            self._source_rows.clear()
        if self._version_rows:
            conn.execute(_INSERT_VERSION, list(self._version_rows.values()))
            self._version_rows.clear()
        if self._span_rows:
            conn.execute(_INSERT_SPANS, self._span_rows)
            self._span_rows.clear()
        if self._access_rows:
            conn.execute(_INSERT_ACCESS, self._access_rows)
            self._access_rows.clear()
        for statement, rows in (
            (_SUPERSEDE, self._supersede),
            (_SET_CURRENT, self._set_current),
            (_WITHDRAW, self._withdraw),
        ):
            if rows:
                conn.execute(statement, rows)
                rows.clear()

    def _access(
        self, source_id: str, access: dict[str, Any], notification: StoredRow, recorded_at: str
    ) -> None:
        self._access_rows.append(
            {
                "source_id": source_id,
                "position": notification.id,
                "recorded_at": recorded_at,
                "access": access,
            }
        )

    def _add_version(
        self, conn: Connection, event: Any, notification: StoredRow, recorded_at: str
    ) -> None:
        source_id = self._lookup(conn, notification)
        if event.version > 1:
            previous = self._version_rows.get((source_id, event.version - 1))
            if previous is not None:
                previous.update(effective_to=event.effective_from, superseded_at=recorded_at)
            else:
                self._supersede.append(
                    {
                        "b_source": source_id,
                        "b_version": event.version - 1,
                        "b_to": event.effective_from,
                        "b_at": recorded_at,
                    }
                )
        self._version_rows[source_id, event.version] = {
            "source_id": source_id,
            "version": event.version,
            "version_hash": event.version_hash,
            "media_type": event.media_type,
            "title": event.title,
            "frozen_text": event.text,
            "effective_from": event.effective_from,
            "effective_to": None,
            "recorded_at": recorded_at,
            "superseded_at": None,
            "span_count": len(event.spans),
            "segmenter": event.segmenter,
            "tables": event.tables,
            "position": notification.id,
        }
        pending = self._source_rows.get(source_id)
        if pending is not None:
            pending.update(current_version=event.version, title=event.title)
        else:
            self._set_current.append(
                {"b_source": source_id, "b_version": event.version, "b_title": event.title}
            )
        decoded = decode_spans(
            source_id, event.version_hash, event.text, event.heading_paths, event.spans, event.cells
        )
        version = event.version
        self._span_rows.extend(
            {**span_row(span), "source_id": source_id, "version": version, "ord": ord_}
            for ord_, span in enumerate(decoded)
        )

    def _lookup(self, conn: Connection, notification: StoredRow) -> str:
        """The client's source id of the aggregate that emitted ``notification``."""
        aggregate_id = str(notification.originator_id)
        cached = self._source_ids.get(aggregate_id)
        if cached is None:
            cached = str(
                conn.execute(_SOURCE_OF_AGGREGATE, {"b_aggregate": aggregate_id}).scalar_one()
            )
            self._source_ids[aggregate_id] = cached
        return cached

    def reset(self, conn: Connection) -> None:
        """Delete every registry row."""
        for table in reversed(REGISTRY_TABLES):
            conn.execute(table.delete())
