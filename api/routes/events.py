"""The notification log, for downstream consumers and auditors."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Query

from api.deps import AuditReader, LedgerDep
from api.errors import Problem
from api.pages import After, position_cursor
from api.schemas import EventPage, StoredEventOut
from ledger.eventlog.application import MAX_PAGE

router = APIRouter(tags=["events"])


@router.get(
    "/v1/events",
    response_model=EventPage,
    responses={
        401: {"model": Problem, "description": "no or unknown API key"},
        403: {"model": Problem, "description": "the key lacks the audit:read scope"},
        422: {"model": Problem, "description": "invalid input (errors names field and rule)"},
    },
)
def read_events(
    ledger: LedgerDep,
    _: AuditReader,
    after: After = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> EventPage:
    """Events after the cursor ``after`` (a notification id; default the start), oldest first,
    as stored and signed."""
    start = position_cursor(after)
    notifications = ledger.read_log(start, limit)
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
    next_after = notifications[-1].id if notifications else start
    last_position = ledger.last_position()
    return EventPage(
        items=events,
        next=str(next_after) if events and next_after < last_position else None,
        events=events,
        next_after=next_after,
        last_position=last_position,
    )
