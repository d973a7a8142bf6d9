"""Signed, hash-chained event storage on top of ``eventsourcing``.

:class:`SignedMapper` converts domain events to and from the envelope described in
:mod:`ledger.eventlog.envelope`; :class:`SignedEventStore` gives each event its chain link (the
hash of the aggregate's previous event) and its ledger time before the batch is written in one
transaction by the library's recorder.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from eventsourcing.domain import DomainEventProtocol, ProgrammingError
from eventsourcing.persistence import (
    AggregateRecorder,
    EventStore,
    IntegrityError,
    JSONTranscoder,
    Mapper,
    Notification,
    Recording,
    StoredEvent,
)
from eventsourcing.utils import resolve_topic

from ledger import tracing
from ledger.crypto.signing import SigningKey
from ledger.errors import LedgerIntegrityError
from ledger.eventlog.clock import format_time, parse_time
from ledger.eventlog.envelope import SealedEvent, open_state, seal
from ledger.eventlog.port import ReadChecks
from ledger.eventlog.topics import event_topic, stable_aggregate_topic

_RESERVED = ("originator_id", "originator_version", "timestamp", "actor")


HEAD_CACHE_SIZE = 20_000
"""Aggregates whose last version and event hash a process remembers for its next append
(about 300 bytes each, measured with ``tracemalloc``: 6 MB in all); a forgotten head is read
back from the aggregate's last stored event."""


class SignedMapper(Mapper[UUID]):
    """Maps domain events to signed envelopes and back.

    The payload is the event's own fields, less the ones the envelope carries itself
    (originator id and version, ledger time, actor). Payload values must be JSON values:
    events hold strings, integers, booleans, lists and objects, never ``datetime`` or ``UUID``.
    """

    def __init__(self, signing_key: SigningKey) -> None:
        super().__init__(transcoder=JSONTranscoder())
        self.signing_key = signing_key

    def to_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> StoredEvent:
        """Refuse: events are only stored sealed, with a chain link (see SignedEventStore)."""
        raise ProgrammingError("ledger events are stored through SignedEventStore.put()")

    def seal(
        self, domain_event: DomainEventProtocol[UUID], prev: bytes | None, recorded_at: str
    ) -> SealedEvent:
        """Sign one domain event, linking it to its predecessor's hash ``prev``."""
        state = dict(vars(domain_event))
        try:
            actor = state.pop("actor")
        except KeyError:
            raise ProgrammingError(f"{type(domain_event).__qualname__} has no actor") from None
        for name in _RESERVED[:3]:
            state.pop(name)
        if "originator_topic" in state:
            state["originator_topic"] = stable_aggregate_topic(state["originator_topic"])
        class_version = getattr(type(domain_event), "class_version", 1)
        if class_version > 1:
            state["class_version"] = class_version
        return seal(
            self.signing_key,
            originator_id=str(domain_event.originator_id),
            originator_version=domain_event.originator_version,
            topic=event_topic(type(domain_event)),
            recorded_at=recorded_at,
            actor=actor,
            payload=state,
            prev=prev,
        )

    def to_domain_event(self, stored_event: StoredEvent) -> DomainEventProtocol[UUID]:
        """Rebuild a domain event from its stored envelope, upcasting old class versions."""
        return self.from_body(stored_event.topic, json.loads(stored_event.state)["body"])

    def from_body(self, topic: str, body: dict[str, Any]) -> DomainEventProtocol[UUID]:
        """Rebuild a domain event from an already parsed signed body."""
        return event_from_body(resolve_topic(topic), body)


def event_from_body(cls: type[Any], body: dict[str, Any]) -> DomainEventProtocol[UUID]:
    """Rebuild a domain event of class ``cls`` from a parsed signed body, upcasting old class
    versions. Callers that hold untrusted topics pick ``cls`` from a fixed table."""
    event_state: dict[str, Any] = dict(body["payload"])
    event_state["originator_id"] = UUID(body["originator_id"])
    event_state["originator_version"] = body["originator_version"]
    event_state["timestamp"] = parse_time(body["recorded_at"])
    event_state["actor"] = body["actor"]
    class_version = getattr(cls, "class_version", 1)
    from_version = event_state.pop("class_version", 1)
    while from_version < class_version:
        getattr(cls, f"upcast_v{from_version}_v{from_version + 1}")(event_state)
        from_version += 1
    domain_event = object.__new__(cls)
    object.__setattr__(domain_event, "__dict__", event_state)
    return domain_event  # type: ignore[no-any-return]


@dataclass(eq=False)
class _Write:
    """One caller's events on their way to the store, and how they fared."""

    events: Sequence[DomainEventProtocol[UUID]]
    kwargs: dict[str, Any]
    stored: list[StoredEvent] = field(default_factory=list)
    links: list[tuple[bytes, bytes | None]] = field(default_factory=list)  # (hash, prev)
    heads: dict[UUID, tuple[int, bytes]] = field(default_factory=dict)
    ids: Sequence[int] | None = None
    error: BaseException | None = None
    written: bool = False
    done: bool = False

    @property
    def mergeable(self) -> bool:
        """No tracking record or other recorder argument: it may share a transaction."""
        return all(value is None for value in self.kwargs.values())


class SignedEventStore(EventStore[UUID]):
    """An event store that seals each event with a signature, a chain link and a ledger time.

    One writer at a time seals and inserts, so within a process ``recorded_at`` never
    decreases in notification order. Callers that arrive while a write is under way queue up;
    the next writer takes the whole queue and inserts it in one transaction (group commit),
    each caller's events keeping their own ledger time, in queue order. If that transaction
    fails on a conflict, each caller's events are inserted in a transaction of their own, so
    one caller's conflict never fails another's write: every caller gets all of its events
    stored or none, as with a write of its own.

    Chain heads are cached per aggregate; a cached head is only used when its version is
    exactly the new event's version minus one, which stays correct with other writers
    because a stored version never changes.
    """

    def __init__(
        self,
        mapper: SignedMapper,
        recorder: AggregateRecorder,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        head_cache_size: int = HEAD_CACHE_SIZE,
    ) -> None:
        super().__init__(mapper=mapper, recorder=recorder)
        self.signed_mapper = mapper
        self._clock = clock
        self._lock = threading.Lock()  # the writer
        self._queue_lock = threading.Lock()
        self._queue: list[_Write] = []
        self._heads: OrderedDict[UUID, tuple[int, bytes]] = OrderedDict()
        self._head_cache_size = head_cache_size
        self._last_time: datetime | None = None
        # Optional observers (metrics): a put's seconds, and each group commit's write count.
        self.on_append: Callable[[float], None] | None = None
        self.on_group: Callable[[int], None] | None = None

    def put(
        self, domain_events: Sequence[DomainEventProtocol[UUID]], **kwargs: Any
    ) -> list[Recording[UUID]]:
        """Seal and store ``domain_events`` atomically (all of them or none)."""
        started = time.perf_counter()
        write = _Write(list(domain_events), kwargs)
        with tracing.span("event_store.append", {"events": len(write.events)}) as span:
            with self._queue_lock:
                self._queue.append(write)
            with self._lock:
                if not write.done:  # no earlier writer took it along: write the queue
                    with self._queue_lock:
                        group, self._queue = self._queue, []
                    span.set("group_writes", len(group))
                    self._write(group)
        if self.on_append is not None:
            self.on_append(time.perf_counter() - started)
        if write.error is not None:
            raise write.error
        recordings: list[Recording[UUID]] = []
        for event, stored, notification_id in zip(
            write.events, write.stored, write.ids or (), strict=False
        ):
            notification = Notification(
                originator_id=stored.originator_id,
                originator_version=stored.originator_version,
                topic=stored.topic,
                state=stored.state,
                id=notification_id,
            )
            recordings.append(Recording(event, notification))
        return recordings

    def _write(self, group: list[_Write]) -> None:
        """Seal and insert ``group`` in order (under the writer lock); every write ends done,
        with its notification ids or its error."""
        if self.on_group is not None:
            self.on_group(len(group))
        try:
            for write in group:
                self._seal(write)
            ready = [w for w in group if w.error is None]
            together = len(ready) > 1 and all(w.mergeable for w in ready)
            if not (together and self._insert_together(ready)):
                for write in ready:
                    self._insert_alone(write)
        except BaseException as exc:
            # The database failed (not a conflict): whatever was not written gets the error,
            # raised in its caller's thread; what was written stays written.
            for write in group:
                if not write.written and write.error is None:
                    write.error = exc
        finally:
            for write in group:
                write.done = True

    def _seal(self, write: _Write) -> None:
        recorded_at = format_time(self._next_time())
        try:
            for event in write.events:
                originator_id = event.originator_id
                version = event.originator_version
                head = write.heads.get(originator_id)
                prev = head[1] if head is not None else self._head(originator_id, version - 1)
                sealed = self.signed_mapper.seal(event, prev, recorded_at)
                write.heads[originator_id] = (version, sealed.event_hash)
                write.links.append((sealed.event_hash, prev))
                write.stored.append(
                    StoredEvent(
                        originator_id=originator_id,
                        originator_version=version,
                        topic=sealed.body["topic"],
                        state=sealed.to_state(),
                    )
                )
        except (IntegrityError, LedgerIntegrityError) as exc:
            # A stale aggregate (its predecessor is not stored), or a predecessor that fails
            # verification: this write fails, the others of its group go on.
            write.error = exc

    def _insert_together(self, writes: list[_Write]) -> bool:
        """Insert several writes in one transaction; False if a conflict rolled it back."""
        try:
            ids = self.recorder.insert_events([e for w in writes for e in w.stored])
        except IntegrityError:
            return False
        offset = 0
        for write in writes:
            count = len(write.stored)
            write.ids = None if ids is None else ids[offset : offset + count]
            offset += count
            self._remember_all(write)
        return True

    def _insert_alone(self, write: _Write) -> None:
        try:
            write.ids = self.recorder.insert_events(write.stored, **write.kwargs)
        except IntegrityError as exc:
            for originator_id in write.heads:
                self._heads.pop(originator_id, None)
            write.error = exc
            return
        self._remember_all(write)

    def _remember_all(self, write: _Write) -> None:
        write.written = True
        for originator_id, head in write.heads.items():
            self._remember(originator_id, head)
        self.written(write.stored, write.links)

    def written(
        self, stored: Sequence[StoredEvent], links: Sequence[tuple[bytes, bytes | None]]
    ) -> None:
        """Called with the events just stored and their (hash, prev): a hook for subclasses."""

    def _next_time(self) -> datetime:
        now = self._clock()
        if self._last_time is not None and now <= self._last_time:
            now = self._last_time + timedelta(microseconds=1)
        self._last_time = now
        return now

    def _head(self, originator_id: UUID, version: int) -> bytes | None:
        """Hash of the aggregate's event at ``version`` (None before the first event)."""
        if version < 1:
            return None
        cached = self._heads.get(originator_id)
        if cached is not None and cached[0] == version:
            return cached[1]
        stored = list(
            self.recorder.select_events(originator_id, gt=version - 1, lte=version, limit=1)
        )
        if not stored:
            # The predecessor is not stored: the aggregate is stale or was never saved.
            raise IntegrityError(f"aggregate {originator_id} has no stored version {version}")
        return self.head_of(originator_id, stored[0])

    def head_of(self, originator_id: UUID, row: StoredEvent) -> bytes:
        """The event hash of ``row``, the aggregate's stored head read back for a new event to
        link to (a subclass verifies it first)."""
        return open_state(row.state).event_hash

    def _remember(self, originator_id: UUID, head: tuple[int, bytes]) -> None:
        self._heads[originator_id] = head
        self._heads.move_to_end(originator_id)
        if len(self._heads) > self._head_cache_size:
            self._heads.popitem(last=False)


class VerifiedEventStore(SignedEventStore):
    """The signed store whose reads verify every event before it is decoded, with the
    :class:`~ledger.eventlog.port.ReadChecks` it is given."""

    def __init__(
        self, mapper: SignedMapper, recorder: AggregateRecorder, checks: ReadChecks
    ) -> None:
        super().__init__(mapper=mapper, recorder=recorder)
        self.checks = checks

    def get(
        self,
        originator_id: UUID,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Iterator[DomainEventProtocol[UUID]]:
        """The aggregate's events, each verified by the read checks."""
        stored = self.recorder.select_events(originator_id, gt=gt, lte=lte, desc=desc, limit=limit)
        self.checks.check(self.recorder, originator_id, stored, None if desc else (gt or 0) + 1)
        return map(self.mapper.to_domain_event, stored)

    def verified_history(
        self, originator_id: UUID, stored: Sequence[StoredEvent]
    ) -> list[DomainEventProtocol[UUID]]:
        """Decode an aggregate's events read elsewhere (several aggregates in one query),
        from version 1 in order, after the read checks verified them as :meth:`get` does."""
        self.checks.check(self.recorder, originator_id, stored, 1)
        return [self.mapper.to_domain_event(row) for row in stored]

    def head_of(self, originator_id: UUID, row: StoredEvent) -> bytes:
        """The hash of a head read back from the store, after the read checks verified it and
        its link to its own predecessor: a new event's signed ``prev`` never endorses a row
        edited behind the ledger's back (between the aggregate's read and its append, say)."""
        self.checks.check(self.recorder, originator_id, [row], row.originator_version)
        return super().head_of(originator_id, row)

    def written(
        self, stored: Sequence[StoredEvent], links: Sequence[tuple[bytes, bytes | None]]
    ) -> None:
        """Remember what was just written as verified."""
        self.checks.remember_written(stored, links)

    def verified(self, stored: StoredEvent) -> DomainEventProtocol[UUID]:
        """Decode one event read from the log (a notification) after verifying it and its
        link to its predecessor."""
        originator_id = UUID(str(stored.originator_id))
        self.checks.check(self.recorder, originator_id, [stored], stored.originator_version)
        return self.mapper.to_domain_event(stored)
