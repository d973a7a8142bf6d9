"""How far a projection is behind the log: in events, and in seconds of the oldest event it
has not applied yet.

Lag in events says how much work is queued; lag in seconds says how stale a read is, which is
what an operator alerts on (a burst of a thousand events applied in a second is no problem, one
event waiting a minute is). The seconds are the age of the first event after the projection's
position, by the ``recorded_at`` its writer sealed into it: one indexed read of one row, and 0
when the projection is caught up.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from ledger.eventlog.application import Ledger
from ledger.eventlog.clock import parse_time
from ledger.eventlog.envelope import open_state
from projections.runner import ProjectionRunner


@dataclass(frozen=True, slots=True)
class Lag:
    """A projection's distance from the log end."""

    events: int
    seconds: float


def oldest_unapplied_age(ledger: Ledger, position: int, now: datetime | None = None) -> float:
    """Seconds since the first event after ``position`` was recorded (0 when there is none).

    The time is read from the stored body without checking its signature: it only describes
    the read side's delay, nothing is decided or signed from it."""
    rows = ledger.recorder.select_notifications(start=position, limit=1, inclusive_of_start=False)
    if not rows:
        return 0.0
    recorded = parse_time(open_state(rows[0].state).body["recorded_at"])
    return max(0.0, ((now or datetime.now(UTC)) - recorded).total_seconds())


def projection_lag(ledger: Ledger, runner: ProjectionRunner, end: int) -> Lag:
    """How far ``runner``'s projection is behind the log ending at ``end``."""
    position = runner.position()
    events = max(0, end - position)
    seconds = oldest_unapplied_age(ledger, position) if events else 0.0
    return Lag(events, seconds)
