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
from ledger.keys.api_keys import Caller
from ledger.receipts.outcome_desk import OutcomeDesk
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.sight import KeySight
from projections.affected_read_desk import AffectedPage, Expired, expired_at
from projections.pinned_view import pinned_view
from projections.service import ReadSide


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


async def expired_for(
    caller: Caller,
    position: int | None,
    sight: KeySight,
    receipts: ReceiptDesk,
    read_side: ReadSide,
    outcomes: OutcomeDesk,
) -> dict[str, Any]:
    """What the change at ``position`` expired as ``caller`` may see it (a key with pins:
    only receipts it may read, as every list of receipts); for the writes that do not yet go
    through ``processes/change_desk.py`` ``ChangeDesk.settled``."""
    view = await pinned_view(caller.pins, sight, receipts)
    return expired_json(await expired_at(position, read_side, outcomes, view))
