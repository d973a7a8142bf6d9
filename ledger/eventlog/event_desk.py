"""The notification log read in pages, as stored and signed: ``GET /v1/events``.

Downstream consumers and auditors follow the log by notification id; each page says the
log's last position, so a reader knows whether more is there without asking again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ledger.eventlog.application import Ledger


@dataclass(frozen=True)
class StoredEvent:
    """One event exactly as stored: its signed body and signature (``stored``)."""

    notification_id: int
    originator_id: str
    originator_version: int
    topic: str
    stored: dict[str, Any]


@dataclass(frozen=True)
class LogPage:
    """Events after a position, oldest first, and where the log ends."""

    events: list[StoredEvent]
    next_after: int
    """The last notification id of the page (the position asked after, for an empty page)."""
    last_position: int
    """The highest notification id in the log, read after the page."""

    @property
    def more(self) -> bool:
        """Whether the log holds events past this page."""
        return bool(self.events) and self.next_after < self.last_position


class EventDesk:
    """Reads the notification log for those who follow it."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def page(self, after: int, limit: int) -> LogPage:
        """Up to ``limit`` events with notification id greater than ``after``."""
        notifications = self.ledger.read_log(after, limit)
        events = [
            StoredEvent(
                notification_id=n.id,
                originator_id=str(n.originator_id),
                originator_version=n.originator_version,
                topic=n.topic,
                stored=json.loads(n.state),
            )
            for n in notifications
        ]
        next_after = notifications[-1].id if notifications else after
        return LogPage(events, next_after, self.ledger.last_position())
