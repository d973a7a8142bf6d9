"""Read-only queries of the evidence registry, on the async engine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import RowMapping, and_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ledger.errors import NotFound
from projections.schema import source_access, sources, spans, versions

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


def version_status(source: RowMapping | dict[str, Any], version: int) -> str:
    """``withdrawn``, ``superseded`` or ``current``."""
    if source["withdrawn_at"] is not None:
        return "withdrawn"
    return "superseded" if version < source["current_version"] else "current"


@dataclass(frozen=True)
class AsOf:
    """Bitemporal read coordinates: ``known_at`` (ledger time), ``valid_at`` (domain time).

    Both are ledger-format times (RFC 3339 UTC, six fractional digits) or None for "now".
    """

    known_at: str | None = None
    valid_at: str | None = None

    def knows(self, recorded_at: str | None) -> bool:
        """Tell whether something recorded at ``recorded_at`` was known at ``known_at``."""
        return recorded_at is not None and (self.known_at is None or recorded_at <= self.known_at)


NOW = AsOf()


def source_as_of(source: RowMapping, rows: Sequence[RowMapping], as_of: AsOf) -> dict[str, Any]:
    """The source row as it stood at ``as_of.known_at`` (given its known version rows)."""
    state = dict(source)
    if rows:
        state["current_version"] = rows[-1]["version"]
        state["title"] = rows[-1]["title"]
    if not as_of.knows(source["withdrawn_at"]):
        state["withdrawn_at"] = None
        state["withdraw_reason"] = None
    return state


def version_as_of(row: RowMapping, as_of: AsOf) -> dict[str, Any]:
    state = dict(row)
    if not as_of.knows(row["superseded_at"]):
        state["effective_to"] = None
        state["superseded_at"] = None
    return state


def _in_force(versions_known: Sequence[dict[str, Any]], valid_at: str) -> int | None:
    for row in reversed(versions_known):
        if row["effective_from"] <= valid_at and (
            row["effective_to"] is None or valid_at < row["effective_to"]
        ):
            return int(row["version"])
    return None


def span_json(row: RowMapping | dict[str, Any]) -> dict[str, Any]:
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


async def source_record(conn: AsyncConnection, source_id: str, as_of: AsOf = NOW) -> RowMapping:
    row = (
        (await conn.execute(select(sources).where(sources.c.source_id == source_id)))
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"no source {source_id!r}")
    if not as_of.knows(row["registered_at"]):
        raise NotFound(f"source {source_id!r} was not registered yet at {as_of.known_at}")
    return row


async def known_versions(conn: AsyncConnection, source_id: str, as_of: AsOf) -> list[RowMapping]:
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
    return [row for row in rows if as_of.knows(row["recorded_at"])]


def _source_json(source: RowMapping | dict[str, Any]) -> dict[str, Any]:
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


def _version_json(
    source: RowMapping | dict[str, Any], row: RowMapping | dict[str, Any]
) -> dict[str, Any]:
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


OPEN_ACCESS: dict[str, Any] = {
    "classification": "",
    "units": [],
    "groups": [],
    "purposes": [],
    "jurisdictions": [],
}
"""The access attributes of a source registered without any: open to every principal."""


async def access_as_of(conn: AsyncConnection, source_id: str, as_of: AsOf = NOW) -> dict[str, Any]:
    """A source's access attributes as known at ``as_of`` (the last change known then)."""
    rows = (
        await conn.execute(
            select(source_access.c.recorded_at, source_access.c.access)
            .where(source_access.c.source_id == source_id)
            .order_by(source_access.c.position)
        )
    ).all()
    known = [row.access for row in rows if as_of.knows(row.recorded_at)]
    return dict(known[-1]) if known else dict(OPEN_ACCESS)


async def get_source(conn: AsyncConnection, source_id: str, as_of: AsOf = NOW) -> dict[str, Any]:
    """A source with every version's status and interval and its access attributes (as
    known at ``as_of``)."""
    source = await source_record(conn, source_id, as_of)
    rows = await known_versions(conn, source_id, as_of)
    state = source_as_of(source, rows, as_of)
    known = [version_as_of(row, as_of) for row in rows]
    body = {
        **_source_json(state),
        "access": await access_as_of(conn, source_id, as_of),
        "versions": [_version_json(state, row) for row in known],
    }
    if as_of.known_at is not None or as_of.valid_at is not None:
        body["as_of"] = {"known_at": as_of.known_at, "valid_at": as_of.valid_at}
    if as_of.valid_at is not None:
        body["in_force_version"] = _in_force(known, as_of.valid_at)
    return body


async def get_version(
    conn: AsyncConnection,
    source_id: str,
    version: int,
    offset: int,
    limit: int,
    as_of: AsOf = NOW,
    after_ord: int | None = None,
) -> dict[str, Any]:
    """One version: frozen text, hash, tables and a page of spans (as known at ``as_of``),
    after span ordinal ``after_ord`` or from ``offset``; ``spans_next_ord`` is the ordinal of
    the page's last span when more follow (else None)."""
    source_row = await source_record(conn, source_id, as_of)
    known = await known_versions(conn, source_id, as_of)
    source = source_as_of(source_row, known, as_of)
    found = next((r for r in known if r["version"] == version), None)
    if found is None:
        raise NotFound(f"source {source_id!r} has no version {version}" + when_known(as_of))
    row = version_as_of(found, as_of)
    query = select(*SPAN_FIELDS, spans.c.ord).where(
        spans.c.source_id == source_id, spans.c.version == version
    )
    if after_ord is not None:
        query = query.where(spans.c.ord > after_ord)
    rows = (
        (await conn.execute(query.order_by(spans.c.ord).offset(offset).limit(limit + 1)))
        .mappings()
        .all()
    )
    page = rows[:limit]
    return {
        "source_id": source_id,
        **_version_json(source, row),
        "frozen_text": row["frozen_text"],
        "tables": row["tables"],
        "spans": [span_json(span) for span in page],
        "spans_offset": offset,
        "spans_total": row["span_count"],
        "spans_next_ord": page[-1]["ord"] if len(rows) > limit else None,
    }


def when_known(as_of: AsOf) -> str:
    """`` as known at ...`` for a moment in the past, nothing for now."""
    return "" if as_of.known_at is None else f" as known at {as_of.known_at}"


async def list_sources(
    conn: AsyncConnection,
    after: str | None,
    limit: int,
    status: str | None = None,
    authority: str | None = None,
) -> list[dict[str, Any]]:
    """Up to ``limit + 1`` sources (current state) with ids after ``after``, by id;
    ``status`` is ``active`` or ``withdrawn``."""
    query = select(sources, versions.c.version_hash, versions.c.effective_from).join(
        versions,
        and_(
            versions.c.source_id == sources.c.source_id,
            versions.c.version == sources.c.current_version,
        ),
    )
    if after is not None:
        query = query.where(sources.c.source_id > after)
    if status == "active":
        query = query.where(sources.c.withdrawn_at.is_(None))
    elif status == "withdrawn":
        query = query.where(sources.c.withdrawn_at.is_not(None))
    if authority is not None:
        query = query.where(sources.c.authority == authority)
    rows = (
        (await conn.execute(query.order_by(sources.c.source_id).limit(limit + 1))).mappings().all()
    )
    return [
        {
            **_source_json(row),
            "current_version_hash": row["version_hash"],
            "current_effective_from": row["effective_from"],
        }
        for row in rows
    ]
