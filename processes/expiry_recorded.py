"""Expiry targets of changes to what a receipt records it was opened by and answered with.

- a revoked API key (``provledger.api_key.revoked``): every receipt the key opened before the
  revocation expires, ``api_key_revoked`` (the detail names ``opened_by``, never the reason,
  which may tell of an incident); a receipt already expired by an earlier revocation of the
  same name (a key issued again since) is not expired twice;
- a retired model or tool version (``provledger.component_version.retired``): every receipt
  recording it expires, ``model_retired`` or ``tool_retired``; a receipt recording the bare
  tool name too (it cannot show it used another version);
- a context-assembly version declared in force (``provledger.context_assembly.declared`` or
  ``.changed``): every receipt recording another version of that assembly expires,
  ``context_assembly_changed``.

The read model finds the receipts (``receipts.opened_by``, ``receipt_parts``); each target
carries a check the expiry desk runs on the receipt's verified events before it records
anything, so a read-model row that names a receipt which never recorded the part expires
nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Notification
from sqlalchemy import Connection, select

from ledger.eventlog.port import EventLog
from ledger.keys.api_keys import ApiKey
from ledger.receipts.components import (
    ComponentVersion,
    ContextAssembly,
    Recorded,
    changed_detail,
    recorded_parts,
    recorded_text,
    retired_detail,
)
from ledger.receipts.receipt import Receipt
from projections.affected_queries import recorded_versions
from projections.schema import receipt_parts, receipts

TOPICS = (
    ApiKey.Revoked.TOPIC,
    ComponentVersion.Retired.TOPIC,
    ContextAssembly.Declared.TOPIC,
    ContextAssembly.Changed.TOPIC,
)


@dataclass(frozen=True)
class Target:
    """A receipt to expire, why, and the check its verified events must pass first (None:
    none)."""

    receipt_id: str
    reason: str
    detail: dict[str, Any]
    holds: Callable[[Receipt], bool] | None = None


def targets(
    conn: Connection, log: EventLog, event: Any, notification: Notification
) -> list[Target]:
    """The receipts ``event`` expires (empty for an event of another kind)."""
    if isinstance(event, ApiKey.Revoked):
        key: ApiKey = log.repository.get(UUID(str(notification.originator_id)))
        return _revoked(conn, f"key:{key.name}", notification.id)
    if isinstance(event, ComponentVersion.Retired):
        return _retired(conn, event)
    if isinstance(event, ContextAssembly.Declared):
        return _declared(conn, event.name, event.version, event.reason)
    if isinstance(event, ContextAssembly.Changed):
        assembly: ContextAssembly = log.repository.get(UUID(str(notification.originator_id)))
        return _declared(conn, assembly.name, event.version, event.reason)
    return []


def _revoked(conn: Connection, opened_by: str, position: int) -> list[Target]:
    rows = conn.execute(
        select(receipts.c.receipt_id)
        .where(receipts.c.opened_by == opened_by, receipts.c.position < position)
        .order_by(receipts.c.receipt_id)
    ).scalars()

    def holds(receipt: Receipt) -> bool:
        return receipt.opened_by == opened_by and not any(
            expiry["reason"] == "api_key_revoked" for expiry in receipt.expiries
        )

    detail = {"opened_by": opened_by}
    return [Target(str(rid), "api_key_revoked", detail, holds) for rid in rows]


def _records(part: Recorded) -> Callable[[Receipt], bool]:
    """The check that a receipt's verified context records ``part``."""
    return lambda receipt: part in recorded_parts(receipt.context)


def _retired(conn: Connection, event: Any) -> list[Target]:
    kind, name, version = event.kind, event.name, event.version
    rows = conn.execute(
        select(receipt_parts.c.receipt_id, receipt_parts.c.version)
        .where(
            receipt_parts.c.kind == kind,
            receipt_parts.c.name == name,
            recorded_versions(kind, version),  # a tool's bare name too
        )
        .distinct()
        .order_by(receipt_parts.c.receipt_id)
    ).all()
    found: list[Target] = []
    for receipt_id, recorded_version in rows:
        part = Recorded(kind, name, recorded_version)
        detail = retired_detail(kind, name, version, event.reason, recorded_text(part))
        found.append(Target(str(receipt_id), f"{kind}_retired", detail, _records(part)))
    return found


def _declared(conn: Connection, name: str, in_force: str, reason: str) -> list[Target]:
    rows = conn.execute(
        select(receipt_parts.c.receipt_id, receipt_parts.c.version)
        .where(
            receipt_parts.c.kind == "context_assembly",
            receipt_parts.c.name == name,
            receipt_parts.c.version != in_force,
        )
        .order_by(receipt_parts.c.receipt_id)
    ).all()
    found: list[Target] = []
    for receipt_id, recorded_version in rows:
        part = Recorded("context_assembly", name, recorded_version)
        detail = changed_detail(name, str(recorded_version), in_force, reason)
        found.append(Target(str(receipt_id), "context_assembly_changed", detail, _records(part)))
    return found
