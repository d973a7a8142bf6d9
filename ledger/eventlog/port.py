"""The event log as the rooms above it see it: commit aggregates, get one, read the position.

Command objects (:class:`ledger.registry.commands.SourceRegistry` and the receipt desks) depend on
this protocol rather than on :class:`ledger.eventlog.application.Ledger`, so the application can
hand itself to them without an import cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol
from uuid import UUID

from eventsourcing.application import Repository
from eventsourcing.persistence import Notification, Recording


class EventLog(Protocol):
    """What a command needs from the ledger's application."""

    @property
    def repository(self) -> Repository[UUID]:
        """The repository that rebuilds aggregates from verified events."""

    def commit(self, *aggregates: Any) -> list[Recording[UUID]]:
        """Append the aggregates' pending events in one transaction."""

    def last_position(self) -> int:
        """The notification id of the newest event in the log."""

    def notifications(self, topics: Sequence[str]) -> list[Notification]:
        """Every stored event of the given topics, in log order."""

    def decode(self, notification: Notification) -> Any:
        """The domain event of a stored notification."""
