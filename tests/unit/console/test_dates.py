"""Times as a reader sees them: a date and a time in UTC, the exact value on hover."""

from __future__ import annotations

from api.console.dates import shown, when
from api.console.views.audit import cosigned_at


def test_a_ledger_time_reads_to_the_second_in_utc() -> None:
    assert shown("2026-12-04T18:20:53.885359Z") == "2026-12-04 18:20:53 UTC"


def test_a_time_with_an_offset_is_shown_in_utc() -> None:
    assert shown("2026-12-04T20:20:53+02:00") == "2026-12-04 18:20:53 UTC"


def test_midnight_exactly_reads_as_the_date_alone() -> None:
    assert shown("2026-01-01T00:00:00.000000Z") == "2026-01-01"


def test_unix_seconds_of_a_cosignature_read_as_a_date_and_time() -> None:
    assert shown(1796404367) == "2026-12-04 17:12:47 UTC"


def test_the_element_keeps_the_exact_value_in_datetime_and_title() -> None:
    assert str(when("2026-12-04T18:20:53.885359Z")) == (
        '<time datetime="2026-12-04T18:20:53.885359Z" title="2026-12-04T18:20:53.885359Z">'
        "2026-12-04 18:20:53 UTC</time>"
    )
    assert 'datetime="2026-12-04T17:12:47.000000Z"' in str(when(1796404367))


def test_what_is_not_a_time_is_shown_as_escaped_text() -> None:
    assert str(when('<b>"soon"</b>')) == "&lt;b&gt;&#34;soon&#34;&lt;/b&gt;"
    assert shown("yesterday") == "yesterday"


def test_no_time_shows_the_given_word() -> None:
    assert str(when(None, "never")) == "never"
    assert str(when(None)) == ""


def test_a_cosignature_carries_its_unix_time_before_its_signature() -> None:
    signature = (1796404367).to_bytes(8, "big") + bytes(64)
    assert cosigned_at(signature) == 1796404367
    assert cosigned_at(bytes(64)) is None  # the log's own Ed25519 signature has no time
