"""Read-only queries of what a reader needs of a cited source version beyond the binding's
view: its dates, its source's withdrawal, and its recorded tables."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

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
