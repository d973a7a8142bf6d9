"""Changes to what receipts stood on, answered once the receipts they touch have expired.

Retiring a policy, model or tool version, declaring a context-assembly version in force, and
correcting or revoking a memory item each write a signed event through their own desk; the
expiry process then records the expiries the event causes before the write answers
(:meth:`processes.expiry.ExpiryProcess.settle`: read-your-writes), and the answer says how
many receipts it expired and names the first of them (``projections/affected_read_desk.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from anyio.to_thread import run_sync as run_in_threadpool

from ledger.access.attributes import Pins
from ledger.memory.memory_desk import MemoryDesk, MemoryDraft, MemoryWrite
from ledger.receipts.component_desk import ComponentDesk
from ledger.receipts.expiry_desk import ExpiryDesk
from processes.expiry import ExpiryProcess
from projections.affected_read_desk import AffectedReadDesk, Expired


@dataclass(frozen=True)
class Settled:
    """What a change expired: how many receipts (every one, whoever asks) and the first page
    of them as the caller may see them."""

    receipts_expired: int
    expired: Expired


@dataclass(frozen=True)
class VersionChange:
    """A retirement or declaration, at log ``position``, and what it expired."""

    position: int
    settled: Settled


@dataclass(frozen=True)
class MemoryChange:
    """A memory item's correction or revocation (``write``) and what it expired (nothing
    when it wrote nothing)."""

    write: MemoryWrite
    settled: Settled


class ChangeDesk:
    """Writes a change through its desk, then settles and names the expiries it caused."""

    def __init__(
        self,
        components: ComponentDesk,
        expiries: ExpiryDesk,
        memory: MemoryDesk,
        process: ExpiryProcess,
        affected: AffectedReadDesk,
    ) -> None:
        self.components = components
        self.expiries = expiries
        self.memory = memory
        self.process = process
        self.affected = affected

    async def settled(self, position: int | None, pins: Pins | None) -> Settled:
        """Record the expiries the change at ``position`` causes (None: nothing was written,
        so nothing expires), then read the first page a key with ``pins`` may see (which
        brings the receipts read model up to date) and count them."""
        if position is not None:
            await run_in_threadpool(self.process.settle, position)  # expire before answering
        expired = await self.affected.expired(position, pins)
        count = 0 if position is None else await self.affected.count_expired(position)
        return Settled(count, expired)

    async def retire(
        self, kind: str, name: str, version: str, reason: str, actor: str
    ) -> VersionChange:
        """Retire a model or tool (``kind``) version; every receipt recording it expires."""
        position = await run_in_threadpool(
            self.components.retire, kind, name, version, reason, actor
        )
        return VersionChange(position, await self.settled(position, None))  # admin: no pins

    async def declare(self, name: str, version: str, reason: str, actor: str) -> VersionChange:
        """Declare a context-assembly version in force; every receipt recording another
        version of it expires."""
        position = await run_in_threadpool(self.components.declare, name, version, reason, actor)
        return VersionChange(position, await self.settled(position, None))

    async def retire_policy(self, policy_version: str, reason: str, actor: str) -> Settled:
        """Retire a policy version; every receipt opened under it expires."""
        _, position = await run_in_threadpool(
            self.expiries.retire_policy, policy_version, reason, actor
        )
        return await self.settled(position, None)

    async def correct_memory(
        self, memory_id: str, draft: MemoryDraft, reason: str, actor: str, pins: Pins | None
    ) -> MemoryChange:
        """Correct a memory item by a new version; the receipts that used the version before
        expire (the first page: those a key with ``pins`` may read)."""
        write = await run_in_threadpool(self.memory.correct, memory_id, draft, reason, actor, pins)
        return await self._memory_changed(write, pins)

    async def revoke_memory(
        self, memory_id: str, reason: str, actor: str, pins: Pins | None
    ) -> MemoryChange:
        """Revoke a memory item; every receipt that used it expires (the first page: those a
        key with ``pins`` may read)."""
        write = await run_in_threadpool(self.memory.revoke, memory_id, reason, actor, pins)
        return await self._memory_changed(write, pins)

    async def _memory_changed(self, write: MemoryWrite, pins: Pins | None) -> MemoryChange:
        changed = write.position if write.changed else None
        return MemoryChange(write, await self.settled(changed, pins))
