"""Read-only queries of the evidence registry, on the async engine."""

from __future__ import annotations

from typing import Any

from sqlalchemy import RowMapping, and_, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ledger.errors import NotFound
from projections.schema import sources, spans, versions

SPAN_FIELDS = (
    spans.c.span_id,
    spans.c.source_id,
    spans.c.version,
    spans.c.start,
    spans.c.end,
    spans.c.text,
    spans.c.sent_index,
    spans.c.parent_span_id,
    spans.c.heading_path,
    spans.c.paragraph,
    spans.c.page,
    spans.c.table_id,
    spans.c.table_row,
    spans.c.table_col,
    spans.c.envelope,
)


def version_status(source: RowMapping, version: int) -> str:
    """``withdrawn``, ``superseded`` or ``current``."""
    if source["withdrawn_at"] is not None:
        return "withdrawn"
    return "superseded" if version < source["current_version"] else "current"


def span_json(row: RowMapping) -> dict[str, Any]:
    """A span row as the API shows it."""
    result: dict[str, Any] = {
        "span_id": row["span_id"],
        "start": row["start"],
        "end": row["end"],
        "text": row["text"],
        "sent_index": row["sent_index"],
        "parent_span_id": row["parent_span_id"],
        "heading_path": row["heading_path"],
        "paragraph": row["paragraph"],
        "page": row["page"],
        "table_ref": None,
    }
    if row["table_id"] is not None:
        result["table_ref"] = {
            "table_id": row["table_id"],
            "row": row["table_row"],
            "col": row["table_col"],
        }
        result["envelope"] = row["envelope"]
    return result


async def _source(conn: AsyncConnection, source_id: str) -> RowMapping:
    row = (
        (await conn.execute(select(sources).where(sources.c.source_id == source_id)))
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"no source {source_id!r}")
    return row


def _source_json(source: RowMapping) -> dict[str, Any]:
    return {
        "source_id": source["source_id"],
        "title": source["title"],
        "authority": source["authority"],
        "uri": source["uri"],
        "metadata": source["metadata"],
        "registered_at": source["registered_at"],
        "status": "withdrawn" if source["withdrawn_at"] else "active",
        "withdrawn_at": source["withdrawn_at"],
        "withdraw_reason": source["withdraw_reason"],
        "current_version": source["current_version"],
    }


def _version_json(source: RowMapping, row: RowMapping) -> dict[str, Any]:
    return {
        "version": row["version"],
        "version_hash": row["version_hash"],
        "status": version_status(source, row["version"]),
        "media_type": row["media_type"],
        "title": row["title"],
        "effective_from": row["effective_from"],
        "effective_to": row["effective_to"],
        "recorded_at": row["recorded_at"],
        "superseded_at": row["superseded_at"],
        "span_count": row["span_count"],
        "segmenter": row["segmenter"],
        "position": row["position"],
    }


async def get_source(conn: AsyncConnection, source_id: str) -> dict[str, Any]:
    """A source with every version's status and interval."""
    source = await _source(conn, source_id)
    rows = (
        (
            await conn.execute(
                select(versions)
                .where(versions.c.source_id == source_id)
                .order_by(versions.c.version)
            )
        )
        .mappings()
        .all()
    )
    return {**_source_json(source), "versions": [_version_json(source, row) for row in rows]}


async def get_version(
    conn: AsyncConnection, source_id: str, version: int, offset: int, limit: int
) -> dict[str, Any]:
    """One version: frozen text, hash, tables and a page of spans."""
    source = await _source(conn, source_id)
    row = (
        (
            await conn.execute(
                select(versions).where(
                    versions.c.source_id == source_id, versions.c.version == version
                )
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"source {source_id!r} has no version {version}")
    page = (
        (
            await conn.execute(
                select(*SPAN_FIELDS)
                .where(spans.c.source_id == source_id, spans.c.version == version)
                .order_by(spans.c.ord)
                .offset(offset)
                .limit(limit)
            )
        )
        .mappings()
        .all()
    )
    return {
        "source_id": source_id,
        **_version_json(source, row),
        "frozen_text": row["frozen_text"],
        "tables": row["tables"],
        "spans": [span_json(span) for span in page],
        "spans_offset": offset,
        "spans_total": row["span_count"],
    }


async def _span_row(conn: AsyncConnection, span_id: str) -> RowMapping:
    # The same id can name identical text in two versions; the newest is the one shown.
    row = (
        (
            await conn.execute(
                select(*SPAN_FIELDS, spans.c.ord)
                .where(spans.c.span_id == span_id)
                .order_by(spans.c.version.desc())
                .limit(1)
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"no span {span_id!r}")
    return row


async def get_span(conn: AsyncConnection, span_id: str) -> dict[str, Any]:
    """A span with its source, version, hash, breadcrumb, page and status."""
    row = await _span_row(conn, span_id)
    source = await _source(conn, row["source_id"])
    version = (
        (
            await conn.execute(
                select(
                    versions.c.version_hash, versions.c.effective_from, versions.c.effective_to
                ).where(
                    versions.c.source_id == row["source_id"], versions.c.version == row["version"]
                )
            )
        )
        .mappings()
        .one()
    )
    return {
        **span_json(row),
        "source_id": row["source_id"],
        "source_title": source["title"],
        "authority": source["authority"],
        "version": row["version"],
        "version_hash": version["version_hash"],
        "effective_from": version["effective_from"],
        "effective_to": version["effective_to"],
        "status": version_status(source, row["version"]),
    }


async def get_span_context(conn: AsyncConnection, span_id: str, window: int) -> dict[str, Any]:
    """The span and up to ``window`` top-level sentences either side of it."""
    row = await _span_row(conn, span_id)
    low, high = row["sent_index"] - window, row["sent_index"] + window
    neighbours = (
        (
            await conn.execute(
                select(*SPAN_FIELDS)
                .where(
                    and_(
                        spans.c.source_id == row["source_id"],
                        spans.c.version == row["version"],
                        spans.c.parent_span_id.is_(None),
                        spans.c.sent_index.between(low, high),
                    )
                )
                .order_by(spans.c.ord)
            )
        )
        .mappings()
        .all()
    )
    return {
        "span": span_json(row),
        "source_id": row["source_id"],
        "version": row["version"],
        "window": window,
        "before": [span_json(n) for n in neighbours if n["sent_index"] < row["sent_index"]],
        "after": [span_json(n) for n in neighbours if n["sent_index"] > row["sent_index"]],
    }


async def count_spans(conn: AsyncConnection) -> int:
    """Every span row (for diagnostics)."""
    return int((await conn.execute(select(func.count()).select_from(spans))).scalar_one())
