"""Positions of log followers that are not projections (the expiry and entailment processes).

Their effects are idempotent, so the position only has to move forward after the effects:
:func:`advance` never moves it backwards, whichever instance saves last.
"""

from __future__ import annotations

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from projections.schema import tracking


def position(engine: Engine, name: str) -> int:
    """The last notification id follower ``name`` finished with (0 before the first)."""
    with engine.connect() as conn:
        value = conn.execute(
            select(tracking.c.position).where(tracking.c.projection == name)
        ).scalar()
    return int(value) if value is not None else 0


def advance(engine: Engine, name: str, end: int) -> None:
    """Move follower ``name`` to ``end`` unless it is already there or further."""
    with engine.begin() as conn:
        moved = conn.execute(
            update(tracking)
            .where(tracking.c.projection == name, tracking.c.position < end)
            .values(position=end)
        ).rowcount
        if moved:
            return
        exists = conn.execute(
            select(tracking.c.position).where(tracking.c.projection == name)
        ).first()
        if exists is None:
            try:
                with conn.begin_nested():
                    conn.execute(insert(tracking).values(projection=name, position=end))
            except IntegrityError:
                pass  # another instance created the row first; it is at least as far
