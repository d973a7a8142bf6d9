"""The memory item aggregate: retained state with a purpose, a scope, a source and an expiry.

A memory item is something an application keeps between inferences (a customer's approved
case state, a stated preference). It is a governed source: it says why it was kept
(``purpose``), who may use it (``scope``: access attributes decided by the access policy as
a source's are), what it came from (``sources``: spans and claims of the ledger), and until
when it stands (``expires_at``). It changes only by a new version (a correction) or a
revocation; a version's text never changes once recorded.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from ledger.access.attributes import SourceAccess
from ledger.errors import Conflict, InvalidInput
from ledger.eventlog.aggregate import LedgerAggregate, fork_state
from ledger.eventlog.clock import format_time
from ledger.eventlog.topics import aggregate_topic

MEMORY_ID = re.compile(r"^mem_[A-Za-z0-9._:-]{1,124}$")
_NAMESPACE = uuid5(NAMESPACE_URL, "https://provledger.dev/ns/memory")


def check_memory_id(memory_id: str, field: str = "memory_id") -> str:
    """Validate a memory id (``mem_`` and up to 124 of ``[A-Za-z0-9._:-]``)."""
    if not MEMORY_ID.match(memory_id):
        raise InvalidInput(field, "pattern", f"{field} must match {MEMORY_ID.pattern}")
    return memory_id


def memory_aggregate_id(memory_id: str) -> UUID:
    """The aggregate id of a memory item."""
    return uuid5(_NAMESPACE, memory_id)


def text_sha256(text: str) -> str:
    """``sha256:<hex>`` of the UTF-8 text (what a receipt seals of a memory version)."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class MemoryVersion:
    """One version of a memory item, as its event recorded it."""

    version: int
    purpose: str
    scope: SourceAccess
    sources: tuple[dict[str, Any], ...]
    text: str
    expires_at: str
    recorded_at: str
    reason: str | None = None
    """Why the version corrected the one before (None for the first)."""

    @property
    def text_sha256(self) -> str:
        """``sha256:<hex>`` of the text."""
        return text_sha256(self.text)

    @property
    def effective_scope(self) -> SourceAccess:
        """The access attributes the policy decides on: the scope, its ``purposes`` the
        version's purpose when the scope names none (memory kept for one purpose serves that
        purpose unless its scope names others)."""
        if self.scope.purposes:
            return self.scope
        return SourceAccess(
            self.scope.classification,
            self.scope.units,
            self.scope.groups,
            (self.purpose,),
            self.scope.jurisdictions,
        )

    def source_ids(self) -> list[str]:
        """The source ids of every span the version came from (directly, or through a
        claim's bindings), in order, once each."""
        found: list[str] = []
        for source in self.sources:
            spans = [source] if source["kind"] == "span" else source["spans"]
            for span in spans:
                if span["source_id"] not in found:
                    found.append(span["source_id"])
        return found

    def to_json(self) -> dict[str, Any]:
        """The version as the API shows it."""
        return {
            "version": self.version,
            "purpose": self.purpose,
            "scope": self.scope.to_json(),
            "source": [dict(source) for source in self.sources],
            "text": self.text,
            "text_sha256": self.text_sha256,
            "expires_at": self.expires_at,
            "recorded_at": self.recorded_at,
            "reason": self.reason,
        }


@aggregate_topic("provledger.memory")
class MemoryItem(LedgerAggregate):
    """A memory item and its versions."""

    class Recorded(Aggregate.Created, LedgerAggregate.Event):
        """The item was recorded with its first version."""

        TOPIC = "provledger.memory.recorded"
        memory_id: str
        purpose: str
        scope: dict[str, Any]
        sources: list[dict[str, Any]]
        text: str
        expires_at: str

    class Corrected(LedgerAggregate.Event):
        """A new version replaced the item's fields; receipts that used the one before
        expire (``memory_corrected``)."""

        TOPIC = "provledger.memory.corrected"
        version: int
        purpose: str
        scope: dict[str, Any]
        sources: list[dict[str, Any]]
        text: str
        expires_at: str
        reason: str

        def apply(self, aggregate: MemoryItem) -> None:
            aggregate.versions.append(
                MemoryVersion(
                    self.version,
                    self.purpose,
                    SourceAccess.from_event(self.scope),
                    tuple(self.sources),
                    self.text,
                    self.expires_at,
                    format_time(self.timestamp),
                    self.reason,
                )
            )

    class Revoked(LedgerAggregate.Event):
        """The item no longer stands: no receipt may use it, and receipts that did expire
        (``memory_revoked``)."""

        TOPIC = "provledger.memory.revoked"
        reason: str

        def apply(self, aggregate: MemoryItem) -> None:
            aggregate.revoked_at = format_time(self.timestamp)
            aggregate.revoke_reason = self.reason

    def __init__(
        self,
        memory_id: str,
        purpose: str,
        scope: dict[str, Any],
        sources: list[dict[str, Any]],
        text: str,
        expires_at: str,
    ) -> None:
        self.memory_id = memory_id
        self.versions: list[MemoryVersion] = [
            MemoryVersion(
                1,
                purpose,
                SourceAccess.from_event(scope),
                tuple(sources),
                text,
                expires_at,
                format_time(self.created_on),
            )
        ]
        self.revoked_at: str | None = None
        self.revoke_reason: str | None = None

    @classmethod
    def record(cls, memory_id: str, fields: VersionFields, actor: str) -> MemoryItem:
        """Record a new item with its first version."""
        return cls._create(
            cls.Recorded,
            id=memory_aggregate_id(memory_id),
            memory_id=memory_id,
            actor=actor,
            **fields.event_fields(),
        )

    def fork(self) -> MemoryItem:
        """A copy a command may change without touching this one (versions are appended,
        never edited)."""
        return fork_state(self, ("versions",), ())

    @property
    def current(self) -> MemoryVersion:
        """The newest version."""
        return self.versions[-1]

    def version_at(self, moment: str) -> MemoryVersion | None:
        """The version recorded last at or before ``moment`` (None: none was yet)."""
        found = [v for v in self.versions if v.recorded_at <= moment]
        return found[-1] if found else None

    def status(self, now: str) -> str:
        """``revoked``, ``expired`` (the current version's ``expires_at`` passed) or
        ``active``."""
        if self.revoked_at is not None:
            return "revoked"
        return "expired" if self.current.expires_at <= now else "active"

    def correct(self, fields: VersionFields, reason: str, actor: str) -> bool:
        """Record ``fields`` as the next version; False (and no event) when they are the
        current version's."""
        if self.revoked_at is not None:
            raise Conflict(f"memory item {self.memory_id!r} is revoked; it takes no new versions")
        if fields.same_as(self.current):
            return False
        self.trigger_event(
            self.Corrected,
            version=len(self.versions) + 1,
            reason=reason,
            actor=actor,
            **fields.event_fields(),
        )
        return True

    def revoke(self, reason: str, actor: str) -> bool:
        """Revoke the item; False (and no event) when it was revoked with this reason already,
        a conflict when with another."""
        if self.revoked_at is not None:
            if self.revoke_reason == reason:
                return False
            raise Conflict(f"memory item {self.memory_id!r} is already revoked")
        self.trigger_event(self.Revoked, reason=reason, actor=actor)
        return True


@dataclass(frozen=True)
class VersionFields:
    """What a version records (checked by :mod:`ledger.memory.memory_desk`)."""

    purpose: str
    scope: SourceAccess
    sources: tuple[dict[str, Any], ...]
    text: str
    expires_at: str

    def event_fields(self) -> dict[str, Any]:
        """The fields as the events carry them."""
        return {
            "purpose": self.purpose,
            "scope": self.scope.to_json(),
            "sources": [dict(source) for source in self.sources],
            "text": self.text,
            "expires_at": self.expires_at,
        }

    def same_as(self, version: MemoryVersion) -> bool:
        """Whether ``version`` already records these fields."""
        return (
            self.purpose == version.purpose
            and self.scope == version.scope
            and [dict(s) for s in self.sources] == [dict(s) for s in version.sources]
            and self.text == version.text
            and self.expires_at == version.expires_at
        )
