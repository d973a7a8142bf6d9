"""The evidence registry read model: sources, versions, spans and table cells."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Notification
from sqlalchemy import Connection, insert, select, update

from ledger.sources import Source
from ledger.span_codec import decode_spans
from ledger.store import format_time
from projections.runner import Projection
from projections.schema import REGISTRY_TABLES, sources, spans, versions


class RegistryProjection(Projection):
    """Builds ``registry_sources``, ``registry_versions`` and ``registry_spans``."""

    name = "registry"
    topics = (Source.Registered.TOPIC, Source.VersionAdded.TOPIC, Source.Withdrawn.TOPIC)

    def __init__(self) -> None:
        # Aggregate id -> client source id; rebuilt from the table after a restart.
        self._source_ids: dict[str, str] = {}

    def forget(self) -> None:
        """Drop the source id cache."""
        self._source_ids.clear()

    def apply(self, conn: Connection, event: Any, notification: Notification) -> None:
        """Dispatch on the event type."""
        recorded_at = format_time(event.timestamp)
        if isinstance(event, Source.Registered):
            self._source_ids[str(notification.originator_id)] = event.source_id
            conn.execute(
                insert(sources).values(
                    source_id=event.source_id,
                    aggregate_id=str(notification.originator_id),
                    title=event.title,
                    authority=event.authority,
                    uri=event.uri,
                    metadata=event.metadata,
                    registered_at=recorded_at,
                    current_version=0,
                )
            )
        elif isinstance(event, Source.VersionAdded):
            self._add_version(conn, event, notification, recorded_at)
        elif isinstance(event, Source.Withdrawn):
            source_id = self._lookup(conn, notification)
            conn.execute(
                update(sources)
                .where(sources.c.source_id == source_id)
                .values(withdrawn_at=recorded_at, withdraw_reason=event.reason)
            )

    def _add_version(
        self, conn: Connection, event: Any, notification: Notification, recorded_at: str
    ) -> None:
        source_id = self._lookup(conn, notification)
        if event.version > 1:
            conn.execute(
                update(versions)
                .where(versions.c.source_id == source_id, versions.c.version == event.version - 1)
                .values(effective_to=event.effective_from, superseded_at=recorded_at)
            )
        conn.execute(
            insert(versions).values(
                source_id=source_id,
                version=event.version,
                version_hash=event.version_hash,
                media_type=event.media_type,
                title=event.title,
                frozen_text=event.text,
                effective_from=event.effective_from,
                effective_to=None,
                recorded_at=recorded_at,
                superseded_at=None,
                span_count=len(event.spans),
                segmenter=event.segmenter,
                tables=event.tables,
                position=notification.id,
            )
        )
        conn.execute(
            update(sources)
            .where(sources.c.source_id == source_id)
            .values(current_version=event.version, title=event.title)
        )
        decoded = decode_spans(
            source_id, event.version_hash, event.text, event.heading_paths, event.spans, event.cells
        )
        if decoded:
            conn.execute(
                insert(spans),
                [
                    {
                        "span_id": span.span_id,
                        "source_id": source_id,
                        "version": event.version,
                        "ord": ord_,
                        "start": span.start,
                        "end": span.end,
                        "text": span.text,
                        "sent_index": span.sent_index,
                        "parent_span_id": span.parent_span_id,
                        "heading_path": list(span.heading_path),
                        "paragraph": span.paragraph,
                        "page": span.page,
                        "table_id": span.table_ref.table_id if span.table_ref else None,
                        "table_row": span.table_ref.row if span.table_ref else None,
                        "table_col": span.table_ref.col if span.table_ref else None,
                        "envelope": span.envelope,
                    }
                    for ord_, span in enumerate(decoded)
                ],
            )

    def _lookup(self, conn: Connection, notification: Notification) -> str:
        """The client's source id of the aggregate that emitted ``notification``."""
        cached = self._source_ids.get(str(notification.originator_id))
        if cached is not None:
            return cached
        source_id = conn.execute(
            select(sources.c.source_id).where(
                sources.c.aggregate_id == str(notification.originator_id)
            )
        ).scalar_one()
        return str(source_id)

    def reset(self, conn: Connection) -> None:
        """Delete every registry row."""
        for table in reversed(REGISTRY_TABLES):
            conn.execute(table.delete())
