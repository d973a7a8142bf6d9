"""One paging convention for every list: ``?limit=&after=``, answered ``{items, next}``.

``after`` is an opaque cursor: a client passes back the ``next`` of the page before, never
builds one. ``next`` is null on the last page (fewer items than ``limit`` remain). A cursor is
the URL-safe base64 (no padding) of the RFC 8785 form of ``[list name, sort key...]``, so a
cursor of one list is refused by another. The event log and the review queue, ordered by log
position, take the position itself in decimal (so their ``?after=N`` from before this
convention still works). Anything else is 422 naming ``query.after`` and rule
``cursor``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Query
from pydantic import BaseModel, Field

from api.deps import MAX_INT
from ledger.crypto.canonical import canonical_json
from ledger.errors import InvalidInput

MAX_CURSOR = 512
"""The longest cursor accepted (a cursor names a sort key of a few ids)."""

T = TypeVar("T")
"""An item of a page."""

Limit = Annotated[int, Query(ge=1, le=1000, description="items per page (1-1000)")]
After = Annotated[
    str | None,
    Query(max_length=MAX_CURSOR, description="the `next` of the previous page (opaque)"),
]


class Page(BaseModel, Generic[T]):
    """A page of a list."""

    items: list[T]
    next: str | None = Field(description="pass as ?after= for the next page; null on the last")


def _refused(field: str) -> InvalidInput:
    return InvalidInput(field, "cursor", "after is not a cursor this list gave")


def encode_cursor(name: str, key: Sequence[Any]) -> str:
    """The cursor after the item whose sort key is ``key`` in list ``name``."""
    return base64.urlsafe_b64encode(canonical_json([name, *key])).rstrip(b"=").decode()


def _fits(part: Any, kind: type) -> bool:
    if kind is int:
        return isinstance(part, int) and not isinstance(part, bool) and 0 <= part <= MAX_INT
    if not isinstance(part, str) or "\x00" in part:
        return False
    try:  # a lone surrogate (an edited cursor) is no string a database column holds
        part.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def decode_cursor(
    name: str, cursor: str | None, kinds: tuple[type, ...], field: str = "query.after"
) -> list[Any]:
    """The sort key (of types ``kinds``) a cursor of list ``name`` names ([] for none); 422
    when it is not one."""
    if cursor is None:
        return []
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        decoded = json.loads(raw)
    except (binascii.Error, ValueError):
        raise _refused(field) from None
    if (
        not isinstance(decoded, list)
        or len(decoded) != len(kinds) + 1
        or decoded[0] != name
        or not all(_fits(part, kind) for part, kind in zip(decoded[1:], kinds, strict=True))
    ):
        raise _refused(field)
    return decoded[1:]


def position_cursor(cursor: str | None, field: str = "query.after") -> int:
    """A cursor of a list ordered by log position: the position in decimal (0 for none)."""
    if cursor is None:
        return 0
    if not cursor.isascii() or not cursor.isdigit():
        raise _refused(field)
    if int(cursor) > MAX_INT:
        raise InvalidInput(field, "less_than_equal", f"{field} must be at most {MAX_INT}")
    return int(cursor)
