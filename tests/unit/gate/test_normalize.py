"""Quote normalisation: what is folded and what is kept."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from ledger.gate.normalize import _TRANSLATION, normalise_quote


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


def _normalised_by_pattern(text: str) -> str:
    """The comparison form with whitespace collapsed by ``\\s+``, for any text."""
    mapped = unicodedata.normalize("NFKC", text.translate(_TRANSLATION)).translate(_TRANSLATION)
    return re.sub(r"\s+", " ", mapped).strip()


_MIXED = "ab1 \t\n\r\x0b\x0c\x1c\x85\xa0\u2003\u2028\u3000\u2019\u201c\u2014\u2033\uff21"


@given(st.text(alphabet=st.sampled_from(_MIXED), max_size=30))
def test_collapses_the_whitespace_the_pattern_collapses_in_any_text(text: str) -> None:
    assert normalise_quote(text) == _normalised_by_pattern(text)
