"""The memory desk: record, correct and revoke memory items; decide who may see one.

Who may see (and use) a version is decided, by the access policy in force, on the version's
effective scope (:attr:`~ledger.memory.item.MemoryVersion.effective_scope`) *and* on the
current access attributes of every source its text came from: memory derived from a
restricted source is as restricted as the source, so no memory item launders protected text.
To a key with pins, an item it may not see does not exist (404 ``no memory item ...``, the
refusal an unknown id gets), as a source does (:mod:`ledger.receipts.sight`).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from eventsourcing.application import AggregateNotFoundError

from ledger.access.attributes import VALUE_PATTERN, Pins, Principal, SourceAccess
from ledger.access.policy import AccessDecision, AccessPolicy, decide
from ledger.errors import Conflict, InvalidInput, NotFound
from ledger.eventlog.clock import format_time, ledger_time
from ledger.eventlog.snapshots import Snapshots
from ledger.memory.item import (
    MemoryItem,
    MemoryVersion,
    VersionFields,
    check_memory_id,
    memory_aggregate_id,
)
from ledger.memory.sources import SourceChecks

if TYPE_CHECKING:
    from ledger.eventlog.application import Ledger

MAX_TEXT = 4000
MAX_REASON = 2000
MEMORY_SNAPSHOTS = 256
HIDDEN = SourceAccess(classification="unknown-source")
"""What a source the ledger no longer holds reads as: decided like any restricted source,
never as open."""


@dataclass(frozen=True)
class MemoryDraft:
    """A memory write as the API parsed it (a correction may leave fields as None: they keep
    the current version's)."""

    purpose: str | None
    scope: SourceAccess | None
    source: Sequence[str] | None
    text: str | None
    expires_at: datetime | None


@dataclass(frozen=True)
class MemoryWrite:
    """What a write did: the item as recorded, whether an event was written, and the log
    position of the write (the last position when nothing was)."""

    item: MemoryItem
    changed: bool
    position: int


def memory_id_for_key(actor: str, key: str) -> str:
    """The id a write with ``Idempotency-Key`` ``key`` and no ``memory_id`` gets: ``mem_`` + 32
    hex digits of SHA-256 of ``actor\\0key``, so a retry names the same item."""
    return "mem_" + hashlib.sha256(f"{actor}\0{key}".encode()).hexdigest()[:32]


def _missing(memory_id: str) -> NotFound:
    return NotFound(f"no memory item {memory_id!r}")


class MemoryDesk:
    """Memory items' commands and the one rule of who may see them."""

    def __init__(self, ledger: Ledger, checks: SourceChecks) -> None:
        self.ledger = ledger
        self.checks = checks
        self.snapshots: Snapshots[MemoryItem] = Snapshots(ledger, MEMORY_SNAPSHOTS)

    # Who may see ------------------------------------------------------------------------------

    def accesses(self, version: MemoryVersion) -> list[SourceAccess]:
        """The access attributes a principal must be entitled to: the version's effective
        scope and each of its sources' current attributes (a source the ledger does not hold
        reads as restricted). A caller asks ``checks.policy()`` first, once per request: that
        follows the access changes written since the last look, so no attribute read here is
        stale."""
        found = [version.effective_scope]
        for source_id in version.source_ids():
            found.append(self.checks.source_access(source_id) or HIDDEN)
        return found

    def decide(
        self, policy: AccessPolicy, principal: Principal, version: MemoryVersion
    ) -> AccessDecision:
        """The first refusal among the version's accesses, else the scope's allow."""
        decisions = [decide(policy, principal, access) for access in self.accesses(version)]
        return next((d for d in decisions if not d.allowed), decisions[0])

    def visible(
        self,
        item: MemoryItem,
        pins: Pins | None,
        policy: AccessPolicy,
        version: MemoryVersion | None = None,
    ) -> bool:
        """Whether a key with ``pins`` may see the item, by ``version`` (default: its current
        one): some principal the key may act for must be entitled to all of its accesses."""
        if pins is None:
            return True
        accesses = self.accesses(version or item.current)
        return any(
            all(decide(policy, principal, access).allowed for access in accesses)
            for principal in pins.principals()
        )

    # Reading ----------------------------------------------------------------------------------

    def find(self, memory_id: str) -> MemoryItem | None:
        """The item from its verified events, or None."""
        try:
            return self.snapshots.get(memory_aggregate_id(memory_id))
        except AggregateNotFoundError:
            return None

    def read(self, memory_id: str, pins: Pins | None) -> MemoryItem:
        """The item for a key with ``pins``: NotFound when the ledger does not hold it, or
        when the key may not see it (the same answer)."""
        check_memory_id(memory_id)
        policy = self.checks.policy()  # asked whether or not the item exists
        item = self.find(memory_id)
        if item is None or not self.visible(item, pins, policy):
            raise _missing(memory_id)
        return item

    # Writing ----------------------------------------------------------------------------------

    def record(
        self,
        draft: MemoryDraft,
        actor: str,
        pins: Pins | None,
        memory_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> MemoryWrite:
        """Record a new item. ``memory_id`` names it (or, without one, the ``Idempotency-Key``;
        without either, the ledger makes one). The same id with the same fields again answers
        the item and writes nothing; with other fields it is 409."""
        if memory_id is not None:
            check_memory_id(memory_id)
        elif idempotency_key is not None:
            memory_id = memory_id_for_key(actor, idempotency_key)
        else:
            memory_id = "mem_" + uuid.uuid4().hex
        fields = self._fields(draft, None, pins)
        policy = self.checks.policy()
        existing = self.find(memory_id)
        if existing is not None:
            if not self.visible(existing, pins, policy):
                raise Conflict(f"memory id {memory_id!r} is taken; choose another")
            if len(existing.versions) == 1 and fields.same_as(existing.current):
                return MemoryWrite(existing, False, self.ledger.last_position())
            raise Conflict(
                f"memory item {memory_id!r} exists with other fields; correct it with "
                f"POST /v1/memory/{memory_id}/versions"
            )
        item = MemoryItem.record(memory_id, fields, actor)
        recordings = self.ledger.commit(item)
        self.snapshots.keep(item)
        return MemoryWrite(item, True, recordings[-1].notification.id)

    def correct(
        self, memory_id: str, draft: MemoryDraft, reason: str, actor: str, pins: Pins | None
    ) -> MemoryWrite:
        """Record a new version: the draft's fields, the current version's where the draft
        has none. The same fields again write nothing."""
        reason = _reason(reason)
        item = self.read(memory_id, pins)
        fields = self._fields(draft, item.current, pins)
        if not item.correct(fields, reason, actor):
            return MemoryWrite(item, False, self.ledger.last_position())
        recordings = self.ledger.commit(item)
        self.snapshots.keep(item)
        return MemoryWrite(item, True, recordings[-1].notification.id)

    def revoke(self, memory_id: str, reason: str, actor: str, pins: Pins | None) -> MemoryWrite:
        """Revoke the item (again with the same reason: nothing is written)."""
        reason = _reason(reason)
        item = self.read(memory_id, pins)
        if not item.revoke(reason, actor):
            return MemoryWrite(item, False, self.ledger.last_position())
        recordings = self.ledger.commit(item)
        self.snapshots.keep(item)
        return MemoryWrite(item, True, recordings[-1].notification.id)

    def _fields(
        self, draft: MemoryDraft, current: MemoryVersion | None, pins: Pins | None
    ) -> VersionFields:
        """The version's fields, every broken rule named at once (422)."""
        errors: list[dict[str, str]] = []
        now = format_time(datetime.now(UTC))
        purpose = draft.purpose if current is None or draft.purpose is not None else current.purpose
        text = draft.text if current is None or draft.text is not None else current.text
        scope = draft.scope if current is None or draft.scope is not None else current.scope
        if purpose is None or not VALUE_PATTERN.match(purpose):
            errors.append(
                {
                    "field": "purpose",
                    "rule": "attribute-value",
                    "message": f"purpose must match {VALUE_PATTERN.pattern}",
                }
            )
        if text is None or not text.strip():
            errors.append({"field": "text", "rule": "non-empty", "message": "text is empty"})
        elif len(text) > MAX_TEXT:
            errors.append(
                {"field": "text", "rule": "max-length", "message": f"text is at most {MAX_TEXT}"}
            )
        elif not _encodable(text):
            errors.append(
                {"field": "text", "rule": "utf-8", "message": "text has a lone surrogate"}
            )
        if scope is None:
            errors.append({"field": "scope", "rule": "required", "message": "scope is required"})
        expires_at = None if current is None else current.expires_at
        if draft.expires_at is not None:
            try:
                expires_at = ledger_time("expires_at", draft.expires_at)
            except InvalidInput as exc:
                errors.extend(exc.errors)
                expires_at = None
            else:
                if expires_at <= now:
                    errors.append(
                        {
                            "field": "expires_at",
                            "rule": "future",
                            "message": "expires_at must be in the future",
                        }
                    )
        elif current is None:
            errors.append(
                {
                    "field": "expires_at",
                    "rule": "required",
                    "message": "expires_at is required: memory is kept until a stated time",
                }
            )
        if draft.source is not None:
            sources = tuple(self.checks.resolve(list(draft.source), pins, now, errors))
        elif current is not None:
            sources = current.sources
        else:
            errors.append({"field": "source", "rule": "required", "message": "source is required"})
            sources = ()
        if errors:
            raise InvalidInput.many(errors)
        assert purpose is not None
        assert text is not None
        assert scope is not None
        assert expires_at is not None
        return VersionFields(purpose, scope, sources, text, expires_at)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _reason(reason: str) -> str:
    if not _encodable(reason) or not reason.strip() or len(reason) > MAX_REASON:
        raise InvalidInput("reason", "length", f"reason must be 1 to {MAX_REASON} characters")
    return reason.strip()
