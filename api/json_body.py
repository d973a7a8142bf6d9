"""Strict JSON request bodies: UTF-8 only, one value per key, bounded nesting.

RFC 8259 leaves several things to the receiver: what to do with a duplicated member name
(section 4: "the names within an object SHOULD be unique"), how deep to nest (section 9), and
whether to accept encodings other than UTF-8 (section 8.1: text exchanged between systems "MUST
be encoded using UTF-8"). A signed ledger must not guess, so this parser refuses each of them,
and the non-JSON constants (``NaN``, ``Infinity``) and out-of-range numbers Python's own parser
lets through. Every refusal is a :class:`MalformedBody` naming its rule; a string that JSON can
carry but UTF-8 cannot (a lone surrogate escape such as ``"\\ud800"``) is a field error
(:class:`~ledger.errors.InvalidInput`, rule ``utf-8``) naming where it sits, and so is a
``"\\u0000"`` (rule ``nul``), which PostgreSQL text cannot hold.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

from ledger.errors import InvalidInput, MalformedBody

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a body may have."""

# A lone surrogate (UTF-8 cannot carry it) or U+0000 (PostgreSQL text cannot hold it).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
# The only way either can reach a string of valid UTF-8 JSON: an escape (raw control
# characters are not JSON). A match may be a valid surrogate pair, or an escaped backslash.
_UNSTORABLE_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")


class _DuplicateKeys(dict[str, Any]):
    """An object that named a member more than once (reported with its path after parsing)."""

    duplicates: list[str]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members = dict(pairs)
    if len(members) == len(pairs):
        return members
    flagged = _DuplicateKeys(members)
    seen: set[str] = set()
    flagged.duplicates = []
    for key, _ in pairs:
        if key in seen:
            flagged.duplicates.append(key)
        seen.add(key)
    return flagged


def _constant(name: str) -> Any:
    raise MalformedBody("body", "json", f"{name} is not a JSON value (RFC 8259 section 6)")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise MalformedBody("body", "json", f"the number {text[:40]} is out of range")
    return value


def _readable(key: str) -> str:
    """A member name fit to quote in a problem (surrogates and NUL escaped)."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")


def parse_json_body(body: bytes) -> Any:
    """Parse ``body`` as one strict JSON value, or raise naming the first rule it breaks."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedBody(
            "body", "utf-8", f"the request body is not valid UTF-8 (byte {exc.start})"
        ) from None
    if text.startswith("\ufeff"):
        raise MalformedBody("body", "utf-8", "the request body starts with a byte order mark")
    try:
        value = json.loads(
            text, object_pairs_hook=_object, parse_constant=_constant, parse_float=_float
        )
    except RecursionError:
        raise _too_deep() from None
    except json.JSONDecodeError as exc:
        offset = len(text[: exc.pos].encode("utf-8"))
        raise MalformedBody(
            "body", "json", f"the request body is not JSON: {exc.msg} at byte {offset}"
        ) from None
    except ValueError as exc:  # e.g. an integer past Python's digit limit
        if isinstance(exc, MalformedBody):
            raise
        raise MalformedBody("body", "json", f"the request body is not JSON: {exc}") from None
    if _suspect(value, strings=_UNSTORABLE_ESCAPE.search(text) is not None):
        _locate(value)
    return value


def _too_deep() -> MalformedBody:
    return MalformedBody(
        "body", "depth", f"the request body nests arrays and objects deeper than {MAX_DEPTH} levels"
    )


def _suspect(root: Any, *, strings: bool) -> bool:
    """Whether the value breaks a rule: a fast walk without paths (iterative, containers only
    unless the raw text has a suspicious ``\\u`` escape, which strings then need checking for)."""
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            if depth >= MAX_DEPTH or isinstance(value, _DuplicateKeys):
                return True
            if strings and any(_UNSTORABLE.search(key) for key in value):
                return True
            children: Iterable[Any] = value.values()
        elif isinstance(value, list):
            if depth >= MAX_DEPTH:
                return True
            children = value
        elif isinstance(value, str):
            if _UNSTORABLE.search(value):
                return True
            continue
        else:
            continue
        stack.extend(
            (child, depth + 1)
            for child in children
            if isinstance(child, (dict, list)) or (strings and isinstance(child, str))
        )
    return False


def _locate(root: Any) -> None:
    """Walk the value again, with paths, and raise for the first rule it breaks."""
    stack: list[tuple[Any, tuple[str, ...], int]] = [(root, (), 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            if _UNSTORABLE.search(value):
                _unstorable(path, value)
            continue
        if isinstance(value, dict):
            items: list[tuple[str, Any]] = list(value.items())
            if isinstance(value, _DuplicateKeys):
                where = _field((*path, _readable(value.duplicates[0])))
                raise MalformedBody(
                    where,
                    "duplicate-key",
                    f"{where} is given more than once; each member must appear once",
                )
            for key, _ in items:
                if _UNSTORABLE.search(key):
                    _unstorable((*path, _readable(key)), key)
        elif isinstance(value, list):
            items = [(str(index), item) for index, item in enumerate(value)]
        else:
            continue
        if depth >= MAX_DEPTH:
            raise _too_deep()
        stack.extend((item, (*path, key), depth + 1) for key, item in items)


def _field(path: tuple[str, ...]) -> str:
    return ".".join(path) or "body"


def _unstorable(path: tuple[str, ...], text: str) -> None:
    where = _field(path)
    if "\x00" in text:
        raise InvalidInput(where, "nul", f"{where} contains U+0000, which no ledger text may hold")
    raise InvalidInput(where, "utf-8", f"{where} contains a lone surrogate")
