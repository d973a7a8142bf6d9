"""The event log's ports: what the rooms above see of it, and what it needs from them.

:class:`EventLog` is the log as the rooms above see it: commit aggregates, get one, read the
position. Command objects (:class:`ledger.registry.source_desk.SourceDesk` and the receipt
desks) depend on it rather than on :class:`ledger.eventlog.application.Ledger`, so the
application can hand itself to them without an import cycle.

:class:`ReadChecks` is what the log needs from above: the check every event read back gets
before it is decoded. :class:`ledger.audit.verified_reads.EventChecks` implements it; the
composition root (``api/services.py``) hands one to the ``Ledger``, so ``ledger/eventlog``
imports nothing from the rooms above it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol
from uuid import UUID

from eventsourcing.application import Repository
from eventsourcing.persistence import AggregateRecorder, Notification, Recording, StoredEvent


class EventLog(Protocol):
    """What a command needs from the ledger's application."""

    @property
    def repository(self) -> Repository[UUID]:
        """The repository that rebuilds aggregates from verified events."""

    def commit(self, *aggregates: Any) -> list[Recording[UUID]]:
        """Append the aggregates' pending events in one transaction."""

    def last_position(self) -> int:
        """The notification id of the newest event in the log."""

    def notifications(self, topics: Sequence[str], after: int = 0) -> list[Notification]:
        """Every stored event of the given topics after notification id ``after``, in log
        order."""

    def decode(self, notification: Notification) -> Any:
        """The domain event of a stored notification (not verified)."""

    def verified_event(self, stored: StoredEvent) -> Any:
        """The domain event of a stored event, after the check every read gets."""


class ReadChecks(Protocol):
    """Checks events read back from the store before they are used (the verified reads)."""

    def check(
        self,
        recorder: AggregateRecorder,
        originator_id: UUID,
        stored: Sequence[StoredEvent],
        first: int | None = None,
    ) -> None:
        """Verify ``stored``, events of one aggregate read in one query, or raise
        :class:`~ledger.errors.LedgerIntegrityError`; ``first`` is the version the read must
        start at, when the query fixes it."""

    def remember_written(
        self, stored: Sequence[StoredEvent], links: Sequence[tuple[bytes, bytes | None]]
    ) -> None:
        """Remember events this process has just written, with their (hash, prev), as verified."""
