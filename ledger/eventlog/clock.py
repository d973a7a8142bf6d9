"""Ledger time: one RFC 3339 form for every time the ledger stores, compares or signs.

Every stored time is UTC written as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (RFC 3339 section 5.6,
``time-secfrac`` of exactly six digits, ``Z`` for the offset). The form has a fixed width and a
four-digit year, so two ledger times compare as strings exactly as they compare as times: the
registry and the expiry process rely on that. ``datetime`` cannot hold a UTC time outside
years 0001-9999, so a caller's time whose offset pushes it past either end is refused, by name,
with :func:`ledger_time` at the edge of the system rather than overflowing later.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from ledger.errors import InvalidInput, TimeOutOfRange

EARLIEST = datetime.min.replace(tzinfo=UTC)
"""The earliest ledger time, 0001-01-01T00:00:00.000000Z."""
LATEST = datetime.max.replace(tzinfo=UTC)
"""The latest ledger time, 9999-12-31T23:59:59.999999Z."""

# Times written before years were padded to four digits ("999-01-01T...").
_UNPADDED_YEAR = re.compile(r"^(\d{1,3})-")


def to_utc(moment: datetime) -> datetime:
    """``moment`` in UTC (a naive time is taken as local, as :meth:`datetime.astimezone` does).

    Raises :class:`TimeOutOfRange` when the UTC value falls outside years 0001-9999.
    """
    try:
        return moment.astimezone(UTC)
    except (OverflowError, ValueError):
        raise TimeOutOfRange(
            f"{moment.isoformat()} is outside years 0001-9999 once converted to UTC"
        ) from None


def format_time(moment: datetime) -> str:
    """RFC 3339 in UTC, four-digit year and exactly six fractional digits: strings sort like
    times. Raises :class:`TimeOutOfRange` for a time outside years 0001-9999 in UTC."""
    utc = to_utc(moment)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T"
        f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}.{utc.microsecond:06d}Z"
    )


def parse_time(text: str) -> datetime:
    """Parse a time written by :func:`format_time` (or any RFC 3339 time with an offset).

    Times stored before years were padded ("999-01-01T...") still parse.
    """
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        padded = _UNPADDED_YEAR.sub(lambda match: f"{int(match[1]):04d}-", text, count=1)
        if padded == text:
            raise
        return datetime.fromisoformat(padded.replace("Z", "+00:00"))


def ledger_time(field: str, moment: datetime) -> str:
    """A caller's time as ledger time, or :class:`InvalidInput` naming ``field``: rule
    ``timezone`` without a UTC offset, rule ``range`` outside years 0001-9999 in UTC."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidInput(field, "timezone", f"{field} must carry a UTC offset (RFC 3339)")
    try:
        return format_time(moment)
    except TimeOutOfRange:
        raise InvalidInput(
            field,
            "range",
            f"{field} must fall within years 0001-9999 in UTC "
            f"(from {format_time(EARLIEST)} to {format_time(LATEST)})",
        ) from None
