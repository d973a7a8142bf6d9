"""The evidence registry's aggregate: a source and its frozen versions.

A source is registered once and then changes only by new versions; a version's text, hash and
spans never change once recorded. Each version carries its spans in a compact form (see
:data:`SPAN_COLUMNS`): span text and span ids are not stored because both are derived
exactly from the frozen text and offsets, and the projection re-derives and checks them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from ledger.access.attributes import SourceAccess
from ledger.errors import Conflict, InvalidInput
from ledger.eventlog.aggregate import LedgerAggregate, fork_state
from ledger.eventlog.clock import format_time
from ledger.eventlog.topics import aggregate_topic

SOURCE_ID_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_NAMESPACE = uuid5(NAMESPACE_URL, "https://provledger.dev/ns/source")

SPAN_COLUMNS = ("start", "end", "sent_index", "parent", "paragraph", "page", "path")
"""Order of the integers in each stored span row. ``parent`` is the index of the parent span
in the same list (-1 for none), ``page`` is -1 when the text has no page breaks, ``path`` is an
index into the version's ``heading_paths`` (-1 for none)."""


class Authority(StrEnum):
    """How much a source can be relied on."""

    SOURCE_OF_RECORD = "source_of_record"
    DERIVED = "derived"
    ADVISORY = "advisory"
    FALLBACK = "fallback"


def check_source_id(source_id: str) -> str:
    """Validate a client-chosen source id."""
    if not SOURCE_ID_PATTERN.match(source_id):
        raise InvalidInput(
            "source_id",
            "pattern",
            f"source_id must match {SOURCE_ID_PATTERN.pattern} (got {source_id[:140]!r})",
        )
    return source_id


def source_aggregate_id(source_id: str) -> UUID:
    """The aggregate id of a source."""
    return uuid5(_NAMESPACE, source_id)


@dataclass(frozen=True)
class VersionInfo:
    """What the aggregate remembers of each version (the text lives in the event, at
    aggregate version ``event_version``)."""

    version: int
    version_hash: str
    effective_from: str
    span_count: int
    event_version: int = 0
    title: str = ""
    """The title the version was added with (the source's title is its newest version's)."""
    media_type: str = ""
    recorded_at: str = ""
    """When the ledger recorded the version (its event's time)."""
    segmenter: str = ""


@aggregate_topic("provledger.source")
class Source(LedgerAggregate):
    """A registered document and its history of versions."""

    class Registered(Aggregate.Created, LedgerAggregate.Event):
        """A source id was claimed, with its descriptive fields."""

        TOPIC = "provledger.source.registered"
        class_version = 2
        source_id: str
        title: str
        authority: str
        uri: str | None
        metadata: dict[str, Any]
        access: dict[str, Any] | None

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            """Version 1 had no access attributes: such a source is open to every principal."""
            state.setdefault("access", None)

    class VersionAdded(LedgerAggregate.Event):
        """A frozen text became version ``version``, superseding the previous one.

        Version 2 records each table with its ``header_rows``, ``caption``, ``units`` and
        ``label_columns``; a version 1 event (one header row as ``columns``) is upcast on read.
        """

        TOPIC = "provledger.source.version_added"
        class_version = 2
        version: int
        version_hash: str
        media_type: str
        title: str
        text: str
        effective_from: str
        segmenter: str
        heading_paths: list[list[str]]
        spans: list[list[int]]
        cells: list[list[Any]]
        tables: list[dict[str, Any]]

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            """Give each version 1 table its one header row and empty notes."""
            state["tables"] = [
                {
                    "caption": "",
                    "units": "",
                    "label_columns": 1,
                    "header_rows": [list(table.get("columns", []))],
                    **table,
                }
                for table in state.get("tables", [])
            ]

        def apply(self, aggregate: Source) -> None:
            aggregate.title = self.title
            aggregate.versions.append(
                VersionInfo(
                    self.version,
                    self.version_hash,
                    self.effective_from,
                    len(self.spans),
                    self.originator_version,
                    self.title,
                    self.media_type,
                    format_time(self.timestamp),
                    self.segmenter,
                )
            )

    class AccessChanged(LedgerAggregate.Event):
        """The source's access attributes were replaced (``access`` in the form of
        :meth:`ledger.access.SourceAccess.to_json`)."""

        TOPIC = "provledger.source.access_changed"
        access: dict[str, Any]

        def apply(self, aggregate: Source) -> None:
            aggregate.access = SourceAccess.from_event(self.access)
            aggregate.access_history.append(
                (format_time(self.timestamp), aggregate.access, self.originator_version)
            )

    class Withdrawn(LedgerAggregate.Event):
        """No new citation may bind to this source; old ones still resolve."""

        TOPIC = "provledger.source.withdrawn"
        reason: str

        def apply(self, aggregate: Source) -> None:
            aggregate.withdrawn = True
            aggregate.withdraw_reason = self.reason
            aggregate.withdrawn_at = format_time(self.timestamp)
            aggregate.withdrawn_event = self.originator_version

    def __init__(
        self,
        source_id: str,
        title: str,
        authority: str,
        uri: str | None,
        metadata: dict[str, Any],
        access: dict[str, Any] | None = None,
    ) -> None:
        self.source_id = source_id
        self.title = title
        self.authority = authority
        self.uri = uri
        self.metadata = metadata
        self.access = SourceAccess.from_event(access)
        self.registered_access = self.access
        self.access_history: list[tuple[str, SourceAccess, int]] = []
        """Each change of the access attributes: when it was recorded, the new ones, and the
        aggregate version of its event."""
        self.versions: list[VersionInfo] = []
        self.withdrawn = False
        self.withdraw_reason: str | None = None
        self.withdrawn_at: str | None = None
        self.withdrawn_event = 0

    @classmethod
    def register(
        cls,
        source_id: str,
        title: str,
        authority: str,
        uri: str | None,
        metadata: dict[str, Any],
        actor: str,
        access: SourceAccess | None = None,
    ) -> Source:
        """Claim ``source_id``; the first version follows in the same save. A source registered
        without access attributes records ``None`` (open to every principal)."""
        return cls._create(
            cls.Registered,
            id=source_aggregate_id(source_id),
            source_id=source_id,
            title=title,
            authority=authority,
            uri=uri,
            metadata=metadata,
            access=None if access is None or access.unrestricted else access.to_json(),
            actor=actor,
        )

    def fork(self) -> Source:
        """A copy a command may change without touching this one (versions are appended,
        never edited)."""
        return fork_state(self, ("versions", "access_history"), ())

    @property
    def current(self) -> VersionInfo | None:
        """The newest version."""
        return self.versions[-1] if self.versions else None

    def add_version(self, fields: dict[str, Any], actor: str) -> int:
        """Record a new frozen version; returns its number."""
        if self.withdrawn:
            raise Conflict(f"source {self.source_id!r} is withdrawn; it takes no new versions")
        current = self.current
        if current is not None and fields["effective_from"] < current.effective_from:
            raise InvalidInput(
                "effective_from",
                "not-before-previous",
                f"effective_from must not precede version {current.version}'s "
                f"({current.effective_from})",
            )
        version = len(self.versions) + 1
        self.trigger_event(self.VersionAdded, version=version, actor=actor, **fields)
        return version

    def change_access(self, access: SourceAccess, actor: str) -> bool:
        """Replace the access attributes; False (and no event) when they are the same."""
        if access == self.access:
            return False
        self.trigger_event(self.AccessChanged, access=access.to_json(), actor=actor)
        return True

    def withdraw(self, reason: str, actor: str) -> None:
        """Withdraw the source."""
        if self.withdrawn:
            raise Conflict(f"source {self.source_id!r} is already withdrawn")
        self.trigger_event(self.Withdrawn, reason=reason, actor=actor)
