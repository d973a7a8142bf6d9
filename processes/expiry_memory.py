"""Expiry targets of memory items (docs/memory.md):

- a memory item corrected by a new version (``provledger.memory.corrected``): the receipts
  opened before it whose pool sealed the version before expire, ``memory_corrected``;
- a memory item revoked (``provledger.memory.revoked``): the receipts opened before it that
  sealed any of its versions expire, ``memory_revoked`` (the detail names the item, never the
  reason, which may tell of a person's request);
- a receipt opened with a memory version already corrected or revoked earlier in the log (an
  opening whose check raced the change): that receipt expires at once, for the same reasons;
  so each change expires each receipt once, by the change or by the opening, whichever came
  later;
- the sweep: receipts not yet expired whose sealed memory version's ``expires_at`` has passed
  expire, ``memory_expired``, cause ``memory:<memory id>:v<version>``.

The read models find the receipts (``receipt_memory``) and the changes (``memory_items``,
``memory_versions``); each target carries a check the expiry desk runs on the receipt's
verified events before it records anything, so a row that names a receipt which never sealed
the item expires nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eventsourcing.persistence import Notification
from sqlalchemy import Connection

from ledger.memory.item import MemoryItem
from ledger.receipts.receipt import Receipt
from processes.expiry_recorded import Target
from projections.memory_queries import (
    memory_changes,
    memory_due,
    memory_id_of,
    receipts_sealing,
)

TOPICS = (MemoryItem.Corrected.TOPIC, MemoryItem.Revoked.TOPIC, Receipt.Opened.TOPIC)
EVENTS = (MemoryItem.Corrected, MemoryItem.Revoked, Receipt.Opened)


def _seals(memory_id: str, version: int | None = None) -> Callable[[Receipt], bool]:
    """The check that a receipt's verified context sealed the item (that version, if given)."""
    return lambda receipt: any(
        m["memory_id"] == memory_id and version in (None, m["version"]) for m in receipt.memory
    )


def targets(conn: Connection, event: Any, notification: Notification) -> list[Target]:
    """The receipts ``event`` expires (empty for an opening without stale memory)."""
    if isinstance(event, MemoryItem.Corrected):
        memory_id = memory_id_of(conn, str(notification.originator_id))
        previous = event.version - 1
        detail = {"memory_id": memory_id, "version": previous, "corrected_by": event.version}
        return [
            Target(rid, "memory_corrected", detail, _seals(memory_id, previous))
            for rid in receipts_sealing(conn, memory_id, notification.id, previous)
        ]
    if isinstance(event, MemoryItem.Revoked):
        memory_id = memory_id_of(conn, str(notification.originator_id))
        return [
            Target(rid, "memory_revoked", {"memory_id": memory_id}, _seals(memory_id))
            for rid in receipts_sealing(conn, memory_id, notification.id)
        ]
    if isinstance(event, Receipt.Opened):
        return _stale(conn, event, notification)
    return []


def _stale(conn: Connection, event: Any, notification: Notification) -> list[Target]:
    """A receipt opened with a memory version that was corrected or revoked *before* its
    opening in the log."""
    sealed = event.context.get("memory", ())
    if not sealed:
        return []
    changes = memory_changes(conn, sorted({entry["memory_id"] for entry in sealed}))
    for entry in sealed:
        memory_id, version = entry["memory_id"], entry["version"]
        changed = changes.get(memory_id)
        if changed is None:
            continue
        revoked = changed["revoked"]
        if revoked is not None and revoked < notification.id:
            return [Target(event.receipt_id, "memory_revoked", {"memory_id": memory_id})]
        successor = changed["versions"].get(version + 1)
        if successor is not None and successor < notification.id:
            detail = {"memory_id": memory_id, "version": version, "corrected_by": version + 1}
            return [Target(event.receipt_id, "memory_corrected", detail)]
    return []


def due(conn: Connection, now: str) -> list[tuple[Target, str]]:
    """The sweep's targets, each with its cause: receipts not yet expired whose sealed memory
    version's ``expires_at`` has passed at ``now``."""
    found: list[tuple[Target, str]] = []
    for receipt_id, memory_id, version, expires_at in memory_due(conn, now):
        detail = {"memory_id": memory_id, "version": version, "expires_at": expires_at}
        target = Target(receipt_id, "memory_expired", detail, _seals(memory_id, version))
        found.append((target, f"memory:{memory_id}:v{version}"))
    return found
