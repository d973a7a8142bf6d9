"""Ledger time: one fixed-width UTC form, order-preserving, refused by name at the year edges."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.errors import InvalidInput, TimeOutOfRange
from ledger.eventlog.clock import EARLIEST, LATEST, format_time, ledger_time, parse_time

LEDGER_TIME_WIDTH = len("2024-01-01T00:00:00.000000Z")

offsets = st.integers(min_value=-(24 * 60 - 1), max_value=24 * 60 - 1).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
utc_times = st.datetimes(min_value=datetime.min, max_value=datetime.max, timezones=st.just(UTC))


@st.composite
def aware_times(draw: st.DrawFn) -> datetime:
    """Any wall-clock time with any offset, including ones whose UTC value leaves 1-9999."""
    naive = draw(st.datetimes(min_value=datetime.min, max_value=datetime.max))
    return naive.replace(tzinfo=draw(offsets))


def _utc_in_range(moment: datetime) -> bool:
    offset = moment.utcoffset()
    assert offset is not None
    naive = moment.replace(tzinfo=None)
    return naive - datetime.min >= offset and datetime.max - naive >= -offset


@given(utc_times)
def test_every_ledger_time_has_one_width_and_a_four_digit_year(moment: datetime) -> None:
    text = format_time(moment)

    assert len(text) == LEDGER_TIME_WIDTH
    assert text[4] == "-"
    assert text.endswith("Z")
    assert int(text[:4]) == moment.year


@given(utc_times)
def test_a_ledger_time_parses_back_to_the_same_instant(moment: datetime) -> None:
    assert parse_time(format_time(moment)) == moment


@given(utc_times, utc_times)
def test_ledger_times_sort_as_strings_exactly_as_they_sort_as_times(
    first: datetime, second: datetime
) -> None:
    assert (format_time(first) < format_time(second)) == (first < second)
    assert (format_time(first) == format_time(second)) == (first == second)


@given(aware_times())
def test_any_offset_time_is_ledger_time_or_a_range_error_naming_the_field(
    moment: datetime,
) -> None:
    if _utc_in_range(moment):
        assert parse_time(ledger_time("valid_at", moment)) == moment
        return
    with pytest.raises(InvalidInput) as caught:
        ledger_time("valid_at", moment)
    assert caught.value.field == "valid_at"
    assert caught.value.rule == "range"
    assert "valid_at must fall within years 0001-9999 in UTC" in caught.value.message


@pytest.mark.parametrize(
    ("moment", "edge"),
    [
        (datetime(1, 1, 1, 0, 0, tzinfo=timezone(timedelta(hours=1))), "before year 1"),
        (datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-5))), "after 9999"),
    ],
)
def test_format_time_refuses_a_utc_value_outside_years_1_to_9999(
    moment: datetime, edge: str
) -> None:
    with pytest.raises(TimeOutOfRange, match="outside years 0001-9999"):
        format_time(moment)


def test_the_year_edges_themselves_are_ledger_times() -> None:
    assert format_time(EARLIEST) == "0001-01-01T00:00:00.000000Z"
    assert format_time(LATEST) == "9999-12-31T23:59:59.999999Z"
    assert format_time(datetime(999, 1, 1, tzinfo=UTC)) == "0999-01-01T00:00:00.000000Z"


def test_a_time_without_an_offset_is_refused_by_name() -> None:
    with pytest.raises(InvalidInput) as caught:
        ledger_time("effective_from", datetime(2024, 1, 1))
    assert (caught.value.field, caught.value.rule) == ("effective_from", "timezone")
    assert caught.value.message == "effective_from must carry a UTC offset (RFC 3339)"


def test_times_stored_with_an_unpadded_year_still_parse() -> None:
    assert parse_time("999-01-01T00:00:00.000000Z") == datetime(999, 1, 1, tzinfo=UTC)


def test_a_string_that_is_no_time_is_still_refused() -> None:
    with pytest.raises(ValueError, match="Invalid isoformat"):
        parse_time("last tuesday")
