"""What a reader needs of a cited source version beyond the binding's view: when the version
was superseded and its source withdrawn (a claim's standing today), and where a cited table
cell sits, in the table's own words.

A table cell is cited by table, row and column (numbered from 0 in the registry); a reader
finds it by its row label and its column header. Both come from the version's recorded
tables (``registry_versions.tables``) and the cell's envelope (``ledger.text.tables``): the
envelope's ``{row labels}, {header path}`` with the header path the table's own for that
column.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

from ledger.text.tables import cell_labels
from projections.schema import sources, versions

Pair = tuple[str, int]
"""A source version: ``(source_id, version)``."""


@dataclass(frozen=True)
class CitedVersion:
    """A cited version's dates and its source's withdrawal, as the registry has them now."""

    source_id: str
    version: int
    title: str
    effective_from: str
    effective_to: str | None
    superseded_at: str | None
    withdrawn_at: str | None
    withdraw_reason: str | None
    tables: tuple[dict[str, Any], ...] = ()


async def cited_versions(
    conn: AsyncConnection, pairs: Collection[Pair], with_tables: Collection[Pair] = ()
) -> dict[Pair, CitedVersion]:
    """The versions ``pairs`` (one query), with their recorded tables for those of
    ``with_tables`` (a second query, only when asked: a table-heavy version's tables are
    large)."""
    wanted = sorted(set(pairs))
    if not wanted:
        return {}
    rows = (
        (
            await conn.execute(
                select(
                    versions.c.source_id,
                    versions.c.version,
                    versions.c.title,
                    versions.c.effective_from,
                    versions.c.effective_to,
                    versions.c.superseded_at,
                    sources.c.withdrawn_at,
                    sources.c.withdraw_reason,
                )
                .join(sources, sources.c.source_id == versions.c.source_id)
                .where(tuple_(versions.c.source_id, versions.c.version).in_(wanted))
            )
        )
        .mappings()
        .all()
    )
    tables: dict[Pair, tuple[dict[str, Any], ...]] = {}
    asked = sorted(set(with_tables) & set(wanted))
    if asked:
        for source_id, version, recorded in await conn.execute(
            select(versions.c.source_id, versions.c.version, versions.c.tables).where(
                tuple_(versions.c.source_id, versions.c.version).in_(asked)
            )
        ):
            tables[(source_id, version)] = tuple(recorded or ())
    return {
        (row["source_id"], row["version"]): CitedVersion(
            source_id=row["source_id"],
            version=row["version"],
            title=row["title"],
            effective_from=row["effective_from"],
            effective_to=row["effective_to"],
            superseded_at=row["superseded_at"],
            withdrawn_at=row["withdrawn_at"],
            withdraw_reason=row["withdraw_reason"],
            tables=tables.get((row["source_id"], row["version"]), ()),
        )
        for row in rows
    }


def breadcrumb(title: str, heading_path: Sequence[str] | None) -> list[str]:
    """The headings above a span, without a first heading that only repeats the document's
    title (an HTML page's ``<h1>`` is usually its title)."""
    path = [str(part) for part in heading_path or []]
    return path[1:] if path and path[0].strip() == str(title).strip() else path


@dataclass(frozen=True)
class CellPosition:
    """A table cell in words: which table, which row, which column, what value."""

    table: str
    row: str
    column: str
    value: str


def _table_name(table: dict[str, Any] | None, table_id: str) -> str:
    """The table's title and caption (each once), its units, else its id."""
    if table is None:
        return f"table {table_id}"
    parts = []
    for key in ("title", "caption"):
        text = str(table.get(key) or "").strip()
        if text and text not in parts:
            parts.append(text)
    name = ": ".join(parts) or f"table {table_id}"
    units = str(table.get("units") or "").strip().strip("()")
    return f"{name} ({units})" if units else name


def cell_position(
    tables: Collection[dict[str, Any]],
    table_id: str,
    row: int,
    col: int,
    envelope: str | None,
    value: str,
) -> CellPosition:
    """Where the cell at ``row``, ``col`` (from 0) of ``table_id`` sits: its row label and
    column header when the table has them, else the row and column counted from 1."""
    table = next((t for t in tables if t.get("table_id") == table_id), None)
    columns = [str(c) for c in (table or {}).get("columns") or []]
    header = columns[col].strip() if 0 <= col < len(columns) else ""
    labels = ""
    if envelope:
        where = cell_labels(envelope, value)
        if where != envelope:  # the envelope has its usual shape
            if header and where == header:
                labels = ""
            elif header and where.endswith(", " + header):
                labels = where[: -len(header) - 2]
            elif not header and where != f"row {row + 1}, column {col + 1}":
                labels = where
    return CellPosition(
        table=_table_name(table, table_id),
        row=labels or f"row {row + 1}",
        column=header or f"column {col + 1}",
        value=value,
    )
