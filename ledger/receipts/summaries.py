"""A receipt as the lists summarise it, from the columns of the receipts read model.

The lists (``GET /v1/receipts``, the console's receipts and replay pages) render a row of the
receipts read model; :mod:`ledger.receipts.served_rows` renders the same summary from the
receipt's verified events and compares the two. One function per summary, used by both, so
a row and its events are judged by one rule. A row is a mapping with the table's column
names: ``receipt_id``, ``inference_id``, ``opened_by``, ``actor``, ``purpose``,
``policy_version``, ``route``, ``as_of``, ``expires_at``, ``opened_at``, ``expired_at`` and
``expiry_reason`` (the first expiry recorded), ``request``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SUMMARISED = (
    "receipt_id",
    "inference_id",
    "opened_by",
    "actor",
    "purpose",
    "policy_version",
    "route",
    "as_of",
    "expires_at",
    "opened_at",
)
"""The columns a summary shows as they are."""
ADDED_LATER = ("actor", "purpose", "inference_id", "opened_by", "request")
"""Columns a later release added: null in a read model built before them (until
``provledger projections rebuild``), where a summary shows nothing rather than a value."""


def receipt_summary(row: Mapping[Any, Any], now: str) -> dict[str, Any]:
    """The receipt as ``GET /v1/receipts`` lists it at ledger time ``now``: expired once an
    expiry is recorded or its ``expires_at`` has passed (``expires_at_passed`` until the
    sweep records why)."""
    expired = row["expired_at"] is not None or (
        row["expires_at"] is not None and row["expires_at"] <= now
    )
    return {
        **{column: row[column] for column in SUMMARISED},
        "status": "expired" if expired else "open",
        "expiry_reason": row["expiry_reason"]
        or ("expires_at_passed" if expired and row["expired_at"] is None else None),
    }


def receipt_summary_at(row: Mapping[Any, Any], now: str) -> dict[str, Any]:
    """The receipt as it stood at ledger time ``now`` (the present, or a moment replayed),
    with the question asked: an expiry recorded after ``now`` leaves it open."""
    summary = receipt_summary(row, now)
    ended = [t for t in (row["expired_at"], row["expires_at"]) if t is not None]
    if not any(t <= now for t in ended):
        summary.update(status="open", expiry_reason=None)
    else:
        summary["status"] = "expired"
    summary["request"] = row["request"]
    return summary


def affected_standing(row: Mapping[Any, Any]) -> dict[str, Any]:
    """Whether a receipt that stood on a source version still stands, as the affected lists
    show it: expired once an expiry is recorded, with the first expiry's reason."""
    return {
        "status": "expired" if row["expired_at"] else "open",
        "expiry_reason": row["expiry_reason"],
    }
