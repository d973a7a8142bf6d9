"""RFC 8785 canonical JSON: the fast path must equal the reference implementation."""

from __future__ import annotations

import math

import pytest
import rfc8785
from hypothesis import given
from hypothesis import strategies as st

from ledger.crypto.canonical import canonical_json
from ledger.errors import CanonicalisationError

_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(_text, children, max_size=5),
    max_leaves=25,
)


@given(_json)
def test_matches_the_rfc8785_reference_for_any_json_value(value: object) -> None:
    assert canonical_json(value) == rfc8785.dumps(value)


def test_sorts_keys_by_utf16_code_units_not_code_points() -> None:
    # U+1F600 is a surrogate pair D83D DE00, which sorts before U+E000 in UTF-16.
    value = {"\ue000": 1, "\U0001f600": 2}
    assert canonical_json(value) == '{"\U0001f600":2,"\ue000":1}'.encode()


def test_escapes_control_characters_like_the_rfc() -> None:
    assert canonical_json({"a": '\u0001\n"\\'}) == b'{"a":"\\u0001\\n\\"\\\\"}'


@pytest.mark.parametrize(
    "value",
    [math.nan, math.inf, 2**53, {"a": "\ud800"}, {1: "non-string key"}],
    ids=["nan", "infinity", "unsafe-integer", "lone-surrogate", "int-key"],
)
def test_refuses_values_without_a_canonical_form(value: object) -> None:
    with pytest.raises(CanonicalisationError, match="no RFC 8785 form"):
        canonical_json(value)
