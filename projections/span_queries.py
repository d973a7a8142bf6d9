"""Read-only span lookups in the registry read model: by id (with its context), by character
range, by table cell, and by quote.

Rows come from the read model; the routes check every span they serve against the verified
version (``VerifiedSpans.check_served``) before serving it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import RowMapping, Select, and_, or_, select, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

from ledger.errors import NotFound
from ledger.gate.normalize import normalise_quote
from projections.registry_queries import (
    NOW,
    SPAN_FIELDS,
    AsOf,
    known_versions,
    source_as_of,
    source_record,
    span_json,
    version_as_of,
    version_status,
    when_known,
)
from projections.schema import sources, spans, versions

SCAN_BATCH = 2000
"""Spans read per query while a quote search scans."""
_TOKEN = re.compile(r"[A-Za-z0-9]+")
_NOT_PLAIN = "[^\t\n\f -~]"
"""A character outside printable ASCII and the whitespace frozen text keeps: a span holding
one may normalise (NFKC) into letters its stored text does not show."""


async def _version_row(conn: AsyncConnection, source_id: str, version: int) -> Any:
    row = (
        await conn.execute(
            select(versions.c.version_hash).where(
                versions.c.source_id == source_id, versions.c.version == version
            )
        )
    ).first()
    if row is None:
        raise NotFound(f"source {source_id!r} has no version {version}")
    return row


async def _page(conn: AsyncConnection, query: Select[Any], limit: int) -> list[dict[str, Any]]:
    rows = (await conn.execute(query.order_by(spans.c.ord).limit(limit + 1))).mappings().all()
    return [{**span_json(row), "ord": row["ord"]} for row in rows]


async def spans_in_range(
    conn: AsyncConnection,
    source_id: str,
    version: int,
    start: int | None,
    end: int | None,
    after_ord: int | None,
    limit: int,
) -> list[dict[str, Any]]:
    """Up to ``limit + 1`` spans of a version overlapping ``[start, end)`` of its frozen text
    (either bound optional), in document order, after span ordinal ``after_ord``."""
    await _version_row(conn, source_id, version)
    query = select(*SPAN_FIELDS, spans.c.ord).where(
        spans.c.source_id == source_id, spans.c.version == version
    )
    if start is not None:
        query = query.where(spans.c.end > start)
    if end is not None:
        query = query.where(spans.c.start < end)
    if after_ord is not None:
        query = query.where(spans.c.ord > after_ord)
    return await _page(conn, query, limit)


async def table_cells(
    conn: AsyncConnection,
    source_id: str,
    version: int,
    table: str | None,
    row: int | None,
    col: int | None,
    after_ord: int | None,
    limit: int,
) -> list[dict[str, Any]]:
    """Up to ``limit + 1`` table cell spans of a version (each filter optional), in document
    order, after span ordinal ``after_ord``."""
    await _version_row(conn, source_id, version)
    query = select(*SPAN_FIELDS, spans.c.ord).where(
        spans.c.source_id == source_id,
        spans.c.version == version,
        spans.c.table_id.is_not(None),
    )
    for column, value in ((spans.c.table_id, table), (spans.c.table_row, row)):
        if value is not None:
            query = query.where(column == value)
    if col is not None:
        query = query.where(spans.c.table_col == col)
    if after_ord is not None:
        query = query.where(spans.c.ord > after_ord)
    return await _page(conn, query, limit)


@dataclass(frozen=True)
class QuoteSearch:
    """``POST /v1/spans/search``: the quote in comparison form (:func:`normalise_quote`), an
    optional source, the time the versions must be in force at (ledger format), and sources
    the query leaves out (those a pinned key is known not to see)."""

    quote: str
    at: str
    source_id: str | None = None
    hidden: frozenset[str] = frozenset()


def _prefilter(quote: str, dialect: str) -> Any | None:
    """A condition every span containing ``quote`` (normalised) meets, to scan fewer rows:
    each of the quote's runs of ASCII letters and digits appears in the stored text, or the
    stored text holds a character whose normalisation could have produced one."""
    tokens = sorted(set(_TOKEN.findall(quote)), key=len, reverse=True)
    if not tokens:
        return None
    contains = and_(*(spans.c.text.like(f"%{token}%") for token in tokens[:8]))
    plain = (
        spans.c.text.op("GLOB")(f"*{_NOT_PLAIN}*")
        if dialect == "sqlite"
        else spans.c.text.op("~")(_NOT_PLAIN)
    )
    return or_(contains, plain)


async def search_quote(
    conn: AsyncConnection, search: QuoteSearch, after: Sequence[Any], limit: int
) -> list[dict[str, Any]]:
    """Up to ``limit + 1`` spans whose normalised text contains ``search.quote``, of versions
    in force at ``search.at`` of sources not withdrawn by then, ordered by (source id,
    version, span ordinal) and after the key ``after``.

    Exact containment is checked here, in Python, on each candidate: the database only
    narrows the candidates (:func:`_prefilter`) and pages through them in batches."""
    at = search.at
    query = (
        select(*SPAN_FIELDS, spans.c.ord, versions.c.version_hash)
        .join(
            versions,
            and_(versions.c.source_id == spans.c.source_id, versions.c.version == spans.c.version),
        )
        .join(sources, sources.c.source_id == spans.c.source_id)
        .where(
            versions.c.effective_from <= at,
            or_(versions.c.effective_to.is_(None), versions.c.effective_to > at),
            or_(sources.c.withdrawn_at.is_(None), sources.c.withdrawn_at > at),
        )
    )
    if search.source_id is not None:
        query = query.where(spans.c.source_id == search.source_id)
    if search.hidden:
        query = query.where(spans.c.source_id.not_in(sorted(search.hidden)))
    condition = _prefilter(search.quote, conn.dialect.name)
    if condition is not None:
        query = query.where(condition)
    key = tuple(after) if after else None
    found: list[dict[str, Any]] = []
    while len(found) <= limit:
        batch = query
        if key is not None:
            batch = batch.where(tuple_(spans.c.source_id, spans.c.version, spans.c.ord) > key)
        rows = (
            (
                await conn.execute(
                    batch.order_by(spans.c.source_id, spans.c.version, spans.c.ord).limit(
                        SCAN_BATCH
                    )
                )
            )
            .mappings()
            .all()
        )
        for row in rows:
            if search.quote in normalise_quote(row["text"]):
                found.append(
                    {
                        **span_json(row),
                        "source_id": row["source_id"],
                        "version": row["version"],
                        "version_hash": row["version_hash"],
                        "ord": row["ord"],
                    }
                )
                if len(found) > limit:
                    break
        if len(rows) < SCAN_BATCH:
            break
        last = rows[-1]
        key = (last["source_id"], last["version"], last["ord"])
    return found


async def _span_row(conn: AsyncConnection, span_id: str, as_of: AsOf = NOW) -> RowMapping:
    # The same id can name identical text in two versions; the newest known is shown.
    rows = (
        (
            await conn.execute(
                select(*SPAN_FIELDS, spans.c.ord, versions.c.recorded_at)
                .join(
                    versions,
                    and_(
                        versions.c.source_id == spans.c.source_id,
                        versions.c.version == spans.c.version,
                    ),
                )
                .where(spans.c.span_id == span_id)
                .order_by(spans.c.version.desc())
            )
        )
        .mappings()
        .all()
    )
    for row in rows:
        if as_of.knows(row["recorded_at"]):
            return row
    raise missing_span(span_id, as_of)


def missing_span(span_id: str, as_of: AsOf = NOW) -> NotFound:
    """The answer to a span the registry does not hold (as known at ``as_of``)."""
    return NotFound(f"no span {span_id!r}" + when_known(as_of))


async def get_span(conn: AsyncConnection, span_id: str, as_of: AsOf = NOW) -> dict[str, Any]:
    """A span with its source, version, hash, breadcrumb, page and status (as of)."""
    row = await _span_row(conn, span_id, as_of)
    source_row = await source_record(conn, row["source_id"], as_of)
    known = await known_versions(conn, row["source_id"], as_of)
    source = source_as_of(source_row, known, as_of)
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
    effective_to = next(
        (
            v["effective_to"]
            for v in (version_as_of(r, as_of) for r in known)
            if v["version"] == row["version"]
        ),
        None,
    )
    body = {
        **span_json(row),
        "source_id": row["source_id"],
        "source_title": source["title"],
        "authority": source["authority"],
        "version": row["version"],
        "version_hash": version["version_hash"],
        "effective_from": version["effective_from"],
        "effective_to": effective_to,
        "status": version_status(source, row["version"]),
    }
    if as_of.valid_at is not None:
        body["in_force_at_valid_at"] = version["effective_from"] <= as_of.valid_at and (
            effective_to is None or as_of.valid_at < effective_to
        )
    return body


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
