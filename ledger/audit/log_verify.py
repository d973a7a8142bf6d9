"""Walk the whole log and check every signature and chain link.

The verifier trusts only the keyring it is given, never keys found in the database. It reads
the log in notification order and, for each event, checks in this order:

1. the stored state is a well-formed envelope (``malformed_event``);
2. its body names the same aggregate, version and topic as its row (``row_mismatch``);
3. the aggregate's versions are contiguous from 1 (``missing_event``);
4. ``prev`` equals the hash of the aggregate's previous event (``broken_chain``);
5. the key id is in the keyring (``unknown_key``);
6. the Ed25519 signature over the canonical body is valid (``bad_signature``).

It stops at the first failure and names the notification id, the aggregate and the reason.
Deleting an aggregate's most recent events leaves every remaining chain intact; that kind of
truncation is caught by the transparency log's checkpoints, not here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, TypeVar
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Notification

from ledger.crypto.signing import Keyring
from ledger.errors import EventCheckFailed, MalformedEvent
from ledger.eventlog import signature_pool
from ledger.eventlog.envelope import SealedEvent, format_hash, open_state
from ledger.eventlog.signature_pool import SignatureChecks

PAGE_SIZE = 2000


class StoredEventRow(Protocol):
    """What a check reads of a stored event: a library ``StoredEvent``, ``Notification`` or a
    plain row."""

    @property
    def originator_id(self) -> UUID | str: ...

    @property
    def originator_version(self) -> int: ...

    @property
    def topic(self) -> str: ...

    @property
    def state(self) -> bytes: ...


class StoredRow(StoredEventRow, Protocol):
    """A stored event with its position in the log (notification id)."""

    @property
    def id(self) -> int: ...


class FailureReason(StrEnum):
    """Why an event failed verification."""

    MALFORMED_EVENT = "malformed_event"
    ROW_MISMATCH = "row_mismatch"
    MISSING_EVENT = "missing_event"
    BROKEN_CHAIN = "broken_chain"
    UNKNOWN_KEY = "unknown_key"
    BAD_SIGNATURE = "bad_signature"


@dataclass(frozen=True)
class VerificationFailure:
    """The first event that did not verify."""

    notification_id: int
    originator_id: str
    originator_version: int
    reason: FailureReason
    detail: str


@dataclass
class VerificationReport:
    """What a walk of the log found."""

    events: int = 0
    aggregates: int = 0
    last_notification_id: int = 0
    keys_used: dict[str, int] = field(default_factory=dict)
    elapsed_seconds: float = 0.0
    failure: VerificationFailure | None = None

    @property
    def ok(self) -> bool:
        """True when every event verified."""
        return self.failure is None

    @property
    def events_per_second(self) -> float:
        """Throughput of the walk."""
        return self.events / self.elapsed_seconds if self.elapsed_seconds else 0.0


R = TypeVar("R", bound=StoredRow)


def iter_pages(read: Callable[[int, int], Sequence[R]], page_size: int = PAGE_SIZE) -> Iterator[R]:
    """Every stored event in notification order, page by page: ``read(after, limit)`` gives
    up to ``limit`` events with ids above ``after``."""
    start = 0
    while True:
        page = read(start, page_size)
        yield from page
        if len(page) < page_size:
            return
        start = page[-1].id


def iter_log(recorder: ApplicationRecorder, page_size: int = PAGE_SIZE) -> Iterator[Notification]:
    """Every stored event in notification order, as the library's notifications."""

    def read(after: int, limit: int) -> Sequence[Notification]:
        return recorder.select_notifications(start=after, limit=limit, inclusive_of_start=False)

    return iter_pages(read, page_size)


class LogVerifier:
    """Checks events one at a time, remembering each aggregate's chain head."""

    def __init__(self, keyring: Keyring) -> None:
        self.keyring = keyring
        self._heads: dict[UUID | str, tuple[int, bytes]] = {}

    def prime(self, originator_id: UUID | str, version: int, event_hash: bytes) -> None:
        """Start checking an aggregate after ``version``, an event verified earlier whose hash
        is ``event_hash``: the next event checked must be ``version + 1`` and link to it."""
        self._heads[originator_id] = (version, event_hash)

    def check(self, notification: StoredEventRow) -> SealedEvent:
        """Verify one event given every earlier one; raise :class:`EventCheckFailed`."""
        sealed = self.check_links(notification)
        if not self.keyring.verify(sealed.kid, sealed.body_bytes, sealed.signature):
            raise EventCheckFailed(FailureReason.BAD_SIGNATURE, bad_signature_detail(sealed.kid))
        return sealed

    def check_links(self, notification: StoredEventRow) -> SealedEvent:
        """Checks 1-5 (everything but the signature itself), then advance the aggregate's
        chain head: for callers that verify signatures in bulk elsewhere (see
        :mod:`ledger.eventlog.signature_pool`) and must not act on an event before they have."""
        try:
            sealed = open_state(notification.state)
        except MalformedEvent as exc:
            raise EventCheckFailed(FailureReason.MALFORMED_EVENT, str(exc)) from None
        body = sealed.body
        originator_id = notification.originator_id
        version = notification.originator_version
        if (
            body["originator_id"] != str(originator_id)
            or body["originator_version"] != version
            or body["topic"] != notification.topic
        ):
            raise EventCheckFailed(
                FailureReason.ROW_MISMATCH,
                f"signed body names {body['originator_id']} v{body['originator_version']} "
                f"({body['topic']}) but the row is {originator_id} v{version} "
                f"({notification.topic})",
            )
        head = self._heads.get(originator_id)
        expected_version = 1 if head is None else head[0] + 1
        if version != expected_version:
            raise EventCheckFailed(
                FailureReason.MISSING_EVENT,
                f"expected version {expected_version} of the aggregate, found {version}",
            )
        expected_prev = None if head is None else head[1]
        try:
            prev = sealed.prev_hash
        except MalformedEvent as exc:
            raise EventCheckFailed(FailureReason.MALFORMED_EVENT, str(exc)) from None
        if prev != expected_prev:
            expected = "null" if expected_prev is None else format_hash(expected_prev)
            found = "null" if prev is None else format_hash(prev)
            raise EventCheckFailed(
                FailureReason.BROKEN_CHAIN, f"prev should be {expected} but is {found}"
            )
        if sealed.kid not in self.keyring:
            raise EventCheckFailed(
                FailureReason.UNKNOWN_KEY, f"key id {sealed.kid!r} is not in the keyring"
            )
        self._heads[originator_id] = (version, sealed.event_hash)
        return sealed


def bad_signature_detail(kid: str) -> str:
    """The detail of a ``bad_signature`` failure."""
    return f"signature by key {kid} does not match the event body"


# Over 60 lines on purpose: one pass over the log that pages, checks links inline and settles
# signatures in a pool; splitting it would pass the pass's state between pieces.
def verify_log(
    recorder: ApplicationRecorder,
    keyring: Keyring,
    progress: Callable[[int], None] | None = None,
) -> VerificationReport:
    """Verify the whole log; ``progress`` is called with the last notification id per page.

    Checks 1-5 run here in notification order; signatures go to
    :class:`~ledger.eventlog.signature_pool.SignatureChecks` (worker processes on a machine with
    spare cores) and are settled before a failure is reported and at the end, so the report
    names the earliest failing event exactly as a one-by-one walk would.
    """
    verifier = LogVerifier(keyring)
    report = VerificationReport()
    started = time.perf_counter()
    # The events walked since the last settled page, for naming a failure and counting keys.
    walked: list[tuple[Notification, SealedEvent]] = []
    failed_at: tuple[int, Notification, FailureReason, str] | None = None
    with SignatureChecks[int](
        keyring, chunk=signature_pool.CHUNK, parallel_after=signature_pool.PARALLEL_AFTER
    ) as signatures:

        def bad_signature() -> tuple[int, Notification, FailureReason, str] | None:
            ordinal = signatures.settle()  # an ordinal of this page: earlier pages settled
            if ordinal is None:
                return None
            notification, sealed = walked[ordinal - (report.events - len(walked))]
            reason = FailureReason.BAD_SIGNATURE
            return ordinal, notification, reason, bad_signature_detail(sealed.kid)

        for notification in iter_log(recorder):
            try:
                sealed = verifier.check_links(notification)
            except EventCheckFailed as failed:
                structural = (
                    report.events,
                    notification,
                    FailureReason(failed.reason),
                    failed.detail,
                )
                failed_at = bad_signature() or structural
                break
            signatures.add(report.events, sealed)
            walked.append((notification, sealed))
            report.events += 1
            if report.events % PAGE_SIZE == 0:
                failed_at = bad_signature()
                if failed_at is not None:
                    break
                _count(report, walked)
                walked.clear()
                if progress is not None:
                    progress(notification.id)
        else:
            failed_at = bad_signature()
    if failed_at is not None:
        ordinal, notification, reason, detail = failed_at
        report.failure = VerificationFailure(
            notification_id=notification.id,
            originator_id=str(notification.originator_id),
            originator_version=notification.originator_version,
            reason=reason,
            detail=detail,
        )
        del walked[ordinal - (report.events - len(walked)) :]  # only the events before it
        report.events = ordinal
    _count(report, walked)
    report.aggregates = len(verifier._heads)
    report.elapsed_seconds = time.perf_counter() - started
    return report


def _count(report: VerificationReport, walked: list[tuple[Notification, SealedEvent]]) -> None:
    """Add verified events to the report's key counts and last notification id."""
    for notification, sealed in walked:
        report.keys_used[sealed.kid] = report.keys_used.get(sealed.kid, 0) + 1
        report.last_notification_id = notification.id
