"""Retiring model and tool versions and declaring context-assembly versions in force.

The desk writes the signed changes (``ledger.receipts.components``) and follows them in log
order, each verified as every read is, reading only the events written since it last looked.
The receipt desk asks it, at opening, whether the request records a retired model or tool
version (409, ``model.version`` / ``tools[i]``, rule ``not-retired``) or a context-assembly
version other than the one in force (409, ``context_assembly.version``, rule ``in-force``), and
again once the opening is committed: a change committed between the two is one the expiry
process may have run before the receipt was in the read model, so the desk records that
expiry itself (the same cause, so it is recorded once whoever comes first).
"""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from ledger.errors import ConcurrentWrite, Conflict, ConflictingRequest, InvalidInput
from ledger.eventlog.port import EventLog
from ledger.receipts.components import (
    KINDS,
    ComponentVersion,
    ContextAssembly,
    Recorded,
    assembly_aggregate_id,
    changed_detail,
    check_part,
    check_reason,
    recorded_parts,
    recorded_text,
    retired_detail,
)

COMPONENT_TOPICS = (
    ComponentVersion.Retired.TOPIC,
    ContextAssembly.Declared.TOPIC,
    ContextAssembly.Changed.TOPIC,
)
ATTEMPTS = 10

Expiry = tuple[str, str, dict[str, Any]]
"""``(reason, cause, detail)`` of an expiry a change causes."""


class ComponentDesk:
    """Retires model and tool versions, declares context-assembly versions in force, and
    knows both."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self._lock = threading.Lock()
        self._seen = 0  # the last notification id of a change followed
        self._retired: dict[tuple[str, str, str], tuple[int, str]] = {}
        """(kind, name, version) -> (notification id, reason) of its retirement."""
        self._in_force: dict[str, tuple[str, int, str]] = {}
        """assembly name -> (version, notification id, reason) of the declaration in force."""

    def retire(self, kind: str, name: str, version: str, reason: str, actor: str) -> int:
        """Retire a model or tool version (409 when it already is); returns its position."""
        if kind not in KINDS:
            raise InvalidInput("kind", "known-kind", f"kind is one of {list(KINDS)}")
        check_part("name", name)
        check_part("version", version)
        reason = check_reason(reason)
        retired = ComponentVersion.retire(kind, name, version, reason, actor)
        try:
            recordings = self.log.commit(retired)
        except Conflict:
            raise Conflict(f"{kind} {name!r} version {version!r} is already retired") from None
        return recordings[-1].notification.id

    def declare(self, name: str, version: str, reason: str, actor: str) -> int:
        """Declare ``version`` of the context assembly ``name`` in force (409 when it already
        is); returns the declaration's position."""
        check_part("name", name)
        check_part("version", version)
        reason = check_reason(reason)
        for _ in range(ATTEMPTS):
            try:
                assembly: ContextAssembly = self.log.repository.get(assembly_aggregate_id(name))
            except AggregateNotFoundError:
                assembly = ContextAssembly.declare(name, version, reason, actor)
            else:
                if assembly.in_force == version:
                    raise Conflict(
                        f"version {version!r} of context assembly {name!r} is already in force"
                    )
                assembly.change(version, reason, actor)
            try:
                recordings = self.log.commit(assembly)
            except Conflict:
                continue  # declared at the same moment by another request: decide again
            return recordings[-1].notification.id
        raise ConcurrentWrite(f"context assembly {name!r} is being declared by others; retry")

    def refuse_opening(self, context: dict[str, Any]) -> None:
        """409 for an opening that records a retired model or tool version, or a version of a
        context assembly other than the one in force (the first such field is named)."""
        with self._lock:
            self._follow()
            for index, part in _indexed(context):
                if part.kind == "context_assembly":
                    found = self._in_force.get(part.name)
                    if found is not None and found[0] != part.version:
                        raise ConflictingRequest(
                            "context_assembly.version",
                            "in-force",
                            f"version {found[0]!r} of context assembly {part.name!r} is in "
                            f"force, not {part.version!r}",
                        )
                    continue
                if part.version is None or (part.kind, part.name, part.version) not in (
                    self._retired
                ):
                    continue
                field = "model.version" if part.kind == "model" else f"tools[{index}]"
                raise ConflictingRequest(
                    field,
                    "not-retired",
                    f"{part.kind} {part.name!r} version {part.version!r} is retired; "
                    "no receipt opens with it",
                )

    def changes(self, context: dict[str, Any]) -> list[Expiry]:
        """The expiries the changes followed so far cause to a receipt with ``context`` (the
        check made once an opening is committed)."""
        found: list[Expiry] = []
        with self._lock:
            self._follow()
            for _, part in _indexed(context):
                if part.kind == "context_assembly":
                    declared = self._in_force.get(part.name)
                    if declared is not None and declared[0] != part.version:
                        version, position, reason = declared
                        detail = changed_detail(part.name, str(part.version), version, reason)
                        found.append(("context_assembly_changed", f"n{position}", detail))
                    continue
                if part.version is None:
                    continue
                retired = self._retired.get((part.kind, part.name, part.version))
                if retired is not None:
                    position, reason = retired
                    detail = retired_detail(
                        part.kind, part.name, part.version, reason, recorded_text(part)
                    )
                    found.append((f"{part.kind}_retired", f"n{position}", detail))
        return found

    def _follow(self) -> None:
        """Read the changes written since the last look, each verified. The look moves to the
        log end it read first, past events of other kinds (every id up to it is committed: the
        store writes in order), so an opening reads only the events written since the last
        one, not every event since the last change."""
        end = self.log.last_position()
        if end <= self._seen:
            return
        for notification in self.log.notifications(COMPONENT_TOPICS, after=self._seen):
            event = self.log.verified_event(notification)
            if isinstance(event, ComponentVersion.Retired):
                key = (event.kind, event.name, event.version)
                self._retired[key] = (notification.id, event.reason)
            elif isinstance(event, ContextAssembly.Declared):
                self._in_force[event.name] = (event.version, notification.id, event.reason)
            elif isinstance(event, ContextAssembly.Changed):
                name = self._assembly_name(UUID(str(notification.originator_id)))
                self._in_force[name] = (event.version, notification.id, event.reason)
            self._seen = notification.id
        self._seen = max(self._seen, end)

    def _assembly_name(self, aggregate_id: UUID) -> str:
        for name in self._in_force:
            if assembly_aggregate_id(name) == aggregate_id:
                return name
        assembly: ContextAssembly = self.log.repository.get(aggregate_id)
        return assembly.name


def _indexed(context: dict[str, Any]) -> list[tuple[int, Recorded]]:
    """The recorded parts, each tool with its index in ``tools`` (the others with 0)."""
    tools = iter(range(len(context["tools"])))
    return [(next(tools) if part.kind == "tool" else 0, part) for part in recorded_parts(context)]
