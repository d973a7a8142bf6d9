"""Verified reads: every event the service loads to decide something is checked first.

Aggregates are rebuilt from events read back from the store: API keys to authenticate,
receipts before a commit or an envelope, sources before the gate reads their spans, policies
before a receipt opens. Each of those events gets the per-event check of ``provledger verify``
(:class:`~ledger.audit.log_verify.LogVerifier`): a well-formed envelope naming its own row, versions
contiguous, ``prev`` equal to the hash of the aggregate's previous event, a key of the keyring
and a valid Ed25519 signature. A failure raises :class:`~ledger.errors.LedgerIntegrityError`
naming the event, and nothing of the read is used.

A verified event is remembered per process under (aggregate, version) with the SHA-256 of its
stored state, its event hash and its ``prev``: an unchanged row is checked once, a changed row
no longer matches its digest and is checked again (and fails). The first event of a read that
does not start at version 1 (a snapshot brought up to date) is linked to its predecessor's
remembered hash or, when that is not remembered, to the predecessor read and verified from
version 1.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn
from uuid import UUID

from eventsourcing.persistence import AggregateRecorder, StoredEvent

from ledger.audit.log_verify import FailureReason, LogVerifier
from ledger.crypto.signing import Keyring
from ledger.errors import EventCheckFailed, LedgerIntegrityError
from ledger.eventlog.envelope import SealedEvent

EventLocator = Callable[[AggregateRecorder, UUID | str, int], int | None]
"""Finds one stored event's log position, to name it in a failure (a storage adapter supplies it:
``projections.log_rows.notification_id_of``)."""

CACHE_SIZE = 20_000
"""Verified events remembered per process (about 480 bytes each, measured with
``tracemalloc``: about 9.5 MB in all)."""


@dataclass(frozen=True, slots=True)
class _Verified:
    """What is remembered of one verified event."""

    digest: bytes  # SHA-256 of the stored state
    event_hash: bytes
    prev: bytes | None


class EventChecks:
    """Checks events read back from the store, remembering each verified event once: the
    :class:`~ledger.eventlog.port.ReadChecks` that ``api/services.py`` hands to the ``Ledger``
    (whose :class:`~ledger.eventlog.store.VerifiedEventStore` calls it on every read).

    ``reload_keyring`` is called once when an event names a key id the keyring lacks (a key
    rotated by another process); the event fails as ``unknown_key`` if the reloaded keyring
    lacks it too.
    """

    def __init__(
        self,
        keyring: Keyring,
        reload_keyring: Callable[[], Keyring] | None = None,
        size: int = CACHE_SIZE,
        locate: EventLocator | None = None,
    ) -> None:
        self.keyring = keyring
        self._reload_keyring = reload_keyring
        self._locate = locate
        self._size = size
        self._lock = threading.Lock()
        self._verified: OrderedDict[tuple[UUID, int], _Verified] = OrderedDict()
        self.checked = 0  # events whose signature was checked (the rest were remembered)

    def check(
        self,
        recorder: AggregateRecorder,
        originator_id: UUID,
        stored: Sequence[StoredEvent],
        first: int | None = None,
    ) -> None:
        """Verify ``stored``, events of one aggregate read in one query (in any order);
        ``first`` is the version the read must start at, when the query fixes it."""
        last: tuple[int, bytes] | None = None  # the previous event of this read
        for row in sorted(stored, key=lambda r: r.originator_version):
            version = row.originator_version
            expected = first if last is None else last[0] + 1
            if expected is not None and version != expected:
                self._fail(
                    recorder,
                    row,
                    FailureReason.MISSING_EVENT,
                    f"expected version {expected} of the aggregate, found {version}",
                )
            digest = hashlib.sha256(row.state).digest()
            known = self._recall(originator_id, version)
            if known is not None and hmac.compare_digest(known.digest, digest):
                if last is not None and known.prev != last[1]:  # pragma: no cover - defensive
                    self._fail(recorder, row, FailureReason.BROKEN_CHAIN, "prev has changed")
                last = (version, known.event_hash)
                continue
            head = last if last is not None else self._predecessor(recorder, originator_id, row)
            sealed = self._check_one(recorder, row, head)
            self._remember(
                originator_id, version, _Verified(digest, sealed.event_hash, head_hash(head))
            )
            last = (version, sealed.event_hash)

    def _check_one(
        self, recorder: AggregateRecorder, row: StoredEvent, head: tuple[int, bytes] | None
    ) -> SealedEvent:
        for attempt in (1, 2):
            verifier = LogVerifier(self.keyring)
            if head is not None:
                verifier.prime(row.originator_id, *head)
            try:
                sealed = verifier.check(row)
            except EventCheckFailed as failed:
                unknown = failed.reason == FailureReason.UNKNOWN_KEY
                if unknown and attempt == 1 and self._reload_keyring is not None:
                    self.keyring = self._reload_keyring()
                    continue
                self._fail(recorder, row, FailureReason(failed.reason), failed.detail)
            self.checked += 1
            return sealed
        raise AssertionError("unreachable")

    def _predecessor(
        self, recorder: AggregateRecorder, originator_id: UUID, row: StoredEvent
    ) -> tuple[int, bytes] | None:
        """The verified (version, hash) that ``row`` must link to (None for version 1)."""
        prior = row.originator_version - 1
        if prior < 1:
            return None
        known = self._recall(originator_id, prior)
        if known is None:
            self.check(recorder, originator_id, recorder.select_events(originator_id, lte=prior), 1)
            known = self._recall(originator_id, prior)
        if known is None:
            self._fail(
                recorder,
                row,
                FailureReason.MISSING_EVENT,
                f"the aggregate has no stored version {prior} before version {prior + 1}",
            )
        return prior, known.event_hash

    def _recall(self, originator_id: UUID, version: int) -> _Verified | None:
        with self._lock:
            known = self._verified.get((originator_id, version))
            if known is not None:
                self._verified.move_to_end((originator_id, version))
            return known

    def _remember(self, originator_id: UUID, version: int, verified: _Verified) -> None:
        with self._lock:
            self._verified[originator_id, version] = verified
            self._verified.move_to_end((originator_id, version))
            while len(self._verified) > self._size:
                self._verified.popitem(last=False)

    def remember_written(
        self, stored: Sequence[StoredEvent], links: Sequence[tuple[bytes, bytes | None]]
    ) -> None:
        """Remember events this process sealed and stored itself: they need no check when
        read back unchanged."""
        for row, (event_hash, prev) in zip(stored, links, strict=True):
            digest = hashlib.sha256(row.state).digest()
            originator_id = UUID(str(row.originator_id))
            self._remember(
                originator_id, row.originator_version, _Verified(digest, event_hash, prev)
            )

    def forget(self) -> None:
        """Drop everything remembered (the next read of every event checks it again)."""
        with self._lock:
            self._verified.clear()

    def _fail(
        self, recorder: AggregateRecorder, row: StoredEvent, reason: FailureReason, detail: str
    ) -> NoReturn:
        raise LedgerIntegrityError(
            reason.value,
            detail,
            {
                "originator_id": str(row.originator_id),
                "originator_version": row.originator_version,
                "notification_id": None
                if self._locate is None
                else self._locate(recorder, row.originator_id, row.originator_version),
            },
        )


def head_hash(head: tuple[int, bytes] | None) -> bytes | None:
    """The hash a head names (None before version 1)."""
    return None if head is None else head[1]
