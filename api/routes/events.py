"""The notification log, for downstream consumers and auditors."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Query

from api.deps import MAX_INT, AuditReader, LedgerDep
from api.schemas import EventPage, StoredEventOut
from ledger.eventlog.application import MAX_PAGE

router = APIRouter(tags=["events"])


@router.get("/v1/events", response_model=EventPage)
def read_events(
    ledger: LedgerDep,
    _: AuditReader,
    after: Annotated[int, Query(ge=0, le=MAX_INT, description="return events after this id")] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> EventPage:
    """Events with notification id greater than ``after``, oldest first, as stored and signed."""
    notifications = ledger.read_log(after, limit)
    events = [
        StoredEventOut(
            notification_id=n.id,
            originator_id=str(n.originator_id),
            originator_version=n.originator_version,
            topic=n.topic,
            stored=json.loads(n.state),
        )
        for n in notifications
    ]
    next_after = notifications[-1].id if notifications else after
    return EventPage(events=events, next_after=next_after, last_position=ledger.last_position())
