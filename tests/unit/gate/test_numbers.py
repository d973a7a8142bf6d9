"""Numbers and dates as the gate reads them, against reference scans."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.gate.anchors.numbers import (
    _NUMBER,
    _PLAIN_DATE_PATTERNS,
    _number_matches,
    _run_matches,
    dates,
    digit_runs,
    numbers,
)
from ledger.gate.anchors.reading import _DIGIT_CHUNK, digit_chunks


def _reference(text: str) -> list[tuple[int, int]]:
    """Every match of the number pattern, by scanning every position."""
    return [m.span() for m in _NUMBER.finditer(text) if m.group("num")]


@pytest.mark.parametrize(
    "text",
    [
        "$                          725",
        "US$  -  4.5 million and (1,102)",
        "USD        5 or GBP 12",
        "a .81 mm mortar and .925 save percentage",
        "$(7,125) in 2019; 3-1-0 record",
        "revenue declined 2.2% in Q3 2023, eur 4 and U\u017fd 5, \u0130nr 6",
        "a loss of (USD 1,102) and (US$ 5.2 million), (usd7)",
        "US$b,enQ\u2013(USD 9",
    ],
)
def test_finds_the_numbers_a_full_scan_finds(text: str) -> None:
    assert [m.span() for m in _number_matches(text)] == _reference(text)


@given(st.text(alphabet="0123456789 .,-()$€£%USDkmbnQa", max_size=40))
def test_finds_the_numbers_a_full_scan_finds_in_any_text(text: str) -> None:
    assert [m.span() for m in _number_matches(text)] == _reference(text)


@given(st.text(alphabet="0123456789 $.(-USDEURInrdeclinQax\u017f\u0131\u0130", max_size=40))
def test_finds_the_numbers_a_full_scan_finds_after_words_and_currency_codes(text: str) -> None:
    assert [m.span() for m in _number_matches(text)] == _reference(text)


def test_reads_a_day_of_a_month_without_a_year_as_a_partial_date() -> None:
    assert [d.key for d in dates("between June 30 and December 31, 2019")] == [
        "--06-30",
        "2019-12-31",
    ]


def test_still_reads_month_names_next_to_years() -> None:
    assert [d.key for d in dates("Jan. 5, 2024; 5 May 2020; in May 2020")] == [
        "2024-01-05",
        "2020-05-05",
        "2020-05",
    ]
    assert re.fullmatch(r"\d{4}", dates("in 2018")[0].key)


def test_reads_years_joined_by_commas_as_years() -> None:
    assert [d.key for d in dates("the total costs for 2017,2018 and 2019")] == [
        "2017",
        "2018",
        "2019",
    ]
    assert [d.key for d in dates("in 2017,2018,2019")] == ["2017", "2018", "2019"]


def test_does_not_read_a_grouped_figure_as_years() -> None:
    assert dates("sales of 2,017,2018 units") == []
    assert dates("sales of 2017,201 units") == []
    assert dates("a rate of 1.2017,2018") == []


@given(st.text(alphabet="0123456789 \t\n.,-Qab(", max_size=40))
def test_finds_the_digit_chunks_a_full_scan_finds_in_any_text(text: str) -> None:
    assert list(digit_chunks(text)) == [m.span() for m in _DIGIT_CHUNK.finditer(text)]


@pytest.mark.parametrize("pattern", _PLAIN_DATE_PATTERNS)
@given(text=st.text(alphabet="0123456789 -,.$%a\u0663", max_size=40))
def test_finds_the_plain_dates_a_full_scan_finds_in_any_text(
    pattern: re.Pattern[str], text: str
) -> None:
    found = _run_matches(pattern, text, digit_runs(text))
    assert [m.span() for m in found] == [m.span() for m in pattern.finditer(text)]


def test_finds_years_and_iso_dates_from_the_runs_of_digits() -> None:
    text = "2019,2020 and 2021-03-04; 12019 and 1.2018 and 2019"
    assert [d.key for d in dates(text)] == ["2019", "2020", "2021-03-04", "2019"]


def test_reads_a_letter_spaced_year_as_that_year() -> None:
    header = "Table \u2014 Net deferred tax asset, December 31 2 0 1 8 U.S. $ in thousands: 772"
    assert [d.key for d in dates(header)] == ["--12-31", "2018"]
    assert [a.text for a in numbers(header)] == ["772"]
    assert [d.key for d in dates("1 9 9 9 and 2 0 0 1")] == ["1999", "2001"]


@pytest.mark.parametrize(
    "text",
    [
        "1 2 0 1 8",  # five spaced digits
        "2 0 1 8 2 0 1 7",  # two spaced years run together: which digits make which?
        "2 0 1 8%",  # a percent
        "2 0 1 8.5",  # a decimal
        "$2 0 1 8",  # an amount
        "x2 0 1 8",  # joined to a word
        "3 0 1 8",  # not a year from 1900 to 2099
        "1 8 9 9",
        "2 0  1 8",  # not single spaces
        "20 1 8",  # not single digits
    ],
)
def test_does_not_read_other_spaced_digits_as_a_year(text: str) -> None:
    assert dates(text) == []


def test_reads_a_bracket_before_a_currency_code_as_the_figures_own() -> None:
    (loss,) = numbers("a loss of (USD 1,102) in the year")
    assert (loss.text, loss.bracketed, loss.mantissa, loss.currency) == (
        "(USD 1,102)",
        True,
        -1102.0,
        "USD",
    )
