"""Citation engagement: how often readers expand a citation and follow it to its source.

A citation nobody opens has done nothing; the rate at which readers check citations, falling
slowly as a system earns trust and not to zero, is the signal (docs/console.md). These counts
are a read model of reader behaviour, not ledger facts: they are never signed, never in the
event log, and a rebuild of the read models leaves them alone. One row per claim, source and
kind of engagement; an increment is one UPDATE (an INSERT the first time).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    Engine,
    MetaData,
    String,
    Table,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from projections.schema import claim_bindings

engagement_metadata = MetaData()


class Engagement(StrEnum):
    """What a reader did with a citation."""

    EXPAND = "expand"
    """Opened the citation in place (its excerpt, checks and warnings)."""
    FOLLOW = "follow"
    """Followed it to the source page."""


citation_engagement = Table(
    "citation_engagement",
    engagement_metadata,
    Column("claim_id", String(32), primary_key=True),
    Column("source_id", String(128), primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("count", BigInteger, nullable=False),
)


def create_tables(engine: Engine) -> None:
    """Create the engagement table if it is missing."""
    engagement_metadata.create_all(engine)


def record(engine: Engine, claim_id: str, source_id: str, kind: Engagement) -> None:
    """Count one engagement (the first one inserts the row; a race with another first one
    is settled by updating the row the other inserted)."""
    key = (
        citation_engagement.c.claim_id == claim_id,
        citation_engagement.c.source_id == source_id,
        citation_engagement.c.kind == kind.value,
    )
    bump = update(citation_engagement).where(*key).values(count=citation_engagement.c.count + 1)
    with engine.begin() as conn:
        if conn.execute(bump).rowcount:
            return
    try:
        with engine.begin() as conn:
            conn.execute(
                insert(citation_engagement),
                {"claim_id": claim_id, "source_id": source_id, "kind": kind.value, "count": 1},
            )
    except IntegrityError:
        with engine.begin() as conn:
            conn.execute(bump)


def claim_counts(conn: Connection, claim_ids: Sequence[str]) -> dict[str, dict[str, int]]:
    """``{claim_id: {kind: count}}`` summed over sources, for ``claim_ids``."""
    if not claim_ids:
        return {}
    rows = conn.execute(
        select(
            citation_engagement.c.claim_id,
            citation_engagement.c.kind,
            func.sum(citation_engagement.c.count),
        )
        .where(citation_engagement.c.claim_id.in_(list(claim_ids)))
        .group_by(citation_engagement.c.claim_id, citation_engagement.c.kind)
    ).all()
    counts: dict[str, dict[str, int]] = {}
    for claim_id, kind, total in rows:
        counts.setdefault(str(claim_id), {})[str(kind)] = int(total)
    return counts


def source_counts(conn: Connection, source_id: str) -> dict[str, int]:
    """``{kind: count}`` over every claim citing ``source_id``."""
    rows = conn.execute(
        select(citation_engagement.c.kind, func.sum(citation_engagement.c.count))
        .where(citation_engagement.c.source_id == source_id)
        .group_by(citation_engagement.c.kind)
    ).all()
    return {str(kind): int(total) for kind, total in rows}


def cites(conn: Connection, claim_id: str, source_id: str) -> bool:
    """Whether claim ``claim_id`` binds a span of source ``source_id``."""
    row = conn.execute(
        select(claim_bindings.c.claim_id).where(
            claim_bindings.c.claim_id == claim_id, claim_bindings.c.source_id == source_id
        )
    ).first()
    return row is not None
