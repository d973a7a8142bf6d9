"""Memory items in a receipt's pool: the only way a memory item reaches a model.

An opening's ``memory`` names item ids. Each is sealed, as a span is, only after two gates:

1. **Entitlement**, decided first and the same way for every id: an item the ledger does not
   hold, one the API key's pins may not see, and one the receipt's principal may not see under
   the policy in force (its effective scope, or a source it came from) are all refused with
   the same error, ``memory[i]`` / ``exists`` "memory item ... does not exist": the answer
   says nothing of an item the caller may not see.
2. **Time**: the version in force at ``as_of`` (the last one recorded at or before it) must
   still be the item's current version, the item not revoked, and its ``expires_at`` after
   both ``as_of`` and now (``memory[i]`` / ``citable``). Memory that was corrected, revoked or
   has expired never reaches a model again, whatever the ``as_of``.

The pool records ``{memory_id, version, text_sha256}`` of each in the receipt's ``context``
(``memory``); the context packet shows the text in its ``<memory>`` section.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ledger.eventlog.clock import format_time
from ledger.memory.item import MEMORY_ID, MemoryItem, MemoryVersion
from ledger.memory.memory_desk import MemoryDesk
from ledger.receipts.entitlement import GateRecord


@dataclass(frozen=True)
class SealedMemory:
    """One memory version sealed into a pool, with its text for the packet."""

    memory_id: str
    version: MemoryVersion

    def entry(self) -> dict[str, Any]:
        """What the receipt records of it."""
        return {
            "memory_id": self.memory_id,
            "version": self.version.version,
            "text_sha256": self.version.text_sha256,
        }


def seal_memory(
    desk: MemoryDesk | None,
    memory_ids: Sequence[str],
    as_of: str,
    gate: GateRecord,
    errors: list[dict[str, str]],
) -> list[SealedMemory]:
    """The memory versions of ``memory_ids`` to seal, each refusal appended to ``errors``."""
    now = format_time(datetime.now(UTC))
    sealed: list[SealedMemory] = []
    if desk is not None and memory_ids:
        desk.checks.policy()  # follow the access changes since the last look, once
    for index, memory_id in enumerate(memory_ids):
        field = f"memory[{index}]"
        item = desk.find(memory_id) if desk is not None and MEMORY_ID.match(memory_id) else None
        version = None if item is None else (item.version_at(as_of) or item.current)
        if (
            item is None
            or version is None
            or desk is None
            or not _entitled(desk, item, version, gate, field)
        ):
            errors.append(
                {
                    "field": field,
                    "rule": "exists",
                    "message": f"memory item {memory_id} does not exist",
                }
            )
            continue
        problem = _standing(item, item.version_at(as_of), as_of, now)
        if problem is not None:
            errors.append({"field": field, "rule": "citable", "message": problem})
            continue
        sealed.append(SealedMemory(memory_id, version))
    return sealed


def _entitled(
    desk: MemoryDesk, item: MemoryItem, version: MemoryVersion, gate: GateRecord, field: str
) -> bool:
    """Whether the key's pins and the receipt's principal may see ``version`` (the decision
    recorded with the gate's protected decisions when they may)."""
    policy = gate.governing.policy
    if not desk.visible(item, gate.pins, policy, version):
        return False
    decision = desk.decide(policy, gate.principal, version)
    if not decision.allowed:
        return False
    gate.restricted = True  # an item's effective scope always names a purpose
    gate.decisions.append(
        {
            "ref": field,
            "memory_id": item.memory_id,
            "version": version.version,
            **decision.to_json(),
        }
    )
    return True


def _standing(item: MemoryItem, version: MemoryVersion | None, as_of: str, now: str) -> str | None:
    """Why the item may not be used at ``as_of`` (None: it may)."""
    name = f"memory item {item.memory_id}"
    if version is None:
        return f"{name} had no version at {as_of} (first recorded {item.versions[0].recorded_at})"
    if item.revoked_at is not None:
        return f"{name} was revoked at {item.revoked_at}"
    if version.version != item.current.version:
        return (
            f"{name}: version {version.version}, in force at {as_of}, was corrected by "
            f"version {item.current.version}"
        )
    if version.expires_at <= max(as_of, now):
        return f"{name} expired at {version.expires_at}"
    return None


def memory_standing(item: MemoryItem, version: int, now: str) -> str | None:
    """Why a sealed version no longer stands now (None: it does): what keeps a receipt's
    packet from being served again once its memory was corrected, revoked or expired."""
    name = f"memory item {item.memory_id}"
    if item.revoked_at is not None:
        return f"{name} was revoked at {item.revoked_at}"
    if version != item.current.version:
        return f"{name}: version {version} was corrected by version {item.current.version}"
    if item.current.expires_at <= now:
        return f"{name} expired at {item.current.expires_at}"
    return None
