"""The quote check: exact, contiguous, mismatching and empty quotes."""

from __future__ import annotations

from ledger.gate.citation.quote import check_quote
from ledger.gate.model import Outcome

SPAN = "Automotive-segment revenue declined 2.2% quarter-on-quarter, though we expect a rebound."


def test_passes_a_quote_of_the_whole_span_as_exact() -> None:
    result = check_quote(SPAN, SPAN, "s1")
    assert (result.outcome, result.reason, result.span_id) == (Outcome.PASS, "quote_exact", "s1")


def test_passes_a_contiguous_part_of_the_span() -> None:
    result = check_quote("revenue declined 2.2%", SPAN, "s1")
    assert (result.outcome, result.reason) == (Outcome.PASS, "quote_contiguous")


def test_passes_a_quote_that_differs_only_in_curly_quotes_dashes_and_spaces() -> None:
    span = "He said \u201cwe will not\u201d \u2014 twice."
    result = check_quote('He said  "we will not" - twice.', span, "s1")
    assert (result.outcome, result.reason) == (Outcome.PASS, "quote_exact")


def test_rejects_a_quote_that_differs_in_case() -> None:
    result = check_quote("Revenue declined 2.2%", SPAN, "s1")
    assert (result.outcome, result.reason) == (Outcome.FAIL, "quote_mismatch")
    assert "'Revenue declined" in result.detail


def test_rejects_a_quote_with_a_changed_number_and_shows_where_it_departs() -> None:
    result = check_quote("revenue declined 22%", SPAN, "s1")
    assert (result.outcome, result.reason) == (Outcome.FAIL, "quote_mismatch")
    assert "for 18 characters" in result.detail
    assert "'2%'" in result.detail


def test_rejects_non_contiguous_words() -> None:
    result = check_quote("revenue declined quarter-on-quarter", SPAN, "s1")
    assert (result.outcome, result.reason) == (Outcome.FAIL, "quote_mismatch")


def test_rejects_an_empty_quote() -> None:
    result = check_quote("  ", SPAN, "s1")
    assert (result.outcome, result.reason, result.detail) == (
        Outcome.FAIL,
        "quote_empty",
        "the quote is empty",
    )
