"""Read-only queries of the regulator's replay page: what the ledger held at a date, and what
it learned later about that date."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, select

from projections.schema import receipts, sources, versions


def replay_summary(conn: Connection, at: str, limit: int) -> dict[str, Any]:
    """The ids of the sources registered by ``at`` (at most ``limit`` + 1, in id order); when
    the ledger first recorded a source; how many sources recorded after ``at`` have a version
    valid at ``at``, and how many receipts opened after ``at`` were decided as of a time
    before it (the reader who replays a date before the ledger learned of them should know
    they exist)."""
    ids = [
        str(source_id)
        for (source_id,) in conn.execute(
            select(sources.c.source_id)
            .where(sources.c.registered_at <= at)
            .order_by(sources.c.source_id)
            .limit(limit + 1)
        )
    ]
    first = conn.execute(select(func.min(sources.c.registered_at))).scalar()
    later_count, later_first = conn.execute(
        select(func.count(func.distinct(sources.c.source_id)), func.min(sources.c.registered_at))
        .select_from(sources.join(versions, versions.c.source_id == sources.c.source_id))
        .where(sources.c.registered_at > at, versions.c.effective_from <= at)
    ).one()
    decided_count, decided_first = conn.execute(
        select(func.count(), func.min(receipts.c.opened_at)).where(
            receipts.c.opened_at >= at, receipts.c.as_of < at
        )
    ).one()
    return {
        "source_ids": ids,
        "first_record": first,
        "recorded_later": int(later_count or 0),
        "first_recorded_later": later_first,
        "decided_later": int(decided_count or 0),
        "first_decided_later": decided_first,
    }
