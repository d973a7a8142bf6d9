"""Commands of the evidence registry: register, add a version, change access, withdraw.

A command made with an API key that pins principal attributes acts only on sources the key may
see, by the rule its reads follow (:mod:`ledger.receipts.sight`): to such a key a source it may
not see does not exist (404 ``no source ...``), except that registering its id is 409, since an
id is taken whoever holds it (nothing else of the source is said).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from eventsourcing.application import AggregateNotFoundError

from ledger.access.attributes import Pins, SourceAccess
from ledger.access.policy import DEFAULT_ACCESS_POLICY, AccessPolicy, pins_may_see
from ledger.errors import Conflict, InvalidInput, LedgerError, NotFound
from ledger.eventlog.clock import format_time, ledger_time
from ledger.eventlog.port import EventLog
from ledger.registry.ingestion import (
    Limits,
    PreparedVersion,
    check_encodable,
    check_metadata,
    check_uri,
    prepare_version,
)
from ledger.registry.source import Authority, Source, check_source_id, source_aggregate_id
from ledger.text.spans import Span

MAX_REASON = 2000


@dataclass(frozen=True)
class SourceDraft:
    """A document as submitted by a client."""

    text: str
    media_type: str
    title: str | None
    """None for a new version: it keeps the source's title."""
    tables: object = None
    effective_from: datetime | None = None
    cite_headings: bool = False


@dataclass(frozen=True)
class BatchItem:
    """One document of a bulk load."""

    source_id: str
    draft: SourceDraft
    authority: str = "source_of_record"
    uri: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True)
class BatchOutcome:
    """What a bulk load did with one document: created, new-version, unchanged or failed."""

    source_id: str
    status: str
    detail: str = ""
    span_count: int = 0


@dataclass(frozen=True)
class VersionReceipt:
    """What a registration or new version produced."""

    source_id: str
    version: int
    version_hash: str
    spans: list[Span]
    position: int
    created: bool
    frozen_text: str = ""


def _effective(moment: datetime | None) -> str:
    if moment is None:
        return format_time(datetime.now(UTC))
    return ledger_time("effective_from", moment)


def _authority(value: str) -> str:
    try:
        return Authority(value).value
    except ValueError:
        raise InvalidInput(
            "authority",
            "known-authority",
            f"authority must be one of {[a.value for a in Authority]}",
        ) from None


class SourceDesk:
    """The registry's commands (over :mod:`ledger.registry.source`), bound to one event log.

    ``policy`` gives the access rules in force (the composition root passes the policy
    desk's)."""

    def __init__(
        self,
        ledger: EventLog,
        limits: Limits,
        policy: Callable[[], AccessPolicy] = lambda: DEFAULT_ACCESS_POLICY,
    ) -> None:
        self.ledger = ledger
        self.limits = limits
        """The ingestion limits this registry enforces."""
        self.policy = policy

    def register(
        self,
        source_id: str,
        draft: SourceDraft,
        authority: str,
        actor: str,
        uri: str | None = None,
        metadata: dict[str, Any] | None = None,
        access: SourceAccess | None = None,
        pins: Pins | None = None,
    ) -> VersionReceipt:
        """Register a new source with its first version and its access attributes.

        The same text again is idempotent (``created`` is False, nothing is written); a
        different text for an existing source is a conflict: use :meth:`add_version`. Access
        attributes change only through :meth:`change_access`. A key with ``pins`` that may not
        see an existing source of that id learns only that the id is taken (409).
        """
        check_source_id(source_id)
        authority = _authority(authority)
        uri = check_uri(uri)
        metadata = check_metadata(metadata)
        effective_from = _effective(draft.effective_from)
        prepared = self._prepare(source_id, draft)
        for attempt in (1, 2):
            existing = self._find_source(source_id)
            if existing is not None and not self._sees(pins, existing):
                raise Conflict(f"source id {source_id!r} is taken; choose another")
            if existing is not None:
                current = existing.current
                assert current is not None
                if current.version_hash == prepared.version_hash:
                    if access is not None and access != existing.access:
                        raise Conflict(
                            f"source {source_id!r} exists with other access attributes; change "
                            f"them with POST /v1/sources/{source_id}/access"
                        )
                    return self._unchanged(source_id, current.version, prepared)
                raise Conflict(
                    f"source {source_id!r} already exists with different text; add a version "
                    f"with POST /v1/sources/{source_id}/versions"
                )
            source = Source.register(
                source_id, prepared.title, authority, uri, metadata, actor, access
            )
            version = source.add_version(prepared.event_fields(effective_from), actor)
            try:
                return self._commit_version(source, version, prepared)
            except Conflict:
                if attempt == 2:
                    raise
                # A concurrent request registered the same id first: answer as if after it.
        raise AssertionError("unreachable")

    def ingest_batch(self, items: Sequence[BatchItem], actor: str) -> list[BatchOutcome]:
        """Bulk load: register new sources and add versions for changed ones, in one commit.

        Documents that fail validation are reported as ``failed`` and left out; the rest are
        written in one transaction (all of them or, on a concurrent write, none).
        """
        outcomes: list[BatchOutcome] = []
        staged: dict[str, Source] = {}
        for item in items:
            try:
                outcomes.append(self._stage(item, staged, actor))
            except LedgerError as exc:
                outcomes.append(BatchOutcome(item.source_id, "failed", str(exc)))
        if staged:
            self.ledger.commit(*staged.values())
        return outcomes

    def _stage(self, item: BatchItem, staged: dict[str, Source], actor: str) -> BatchOutcome:
        source_id = check_source_id(item.source_id)
        authority = _authority(item.authority)
        uri = check_uri(item.uri)
        metadata = check_metadata(item.metadata)
        effective_from = _effective(item.draft.effective_from)
        prepared = self._prepare(source_id, item.draft)
        source = staged.get(source_id) or self._find_source(source_id)
        if source is None:
            source = Source.register(source_id, prepared.title, authority, uri, metadata, actor)
            status = "created"
        else:
            current = source.current
            assert current is not None
            if current.version_hash == prepared.version_hash:
                return BatchOutcome(source_id, "unchanged", span_count=len(prepared.spans))
            status = "new-version"
        source.add_version(prepared.event_fields(effective_from), actor)
        staged[source_id] = source
        return BatchOutcome(source_id, status, span_count=len(prepared.spans))

    def add_version(
        self,
        source_id: str,
        draft: SourceDraft,
        actor: str,
        pins: Pins | None = None,
    ) -> VersionReceipt:
        """Record a new version that supersedes the current one (idempotent on same text);
        without a title, the version keeps the source's."""
        check_source_id(source_id)
        effective_from = _effective(draft.effective_from)
        source = self.get(source_id, pins)
        if draft.title is None:
            draft = replace(draft, title=source.title)
        prepared = self._prepare(source_id, draft)
        current = source.current
        assert current is not None
        if current.version_hash == prepared.version_hash and not source.withdrawn:
            return self._unchanged(source_id, current.version, prepared)
        version = source.add_version(prepared.event_fields(effective_from), actor)
        return self._commit_version(source, version, prepared)

    def change_access(
        self, source_id: str, access: SourceAccess, actor: str, pins: Pins | None = None
    ) -> tuple[Source, bool, int]:
        """Replace a source's access attributes by a signed ``access changed`` event.

        Returns the source, whether anything changed and the log position of the change (the
        last position when the attributes were already these: nothing is written)."""
        check_source_id(source_id)
        source = self.get(source_id, pins)
        if not source.change_access(access, actor):
            return source, False, self.ledger.last_position()
        recordings = self.ledger.commit(source)
        return source, True, recordings[-1].notification.id

    def withdraw(self, source_id: str, reason: str, actor: str, pins: Pins | None = None) -> int:
        """Withdraw a source: no new citations may bind to any of its versions; returns the
        log position of the withdrawal."""
        check_source_id(source_id)
        check_encodable("reason", reason)
        if not reason.strip() or len(reason) > MAX_REASON:
            raise InvalidInput("reason", "length", f"reason must be 1 to {MAX_REASON} characters")
        source = self.get(source_id, pins)
        source.withdraw(reason.strip(), actor)
        recordings = self.ledger.commit(source)
        return recordings[-1].notification.id

    def _prepare(self, source_id: str, draft: SourceDraft) -> PreparedVersion:
        return prepare_version(
            source_id,
            draft.text,
            draft.media_type,
            "" if draft.title is None else draft.title,
            draft.tables,
            self.limits,
            cite_headings=draft.cite_headings,
        )

    def _find_source(self, source_id: str) -> Source | None:
        try:
            source: Source = self.ledger.repository.get(source_aggregate_id(source_id))
        except AggregateNotFoundError:
            return None
        return source

    def get(self, source_id: str, pins: Pins | None = None) -> Source:
        """The source from its verified events; NotFound when the ledger does not hold it, or
        when a key with ``pins`` may not see it (the same answer)."""
        source = self._find_source(source_id)
        if source is None or not self._sees(pins, source):
            raise NotFound(f"no source {source_id!r}")
        return source

    def _sees(self, pins: Pins | None, source: Source) -> bool:
        return pins is None or pins_may_see(pins, source.access, self.policy())

    def _commit_version(
        self, source: Source, version: int, prepared: PreparedVersion
    ) -> VersionReceipt:
        recordings = self.ledger.commit(source)
        return VersionReceipt(
            source_id=source.source_id,
            version=version,
            version_hash=prepared.version_hash,
            spans=prepared.spans,
            position=recordings[-1].notification.id,
            created=True,
            frozen_text=prepared.text,
        )

    def _unchanged(self, source_id: str, version: int, prepared: PreparedVersion) -> VersionReceipt:
        return VersionReceipt(
            source_id=source_id,
            version=version,
            version_hash=prepared.version_hash,
            spans=prepared.spans,
            position=self.ledger.last_position(),
            created=False,
            frozen_text=prepared.text,
        )
