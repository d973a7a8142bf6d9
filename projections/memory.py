"""Memory items in the registry read model: one row per item, one per version.

Memory is a governed source, so its rows are written by the registry projection (the same
runner, position and rebuild, and ``provledger verify --read-models`` checks them with the
registry's). The rows index the items (for the list, the expiry process and the sweep); the
item itself (its text, scope and sources) is always read from its verified events.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update

from ledger.audit.log_verify import StoredRow
from ledger.eventlog.clock import format_time
from ledger.memory.item import MemoryItem
from projections.schema import memory_items, memory_versions

TOPICS = (
    MemoryItem.Recorded.TOPIC,
    MemoryItem.Corrected.TOPIC,
    MemoryItem.Revoked.TOPIC,
)
EVENTS = (MemoryItem.Recorded, MemoryItem.Corrected, MemoryItem.Revoked)

_INSERT_ITEM = insert(memory_items)
_INSERT_VERSION = insert(memory_versions)
_ITEM_OF_AGGREGATE = select(memory_items.c.memory_id).where(
    memory_items.c.aggregate_id == bindparam("b_aggregate")
)
_CORRECT = (
    update(memory_items)
    .where(memory_items.c.memory_id == bindparam("b_memory"))
    .values(
        purpose=bindparam("b_purpose"),
        current_version=bindparam("b_version"),
        expires_at=bindparam("b_expires"),
        updated_at=bindparam("b_at"),
    )
)
_REVOKE = (
    update(memory_items)
    .where(memory_items.c.memory_id == bindparam("b_memory"))
    .values(
        revoked_at=bindparam("b_at"),
        revoked_position=bindparam("b_position"),
        updated_at=bindparam("b_at"),
    )
)


def apply_memory_event(conn: Connection, event: Any, notification: StoredRow) -> None:
    """Write the rows of one memory item event."""
    recorded_at = format_time(event.timestamp)
    aggregate_id = str(notification.originator_id)
    if isinstance(event, MemoryItem.Recorded):
        conn.execute(
            _INSERT_ITEM,
            {
                "memory_id": event.memory_id,
                "aggregate_id": aggregate_id,
                "purpose": event.purpose,
                "current_version": 1,
                "expires_at": event.expires_at,
                "recorded_at": recorded_at,
                "updated_at": recorded_at,
                "revoked_at": None,
                "revoked_position": None,
                "position": notification.id,
            },
        )
        _version(conn, event.memory_id, 1, event.expires_at, recorded_at, notification.id)
        return
    memory_id = str(conn.execute(_ITEM_OF_AGGREGATE, {"b_aggregate": aggregate_id}).scalar_one())
    if isinstance(event, MemoryItem.Corrected):
        conn.execute(
            _CORRECT,
            {
                "b_memory": memory_id,
                "b_purpose": event.purpose,
                "b_version": event.version,
                "b_expires": event.expires_at,
                "b_at": recorded_at,
            },
        )
        _version(conn, memory_id, event.version, event.expires_at, recorded_at, notification.id)
    elif isinstance(event, MemoryItem.Revoked):
        conn.execute(
            _REVOKE, {"b_memory": memory_id, "b_at": recorded_at, "b_position": notification.id}
        )


def _version(
    conn: Connection, memory_id: str, version: int, expires_at: str, at: str, position: int
) -> None:
    conn.execute(
        _INSERT_VERSION,
        {
            "memory_id": memory_id,
            "version": version,
            "expires_at": expires_at,
            "recorded_at": at,
            "position": position,
        },
    )
