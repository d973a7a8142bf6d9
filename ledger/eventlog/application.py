"""The ledger application: the one ``eventsourcing`` application whose log is signed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.application import Application, Repository
from eventsourcing.persistence import (
    EventStore,
    IntegrityError,
    Mapper,
    Notification,
    Recording,
    StoredEvent,
)

from ledger.crypto.signing import SigningKey
from ledger.errors import ConcurrentWrite, InvalidInput
from ledger.eventlog.port import ReadChecks
from ledger.eventlog.store import SignedMapper, VerifiedEventStore

MAX_PAGE = 1000


def project(aggregate: Any, events: Iterable[Any]) -> Any:
    """Apply ``events`` in order to ``aggregate`` (None before the first).

    The library's default projector asserts, per event, that the event matches a runtime
    protocol; that check costs more than applying a small event, and every event read here
    was rebuilt by :class:`~ledger.eventlog.store.SignedMapper` from a class with ``mutate``.
    """
    for event in events:
        aggregate = event.mutate(aggregate)
    return aggregate


class LedgerRepository(Repository[UUID]):
    """The library's repository, with :func:`project` as the default projector."""

    def get(
        self,
        aggregate_id: UUID,
        *,
        version: int | None = None,
        projector_func: Any = project,
        fastforward_skipping: bool = False,
        deepcopy_from_cache: bool = True,
    ) -> Any:
        """Reconstruct an aggregate (see :meth:`Repository.get`)."""
        return super().get(
            aggregate_id,
            version=version,
            projector_func=projector_func,
            fastforward_skipping=fastforward_skipping,
            deepcopy_from_cache=deepcopy_from_cache,
        )


class Ledger(Application[UUID]):
    """Commit, aggregate reads and log reads over the signed event store.

    Every aggregate is rebuilt from events that ``checks`` verified first (the composition
    root passes :class:`ledger.audit.verified_reads.EventChecks`, against the keyring). The
    commands live in the rooms above (``SourceDesk``, the receipt desks), each given this
    application as its :class:`~ledger.eventlog.port.EventLog`.
    """

    name = "provledger"

    def __init__(self, signing_key: SigningKey, env: Mapping[str, str], checks: ReadChecks) -> None:
        self.signing_key = signing_key
        self.checks = checks
        super().__init__(dict(env))

    def construct_mapper(self) -> Mapper[UUID]:
        """Use the signing mapper instead of the library's transcoder-only one."""
        return SignedMapper(self.signing_key)

    @property
    def signed_mapper(self) -> SignedMapper:
        """The mapper, typed as the signing mapper it always is."""
        assert isinstance(self.mapper, SignedMapper)
        return self.mapper

    def construct_event_store(self) -> EventStore[UUID]:
        """Store events sealed and chained; read them back verified."""
        assert isinstance(self.mapper, SignedMapper)
        return VerifiedEventStore(mapper=self.mapper, recorder=self.recorder, checks=self.checks)

    def construct_repository(self) -> Repository[UUID]:
        """The library's repository, configured the same way, folding with :func:`project`."""
        built = super().construct_repository()
        return LedgerRepository(
            event_store=built.event_store,
            snapshot_store=built.snapshot_store,
            cache_maxsize=None if built.cache is None else getattr(built.cache, "maxsize", 0),
            fastforward=built.fastforward,
            fastforward_skipping=built.fastforward_skipping,
            deepcopy_from_cache=built.deepcopy_from_cache,
        )

    def commit(self, *aggregates: Any) -> list[Recording[UUID]]:
        """Save aggregates atomically; a concurrent write to one of them is a Conflict."""
        try:
            return self.save(*aggregates)
        except IntegrityError as exc:
            raise ConcurrentWrite(
                "another writer changed the same record at the same time; retry"
            ) from exc

    # The log --------------------------------------------------------------------------------

    def verified_event(self, stored: StoredEvent) -> Any:
        """Decode one event read from the log, after checking it as every read is checked."""
        assert isinstance(self.events, VerifiedEventStore)
        return self.events.verified(stored)

    def verified_history(self, originator_id: UUID, stored: Sequence[StoredEvent]) -> list[Any]:
        """Decode the events of one aggregate, read from version 1 by a query of several
        aggregates, after checking them as every read is checked."""
        assert isinstance(self.events, VerifiedEventStore)
        return self.events.verified_history(originator_id, stored)

    def read_log(self, after: int, limit: int) -> list[Notification]:
        """Up to ``limit`` stored events with notification id greater than ``after``."""
        if after < 0:
            raise InvalidInput("after", "minimum", "after must be 0 or more")
        if not 1 <= limit <= MAX_PAGE:
            raise InvalidInput("limit", "range", f"limit must be between 1 and {MAX_PAGE}")
        return list(
            self.recorder.select_notifications(start=after, limit=limit, inclusive_of_start=False)
        )

    def last_position(self) -> int:
        """The highest notification id (0 for an empty log); doubles as a database check."""
        return self.recorder.max_notification_id() or 0

    def decode(self, notification: Notification) -> Any:
        """The domain event of a stored notification, decoded (not verified: callers that decide
        on it read the aggregate through the repository, which verifies)."""
        return self.mapper.to_domain_event(notification)

    def notifications(self, topics: Sequence[str], after: int = 0) -> list[Notification]:
        """Every stored event of the given topics after notification id ``after``, in log
        order."""
        result: list[Notification] = []
        start = after
        while True:
            page = self.recorder.select_notifications(
                start=start, limit=MAX_PAGE, topics=topics, inclusive_of_start=False
            )
            result.extend(page)
            if len(page) < MAX_PAGE:
                return result
            start = page[-1].id
