"""Verified API keys remembered per process, re-checked against the store on every request.

Rebuilding a key from its events on every request (read, verify, decode, fold) costs more than
the rest of a trivial read. :class:`KeyCache` remembers, per key, what authentication needs (the
secret's hash, the scopes, whether it is revoked) together with a *fingerprint* of the stored
rows it was rebuilt from: each row's version and the SHA-256 of its stored state.

Every authentication still makes one indexed read of the key's rows (the events table's primary
key, ``originator_id`` then ``originator_version``) and compares their fingerprint with the
remembered one. So, in every process:

- a revocation or reissue committed by any process adds a row: the fingerprint differs, the key
  is rebuilt from verified events, and the very next request sees the new state;
- a row edited in the database no longer matches its digest: the key is rebuilt, and the edited
  event fails verification (:mod:`ledger.audit.verified_reads`) exactly as without the cache.

A fingerprint is remembered only for rows that were verified and that fold to the key the
repository rebuilt (same last version), so a row changed between the two reads is never
remembered as verified.

**Trusting a remembered key without the read.** That read is one database round trip per
request, on PostgreSQL more than the rest of a trivial authenticated read. A process whose *key
watch* (``api/key_watch.py``) looks at the store five times per lease for key events
committed since its last look may admit a remembered key without reading its rows, while:

- the watch's last look began less than the *lease* ago (:data:`LEASE_SECONDS` unless
  configured; on this process's monotonic clock); and
- the key's entry was confirmed by a read of its rows that began after the watch last saw the
  key change (:meth:`KeyCache.watched`).

A revocation answers only after waiting the lease and :data:`FENCE_MARGIN` once committed
(:meth:`ledger.keys.api_key_desk.ApiKeyDesk.revoke`). A process that has not looked since the commit
has a lease that began before it, so it has lapsed by then and the process reads the key's rows
again; one that has looked saw the key change. So a revocation still holds on the very next
request in every process. Only admissions are taken on trust: a remembered key that would not
admit the secret (revoked, another hash) is decided by the read, so a key reissued elsewhere is
never refused for a lease's length. Rows edited in the database are not read while trusted; they
are never used either (the entry is what was verified), and the next rebuild or ``provledger
verify`` finds them.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from ledger.access.attributes import Pins

Fingerprint = tuple[tuple[int, bytes], ...]
"""(version, SHA-256 of the stored state) of each of a key's rows, in version order."""

CACHE_SIZE = 10_000
"""Keys remembered per process (a few hundred bytes each)."""

LEASE_SECONDS = 0.5
"""The default lease: how long after a look began the process may admit remembered keys
without reading them (``PROVLEDGER_KEY_LEASE_MS``; every process of one ledger must use the
same, since a revocation waits for its own)."""

FENCE_MARGIN = 0.05
"""Added to the lease by a revocation's wait: monotonic clocks of two processes may run at
rates that differ by parts per million, and a look's query starts a little after it is timed."""


def revocation_wait(lease: float) -> float:
    """How long a committed revocation waits before it answers, given the lease."""
    return lease + FENCE_MARGIN if lease > 0 else 0.0


def poll_seconds(lease: float) -> float:
    """How often the key watch looks: five looks per lease, so a late look or two does not
    lapse it."""
    return max(lease / 5, 0.005)


@dataclass(frozen=True, slots=True)
class CachedKey:
    """What authentication needs of one key, as rebuilt from verified events."""

    fingerprint: Fingerprint
    name: str
    scopes: frozenset[str]
    key_hash: str
    revoked: bool
    pins: Pins | None = None

    def admits(self, secret_hash: str) -> bool:
        """Whether a secret with this hash authenticates as this key (constant time)."""
        return not self.revoked and hmac.compare_digest(secret_hash, self.key_hash)


def fingerprint(rows: Sequence[StoredEvent]) -> Fingerprint:
    """The fingerprint of a key's stored rows."""
    ordered = sorted(rows, key=lambda row: row.originator_version)
    return tuple((row.originator_version, hashlib.sha256(row.state).digest()) for row in ordered)


def _ignore(hit: bool) -> None:
    """The default lookup observer: nothing is told."""


class KeyCache:
    """Remembers verified keys by aggregate id; ``read_rows`` is the one indexed read per request
    (the recorder's ``select_events``), ``verify_rows`` the ledger's event checks."""

    def __init__(
        self,
        read_rows: Callable[[UUID], Sequence[StoredEvent]],
        verify_rows: Callable[[UUID, Sequence[StoredEvent]], None],
        size: int = CACHE_SIZE,
        lease: float = LEASE_SECONDS,
    ) -> None:
        self.lease = lease
        """Seconds a look of the key watch lets remembered keys be trusted (0: never)."""
        self._read_rows = read_rows
        self._verify_rows = verify_rows
        self._size = size
        self._lock = threading.Lock()
        self._keys: OrderedDict[UUID, CachedKey] = OrderedDict()
        self._looks = 0
        """Looks the key watch has made so far; a read tagged ``n`` began after look ``n``."""
        self._confirmed: dict[UUID, int] = {}
        """Per remembered key, the tag of the last read of its rows that matched it."""
        self._changed: OrderedDict[UUID, int] = OrderedDict()
        """Per key, the look that last saw it change (the newest CACHE_SIZE keys)."""
        self._forgotten = 0
        """The newest look among changes dropped from ``_changed``: no read older is trusted."""
        self._lease_until = 0.0
        self.trusted_hits = 0
        """Hits decided without reading the key's rows (also counted in ``hits``)."""
        self.hits = 0
        self.misses = 0
        self.on_lookup: Callable[[bool], None] = _ignore
        """Told ``True`` on each hit and ``False`` on each miss (the composition root points
        it at the metrics)."""

    def rows(self, key_id: UUID) -> Sequence[StoredEvent]:
        """The key's stored rows: the one indexed read per request."""
        return self._read_rows(key_id)

    @property
    def looks(self) -> int:
        """The tag of a read of key rows that begins now (pass it to :meth:`compare`)."""
        return self._looks

    def watched(self, changed: Iterable[UUID], began: float | None) -> None:
        """The key watch looked at the store: ``changed`` are the keys with events committed
        since its previous look; ``began`` is when this look's query was sent (``time.
        monotonic()``). Every key event committed before then is in this look or an earlier
        one, so remembered keys not changed since they were confirmed may be trusted until
        ``began`` plus the lease. ``began`` is None for a look that saw only part of what was
        committed (more remains to read): its changes count, the lease is not renewed."""
        with self._lock:
            self._looks += 1
            for key_id in changed:
                self._changed[key_id] = self._looks
                self._changed.move_to_end(key_id)
            while len(self._changed) > self._size:
                _, look = self._changed.popitem(last=False)
                self._forgotten = max(self._forgotten, look)
            if began is not None and self.lease > 0:
                self._lease_until = max(self._lease_until, began + self.lease)

    def forget_confirmations(self) -> None:
        """A new key watch begins: no read made before now is trusted (it may predate
        changes that watch will never report)."""
        with self._lock:
            self._looks += 1
            self._forgotten = self._looks

    def lapse(self) -> None:
        """The key watch cannot look (its connection failed): trust nothing until it can."""
        with self._lock:
            self._lease_until = 0.0

    def trusted(self, key_id: UUID, secret_hash: str) -> CachedKey | None:
        """The remembered key if it may be trusted now without a read and admits a secret
        with this hash; ``None`` when the read must decide."""
        now = time.monotonic()
        with self._lock:
            if now >= self._lease_until:
                return None
            known = self._keys.get(key_id)
            confirmed = self._confirmed.get(key_id)
            if known is None or confirmed is None:
                return None
            if confirmed < self._changed.get(key_id, 0) or confirmed < self._forgotten:
                return None
            if not known.admits(secret_hash):
                return None
            self._keys.move_to_end(key_id)
            self.hits += 1
            self.trusted_hits += 1
        self.on_lookup(True)
        return known

    def compare(
        self, key_id: UUID, rows: Sequence[StoredEvent], looks: int | None = None
    ) -> CachedKey | Literal[False] | None:
        """The remembered key when the fingerprint of ``rows`` (the key's rows as read now by
        :meth:`rows`, or by the API without leaving its event loop) still matches; ``False``
        when there are no rows at all (an unknown name); ``None`` when it must be rebuilt.
        ``looks`` is :attr:`looks` taken before the read began: a match confirms the entry as
        of then."""
        if not rows:
            return False
        now = fingerprint(rows)
        with self._lock:
            known = self._keys.get(key_id)
            if known is not None and known.fingerprint == now:
                self._keys.move_to_end(key_id)
                if looks is not None:
                    self._confirmed[key_id] = looks
                self.hits += 1
            else:
                self.misses += 1
                known = None
        self.on_lookup(known is not None)
        return known

    def remember(
        self,
        key_id: UUID,
        version: int,
        name: str,
        scopes: frozenset[str],
        key_hash: str,
        revoked: bool,
        pins: Pins | None = None,
    ) -> None:
        """Remember a key the repository rebuilt at ``version`` from verified events.

        Its rows are read again and verified (each is remembered by the event checks, so this
        costs a digest per row); they are kept as its fingerprint only if they end at
        ``version``, otherwise the key changed meanwhile and is rebuilt on the next request."""
        looks = self._looks
        rows = self._read_rows(key_id)
        self._verify_rows(key_id, rows)
        now = fingerprint(rows)
        if not now or now[-1][0] != version:
            return
        key = CachedKey(now, name, scopes, key_hash, revoked, pins)
        with self._lock:
            self._keys[key_id] = key
            self._keys.move_to_end(key_id)
            self._confirmed[key_id] = looks
            while len(self._keys) > self._size:
                evicted, _ = self._keys.popitem(last=False)
                self._confirmed.pop(evicted, None)

    def forget(self, key_id: UUID) -> None:
        """Drop what is remembered of one key."""
        with self._lock:
            self._keys.pop(key_id, None)
            self._confirmed.pop(key_id, None)
