"""Times typed into console forms: RFC 3339, or a date or minute read as UTC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ledger.errors import InvalidInput
from ledger.eventlog.clock import ledger_time


def form_time(field: str, value: str | None, *, end_of_day: bool = False) -> str | None:
    """Ledger time of a form field, None when blank; 422 naming ``field`` (rule ``rfc3339``)
    when it is not a time.

    ``2026-01-31T10:00:00Z`` and ``2026-01-31T10:00:00+01:00`` are read as written;
    ``2026-01-31T10:00`` (a browser's datetime-local) as UTC; a bare date as its first moment
    in UTC, or with ``end_of_day`` as the first moment of the next day (an exclusive bound
    that includes the whole date)."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise InvalidInput(
            field, "rfc3339", f"{field} must be an RFC 3339 time or a date (YYYY-MM-DD)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if end_of_day and len(text) == 10:
        try:
            moment = moment + timedelta(days=1)
        except OverflowError:
            raise InvalidInput(field, "range", f"{field} is past year 9999") from None
    return ledger_time(field, moment)
