"""Affected receipts as the API answers them: the cursors of the affected and expired lists,
and what a write says it expired (``{cause, items, next}``).

The lists themselves are read by ``projections/affected_read_desk.py`` (``AffectedReadDesk``),
which answers the receipt id of a page's last item; here it becomes a cursor bound to the
list and its arguments.
"""

from __future__ import annotations

import hashlib
from typing import Any

from api.pages import encode_cursor
from projections.affected_read_desk import AffectedPage, Expired


def list_name(*parts: str) -> str:
    """A short cursor name bound to a list and its arguments (names may be 200 characters,
    a cursor at most 512)."""
    digest = hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{parts[0]}:{digest[:16]}"


def expiries_name(cause: str) -> str:
    """The cursor name of ``GET /v1/expiries?cause=``."""
    return list_name("expiries", cause)


def page_json(name: str, found: AffectedPage) -> dict[str, Any]:
    """``{items, next}``: a page of list ``name``."""
    return {
        "items": found.items,
        "next": None if found.last is None else encode_cursor(name, [found.last]),
    }


def expired_json(expired: Expired) -> dict[str, Any]:
    """``{cause, items, next}``: what a write's answer says it expired (``next`` pages on
    with ``GET /v1/expiries?cause=``)."""
    if expired.cause is None:
        return {"cause": None, "items": expired.items, "next": None}
    page = AffectedPage(expired.items, expired.last)
    return {"cause": expired.cause, **page_json(expiries_name(expired.cause), page)}
