"""Drive projections from the notification log, exactly once.

A projection consumes events of its topics in notification order. Each batch is applied in one
transaction that also moves the projection's tracking position, guarded by the position it
started from: if another runner (a second process) got there first, the batch rolls back and
the runner re-reads the position. Rows and position therefore never disagree.

Any failed batch discards what the projection holds in memory (the transparency tree's right
edge, unwritten rows): it was built on a position that may no longer hold. A conflict while
the position stayed where the batch started is not another runner; it means the read model
and the event store disagree, and the runner refuses rather than retry forever. So does a
position past the end of the log (see :mod:`projections.log_anchor`).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from ledger import tracing
from ledger.audit.log_verify import StoredRow
from ledger.errors import ConcurrentProjection, ReadModelsAhead
from ledger.eventlog.application import Ledger
from projections.log_anchor import RESTORE_HINT, check_end
from projections.schema import tracking

BATCH_SIZE = 500


class Projection(ABC):
    """One read model: which events it needs and how each changes its rows."""

    name: str
    topics: Sequence[str]
    decode: bool = True
    """False for projections that read only the stored bytes (no domain event is built)."""
    batch_size: int = BATCH_SIZE
    """Events per transaction when catching up."""
    anchor_each_batch: bool = False
    """Check the log anchor before every batch, not only when the position is re-read."""

    @abstractmethod
    def apply(self, conn: Connection, event: Any, notification: StoredRow) -> None:
        """Change the read model's rows for one event (inside the batch transaction)."""

    @abstractmethod
    def reset(self, conn: Connection) -> None:
        """Delete every row of this read model (for a rebuild)."""

    def select(self, ledger: Ledger, start: int, stop: int) -> Sequence[Any]:
        """The next batch of events after ``start`` and up to ``stop`` (notifications of the
        topics)."""
        return ledger.recorder.select_notifications(
            start=start,
            limit=self.batch_size,
            stop=stop,
            topics=self.topics,
            inclusive_of_start=False,
        )

    def flush(self, conn: Connection) -> None:  # noqa: B027 - optional hook
        """Write rows collected over the batch (called once, before the position moves)."""

    def forget(self) -> None:  # noqa: B027 - optional hook, most projections cache nothing
        """Drop in-memory caches (after a rolled-back batch or a rebuild)."""


class ProjectionRunner:
    """Catches one projection up with the ledger.

    ``anchor(name, position, full)``, when given, checks that the event store still holds
    the events the read model was built from: in full whenever the runner (re-)reads its
    position from the table, and before every batch of projections that ask for it; on
    every other step only for a failure already found (the check costs two reads, which the
    write path's read-your-writes catch-up should not pay on every request).
    """

    def __init__(
        self,
        ledger: Ledger,
        engine: Engine,
        projection: Projection,
        anchor: Callable[[str, int, bool], None] | None = None,
    ) -> None:
        self.ledger = ledger
        self.engine = engine
        self.projection = projection
        self.anchor = anchor
        self._lock = threading.Lock()
        # Last position this runner committed; None means "read it from the table".
        self._known: int | None = None
        self._started = 0  # the position the current batch started from
        self.failure: str | None = None
        """Why the last catch-up failed (``None`` after one that succeeded): ``/readyz``
        names a projection that fails on every poll instead of calling the service ready."""

    def position(self) -> int:
        """The last notification id this projection has applied."""
        with self.engine.connect() as conn:
            return self._position(conn)

    def _position(self, conn: Connection) -> int:
        value = conn.execute(
            select(tracking.c.position).where(tracking.c.projection == self.projection.name)
        ).scalar()
        return int(value) if value is not None else 0

    def catch_up(self) -> int:
        """Apply every new event of the projection's topics; return the new position."""
        try:
            position = self._catch_up()
        except Exception as exc:
            self.failure = f"{type(exc).__name__}: {exc}"
            raise
        self.failure = None
        return position

    def _catch_up(self) -> int:
        with self._lock:
            while True:
                try:
                    applied = self._step()
                except (ConcurrentProjection, IntegrityError) as exc:
                    self._discard()
                    if isinstance(exc, IntegrityError) and self.position() == self._started:
                        # Nobody moved the position: these rows are not another runner's.
                        raise ReadModelsAhead(
                            f"read model {self.projection.name!r} at notification "
                            f"{self._started} already holds rows for the events after it "
                            f"(a duplicate key): {RESTORE_HINT}"
                        ) from exc
                    continue  # another process applied this batch first; its rows stand
                except BaseException:
                    self._discard()
                    raise
                if applied < self.projection.batch_size:
                    assert self._known is not None
                    return self._known

    def _discard(self) -> None:
        """Forget the position and the projection's in-memory state; both are re-read."""
        self._known = None
        self.projection.forget()

    def _step(self) -> int:
        """Apply one batch of events in one transaction; return how many there were.

        The position moves past the events of other topics too: a batch shorter than the
        batch size holds every event of the projection's topics up to the log end read before
        it, so the position becomes that end. Without this, a projection whose events are rare
        (the registry, in a log of claim commits) would scan every later event on every read.
        Every notification id up to the end is committed when the end is read: the store
        writes them in order (one writer at a time holds the table lock).
        """
        reread = self._known is None
        start = self._known if self._known is not None else self.position()
        self._started = start
        end = self.ledger.last_position()
        check_end(self.projection.name, start, end)
        if self.anchor is not None:
            full = reread or (end > start and self.projection.anchor_each_batch)
            self.anchor(self.projection.name, start, full)
        if end <= start:
            self._known = start
            return 0
        attributes: tracing.Attributes = {"projection": self.projection.name, "from": start}
        with tracing.span("projection.batch", attributes) as span:
            batch = self.projection.select(self.ledger, start, end)
            if len(batch) >= self.projection.batch_size:
                reached = batch[-1].id
            else:  # every event of the topics up to ``end`` (a reader of all may pass it)
                reached = max(end, batch[-1].id) if batch else end
            span.set("events", len(batch))
            span.set("to", reached)
            with self.engine.begin() as conn:
                decode = self.projection.decode
                for notification in batch:
                    event = self.ledger.mapper.to_domain_event(notification) if decode else None
                    self.projection.apply(conn, event, notification)
                if batch:
                    self.projection.flush(conn)
                self._advance(conn, start, reached)
        self._known = reached
        return len(batch)

    def _advance(self, conn: Connection, start: int, end: int) -> None:
        if start == 0:
            exists = conn.execute(
                select(tracking.c.position).where(tracking.c.projection == self.projection.name)
            ).first()
            if exists is None:
                conn.execute(insert(tracking).values(projection=self.projection.name, position=end))
                return
        result = conn.execute(
            update(tracking)
            .where(tracking.c.projection == self.projection.name, tracking.c.position == start)
            .values(position=end)
        )
        if result.rowcount != 1:
            raise ConcurrentProjection(self.projection.name)

    def rebuild(self) -> int:
        """Delete the read model and its position, then replay from the first event."""
        with self._lock, self.engine.begin() as conn:
            self.projection.reset(conn)
            conn.execute(tracking.delete().where(tracking.c.projection == self.projection.name))
            self._discard()
        return self.catch_up()
