"""The notification log, for downstream consumers and auditors."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.deps import AuditReader, EventDeskDep
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
    desk: EventDeskDep,
    _: AuditReader,
    after: After = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> EventPage:
    """Events after the cursor ``after`` (a notification id; default the start), oldest first,
    as stored and signed."""
    page = desk.page(position_cursor(after), limit)
    events = [
        StoredEventOut(
            notification_id=event.notification_id,
            originator_id=event.originator_id,
            originator_version=event.originator_version,
            topic=event.topic,
            stored=event.stored,
        )
        for event in page.events
    ]
    return EventPage(
        items=events,
        next=str(page.next_after) if page.more else None,
        events=events,
        next_after=page.next_after,
        last_position=page.last_position,
    )
