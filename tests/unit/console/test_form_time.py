"""Times typed into console forms."""

from __future__ import annotations

import pytest

from api.console.times import form_time
from ledger.errors import InvalidInput


def test_reads_rfc3339_with_an_offset_as_written() -> None:
    assert form_time("at", "2026-01-31T10:00:00+01:00") == "2026-01-31T09:00:00.000000Z"


def test_reads_a_time_without_offset_and_a_date_as_utc() -> None:
    assert form_time("at", "2026-01-31T10:00") == "2026-01-31T10:00:00.000000Z"
    assert form_time("at", "2026-01-31") == "2026-01-31T00:00:00.000000Z"


def test_a_date_as_an_end_bound_includes_the_whole_day() -> None:
    assert form_time("to", "2026-01-31", end_of_day=True) == "2026-02-01T00:00:00.000000Z"


def test_blank_is_no_bound() -> None:
    assert form_time("at", "  ") is None
    assert form_time("at", None) is None


@pytest.mark.parametrize(("value", "rule"), [("soon", "rfc3339"), ("9999-12-31", "range")])
def test_refuses_what_is_not_a_time_naming_the_field(value: str, rule: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        form_time("valid_at", value, end_of_day=True)
    assert (caught.value.field, caught.value.rule) == ("valid_at", rule)
