"""A source write with what it causes, done before the write answers: read-your-writes.

:class:`~ledger.registry.source_desk.SourceDesk` records a registration, a new version, a
withdrawal or an access change; this desk then brings the registry read model up to it and,
for a change that expires receipts, runs the expiry process up to the write's position
(:meth:`ExpiryProcess.settle`), so any read after the answer, by any process, shows the write
and its expiries; a change that expires receipts answers with the first page of them, as the
writer's key may see them (:meth:`AffectedReadDesk.expired`). The registry decides nothing
here: every rule stays in ``SourceDesk``.
"""

from __future__ import annotations

from typing import Any

from anyio.to_thread import run_sync as run_in_threadpool

from ledger.access.attributes import Pins, SourceAccess
from ledger.registry.source import Source
from ledger.registry.source_desk import SourceDesk, SourceDraft, VersionReceipt
from processes.expiry import ExpiryProcess
from projections.affected_read_desk import AffectedReadDesk, Expired
from projections.service import ReadSide
from projections.source_read_desk import SourceReadDesk


class SourceChangeDesk:
    """Writes to the registry, answering once the read side shows them and their expiries."""

    def __init__(
        self,
        sources: SourceDesk,
        expiry: ExpiryProcess,
        read_side: ReadSide,
        reads: SourceReadDesk,
        affected: AffectedReadDesk,
    ) -> None:
        self.sources = sources
        self.expiry = expiry
        self.read_side = read_side
        self.reads = reads
        self.affected = affected

    def register(
        self,
        source_id: str,
        draft: SourceDraft,
        authority: str,
        actor: str,
        uri: str | None,
        metadata: dict[str, Any] | None,
        access: SourceAccess | None,
        pins: Pins | None,
    ) -> VersionReceipt:
        """:meth:`SourceDesk.register`, answered once the registry read model includes the
        version."""
        receipt = self.sources.register(
            source_id, draft, authority, actor, uri, metadata, access, pins
        )
        self.read_side.registry.catch_up()
        return receipt

    async def add_version(
        self, source_id: str, draft: SourceDraft, actor: str, pins: Pins | None
    ) -> tuple[VersionReceipt, Expired]:
        """:meth:`SourceDesk.add_version`, answered once the receipts whose claims stood on
        the superseded version are expired (and the registry shows the new one): the
        version's receipt and what it expired (nothing when the text was the current one)."""
        receipt = await run_in_threadpool(self.sources.add_version, source_id, draft, actor, pins)
        await run_in_threadpool(self.expiry.settle, receipt.position)
        changed = receipt.position if receipt.created else None
        return receipt, await self.affected.expired(changed, pins)

    async def withdraw(
        self, source_id: str, reason: str, actor: str, pins: Pins | None
    ) -> tuple[dict[str, Any], Expired]:
        """:meth:`SourceDesk.withdraw`, answered once the receipts whose claims stood on the
        source are expired: the source as now served (``GET /v1/sources/{id}``) and what the
        withdrawal expired."""
        position = await run_in_threadpool(self.sources.withdraw, source_id, reason, actor, pins)
        await run_in_threadpool(self.expiry.settle, position)
        shown = await self.reads.get_source(source_id)
        return shown, await self.affected.expired(position, pins)

    async def change_access(
        self, source_id: str, access: SourceAccess, actor: str, pins: Pins | None
    ) -> tuple[Source, bool, int, Expired]:
        """:meth:`SourceDesk.change_access`, answered once the receipts whose claims stood on
        the source are expired (and as-of reads show the change): the source, whether
        anything changed, the change's log position (the last one when nothing did) and what
        the change expired (nothing when nothing changed)."""
        source, changed, position = await run_in_threadpool(
            self.sources.change_access, source_id, access, actor, pins
        )
        await run_in_threadpool(self.expiry.settle, position)
        expired = await self.affected.expired(position if changed else None, pins)
        return source, changed, position, expired
