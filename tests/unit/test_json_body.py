"""Strict JSON bodies: what RFC 8259 leaves open is refused, by rule and by field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.json_body import MAX_DEPTH, parse_json_body
from ledger.errors import InvalidInput, MalformedBody

# Text without surrogates (UTF-8 cannot carry them) or U+0000 (PostgreSQL text cannot).
texts = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=20)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=30,
)


def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def _refusal(body: bytes) -> MalformedBody:
    with pytest.raises(MalformedBody) as caught:
        parse_json_body(body)
    return caught.value


@given(json_values)
def test_any_json_value_in_utf8_parses_to_itself(value: Any) -> None:
    assert parse_json_body(json.dumps(value, ensure_ascii=False).encode("utf-8")) == value
    assert parse_json_body(json.dumps(value).encode("ascii")) == value


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"source_id": "a", "source_id": "b"}', "source_id"),
        (b'{"metadata": {"k": 1, "k": 1}}', "metadata.k"),
        (b'{"claims": [{"text": "x"}, {"text": "x", "text": "y"}]}', "claims.1.text"),
    ],
)
def test_a_key_given_twice_is_refused_naming_where_it_is(body: bytes, field: str) -> None:
    error = _refusal(body)

    assert (error.field, error.rule) == (field, "duplicate-key")
    assert error.message == f"{field} is given more than once; each member must appear once"


def test_nesting_up_to_the_limit_is_accepted() -> None:
    assert parse_json_body(_nested(MAX_DEPTH)) is not None


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 100_000])
def test_nesting_past_the_limit_is_refused_as_too_deep(depth: int) -> None:
    error = _refusal(_nested(depth))

    assert (error.field, error.rule) == ("body", "depth")
    assert (
        error.message == f"the request body nests arrays and objects deeper than {MAX_DEPTH} levels"
    )


@pytest.mark.parametrize(
    "body",
    [
        json.dumps({"text": "hé"}).encode("utf-16"),
        json.dumps({"text": "hé"}).encode("utf-16-le"),
        json.dumps({"text": "hé"}).encode("utf-32"),
        b'{"text": "caf\xe9"}',
    ],
    ids=["utf-16-bom", "utf-16-le", "utf-32", "latin-1"],
)
def test_a_body_in_another_encoding_is_refused(body: bytes) -> None:
    error = _refusal(body)

    assert (error.field, error.rule) in {("body", "utf-8"), ("body", "json")}
    assert error.message.startswith("the request body is not")


def test_a_utf8_byte_order_mark_is_refused() -> None:
    error = _refusal(b'\xef\xbb\xbf{"text": "x"}')

    assert (error.field, error.rule) == ("body", "utf-8")
    assert error.message == "the request body starts with a byte order mark"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"source_id": ', "the request body is not JSON: Expecting value at byte 14"),
        (b"", "the request body is not JSON: Expecting value at byte 0"),
        (b'{"a": 1} {"b": 2}', "the request body is not JSON: Extra data at byte 9"),
        (b'{"a": NaN}', "NaN is not a JSON value (RFC 8259 section 6)"),
        (b'{"a": -Infinity}', "-Infinity is not a JSON value (RFC 8259 section 6)"),
        (b'{"a": 1e999}', "the number 1e999 is out of range"),
    ],
)
def test_text_that_is_not_json_is_refused_saying_why(body: bytes, message: str) -> None:
    error = _refusal(body)

    assert (error.field, error.rule) == ("body", "json")
    assert error.message == message


def test_an_integer_past_the_digit_limit_is_refused_not_raised() -> None:
    error = _refusal(b'{"a": ' + b"9" * 5000 + b"}")

    assert (error.field, error.rule) == ("body", "json")
    assert "integer string conversion" in error.message


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"request": "\\ud800"}', "request"),
        (b'{"claims": [{"text": "ok"}, {"text": "a\\udfffb"}]}', "claims.1.text"),
        (b'{"metadata": {"\\ud800": 1}}', "metadata.\\ud800"),
        (b'["\\ud800"]', "0"),
    ],
)
def test_a_lone_surrogate_is_a_field_error_naming_where_it_is(body: bytes, field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_json_body(body)

    assert not isinstance(caught.value, MalformedBody)
    assert caught.value.errors == [
        {"field": field, "rule": "utf-8", "message": f"{field} contains a lone surrogate"}
    ]
    caught.value.message.encode("utf-8")  # the problem itself can always be sent


def test_an_escaped_surrogate_pair_is_one_character() -> None:
    assert parse_json_body(b'{"text": "\\ud83d\\ude00"}') == {"text": "\U0001f600"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"actor": "u\\u0000"}', "actor"),
        (b'{"evidence": ["sp_1", "sp_\\u0000"]}', "evidence.1"),
        (b'{"budget": {"a\\u0000": 1}}', "budget.a\\x00"),
    ],
)
def test_a_nul_character_is_a_field_error_naming_where_it_is(body: bytes, field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_json_body(body)

    assert caught.value.errors == [
        {
            "field": field,
            "rule": "nul",
            "message": f"{field} contains U+0000, which no ledger text may hold",
        }
    ]


any_texts = st.text(max_size=8)  # surrogates and U+0000 included
any_values = st.recursive(
    st.none() | st.booleans() | st.integers() | any_texts,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(any_texts, children, max_size=3)
    ),
    max_leaves=20,
)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)


@given(any_values)
def test_a_body_is_refused_exactly_when_a_string_holds_a_surrogate_or_nul(value: Any) -> None:
    unstorable = any(
        "\x00" in text or any("\ud800" <= char <= "\udfff" for char in text)
        for text in _strings(value)
    )
    body = json.dumps(value).encode("ascii")  # every non-ASCII character as a \u escape

    if unstorable:
        with pytest.raises(InvalidInput) as caught:
            parse_json_body(body)
        assert caught.value.rule in {"nul", "utf-8"}
    else:
        assert parse_json_body(body) == value
