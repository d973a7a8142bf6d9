"""Times as a reader sees them: a date and a time in UTC, the exact stored value on hover.

The ledger stores RFC 3339 times with six fractional digits (``ledger.eventlog.clock``), and
a witness's cosignature carries Unix seconds (C2SP tlog-cosignature). Neither reads well in a
list: a page shows ``2026-12-04 18:20:53 UTC``, or the date alone for a time at midnight
exactly (an effective date: ``2026-01-01``), inside ``<time datetime=...>`` whose ``title``
holds the exact value.
"""

from __future__ import annotations

from datetime import UTC, datetime

from markupsafe import Markup

from ledger.eventlog.clock import format_time, parse_time


def moment(value: str | int) -> datetime | None:
    """The UTC time of a ledger time or of Unix seconds; None when it is neither."""
    try:
        if isinstance(value, int):
            return datetime.fromtimestamp(value, UTC)
        return parse_time(value).astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        return None


def shown(value: str | int) -> str:
    """``2026-12-04 18:20:53 UTC``, ``2026-01-01`` at midnight, else the value as given."""
    found = moment(value)
    if found is None:
        return str(value)
    if (found.hour, found.minute, found.second, found.microsecond) == (0, 0, 0, 0):
        return found.strftime("%Y-%m-%d")
    return found.strftime("%Y-%m-%d %H:%M:%S UTC")


def when(value: str | int | None, empty: str = "") -> Markup:
    """A ``<time>`` element showing :func:`shown`, the exact value in ``datetime`` and
    ``title`` (escaped: a stored time is data like any other); ``empty`` for None."""
    if value is None or value == "":
        return Markup("{}").format(empty)
    found = moment(value)
    if found is None:
        return Markup("{}").format(value)
    exact = format_time(found) if isinstance(value, int) else str(value)
    return Markup('<time datetime="{}" title="{}">{}</time>').format(exact, exact, shown(value))
