"""Is the event store still the one the read models were built from?

Read models live beside the events but are not rolled back with them: a store restored from
an older backup, or one whose newest events were deleted, leaves projection positions past
the log's end. SQLite then hands out the lost notification ids again, so a projection would
skip the new events (new sources 404) and the transparency log would keep serving old
leaves. Two checks catch it: a position past the log's end (free: the runner reads the end
anyway), and the event at a position no longer being the one the transparency log recorded
there (its leaf hash, one indexed read of each side). The second runs when a runner reads
its position back from the table (at start, after a conflict) and before every batch of the
transparency log, which sees every event; a failure found once is remembered, so every
read model of the process refuses from then on.
"""

from __future__ import annotations

import hmac

from sqlalchemy import Engine, and_, select

from ledger.crypto.merkle import leaf_hash
from ledger.errors import ReadModelsAhead
from ledger.eventlog.application import Ledger
from projections.log_rows import read_rows
from projections.schema import merkle_leaves, merkle_nodes

RESTORE_HINT = (
    "the event store was rolled back or restored from an older backup; restore the read "
    "models from the same backup, or run `provledger projections rebuild` "
    "(docs/deployment.md, 'Restoring from a backup')"
)


def check_end(name: str, position: int, end: int) -> None:
    """Refuse a read model whose position is past the end of the log."""
    if position > end:
        raise ReadModelsAhead(
            f"read model {name!r} is at notification {position} but the event store ends "
            f"at {end}: {RESTORE_HINT}"
        )


_LAST_LEAF_AT_OR_BEFORE = (
    select(merkle_leaves.c.notification_id, merkle_nodes.c.hash)
    .join(
        merkle_nodes,
        and_(merkle_nodes.c.level == 0, merkle_nodes.c.idx == merkle_leaves.c.leaf_index),
    )
    .order_by(merkle_leaves.c.notification_id.desc())
    .limit(1)
)


class LogAnchor:
    """Checks a read model's position against the transparency log's record of the event
    there: the stored event with the last logged notification id at or before the position
    must still hash to the leaf the log holds for it."""

    def __init__(self, ledger: Ledger, engine: Engine) -> None:
        self.ledger = ledger
        self.engine = engine
        self.failure: ReadModelsAhead | None = None

    def check(self, name: str, position: int, full: bool = True) -> None:
        """Raise :class:`ReadModelsAhead` if the event at ``position`` was replaced or lost
        (``full``), or if any earlier check of this anchor failed."""
        if self.failure is not None:
            raise ReadModelsAhead(str(self.failure))
        if not full or position <= 0:
            return
        try:
            self._check(name, position)
        except ReadModelsAhead as failure:
            self.failure = failure
            raise

    def _check(self, name: str, position: int) -> None:
        with self.engine.connect() as conn:
            row = conn.execute(
                _LAST_LEAF_AT_OR_BEFORE.where(merkle_leaves.c.notification_id <= position)
            ).first()
        if row is None:
            return  # the transparency log has not reached this far yet
        notification_id, logged = int(row[0]), bytes(row[1])
        stored = read_rows(self.ledger.recorder, notification_id - 1, 1)
        if not stored or stored[0].id != notification_id:
            raise ReadModelsAhead(
                f"read model {name!r} is at notification {position}, but event "
                f"{notification_id}, which the transparency log holds, is gone from the event "
                f"store: {RESTORE_HINT}"
            )
        if not hmac.compare_digest(leaf_hash(stored[0].state), logged):
            raise ReadModelsAhead(
                f"read model {name!r} is at notification {position}, but event "
                f"{notification_id} in the event store is not the one the transparency log "
                f"holds (it was edited, or another event now has its id): {RESTORE_HINT}"
            )
