"""Quote normalisation: what is folded and what is kept."""

from __future__ import annotations

from ledger.gate.normalize import normalise_quote


def test_maps_typographic_quotes_to_ascii() -> None:
    assert normalise_quote("\u201cYes,\u201d she said, \u2018no\u2019 \u00abmaybe\u00bb") == (
        '"Yes," she said, \'no\' "maybe"'
    )


def test_maps_primes_and_double_prime() -> None:
    assert normalise_quote("5\u2032 10\u2033") == "5' 10\""


def test_maps_every_dash_and_the_minus_sign_to_hyphen() -> None:
    assert (
        normalise_quote("a\u2010b\u2011c\u2012d\u2013e\u2014f\u2015g\u2212h") == "a-b-c-d-e-f-g-h"
    )


def test_collapses_whitespace_runs_and_trims() -> None:
    assert normalise_quote("  one\t two\n\nthree\u00a0four ") == "one two three four"


def test_applies_nfkc() -> None:
    assert normalise_quote("\uff21\uff22\uff23 \ufb01le") == "ABC file"


def test_keeps_case_and_digits() -> None:
    assert normalise_quote("Revenue ROSE 2.2%") == "Revenue ROSE 2.2%"
