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
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from ledger.access.attributes import Pins

Fingerprint = tuple[tuple[int, bytes], ...]
"""(version, SHA-256 of the stored state) of each of a key's rows, in version order."""

CACHE_SIZE = 10_000
"""Keys remembered per process (a few hundred bytes each)."""


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
    ) -> None:
        self._read_rows = read_rows
        self._verify_rows = verify_rows
        self._size = size
        self._lock = threading.Lock()
        self._keys: OrderedDict[UUID, CachedKey] = OrderedDict()
        self.hits = 0
        self.misses = 0
        self.on_lookup: Callable[[bool], None] = _ignore
        """Told ``True`` on each hit and ``False`` on each miss (the composition root points
        it at the metrics)."""

    def rows(self, key_id: UUID) -> Sequence[StoredEvent]:
        """The key's stored rows: the one indexed read per request."""
        return self._read_rows(key_id)

    def compare(
        self, key_id: UUID, rows: Sequence[StoredEvent]
    ) -> CachedKey | Literal[False] | None:
        """The remembered key when the fingerprint of ``rows`` (the key's rows as read now by
        :meth:`rows`, or by the API without leaving its event loop) still matches; ``False``
        when there are no rows at all (an unknown name); ``None`` when it must be rebuilt."""
        if not rows:
            return False
        now = fingerprint(rows)
        with self._lock:
            known = self._keys.get(key_id)
            if known is not None and known.fingerprint == now:
                self._keys.move_to_end(key_id)
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
        rows = self._read_rows(key_id)
        self._verify_rows(key_id, rows)
        now = fingerprint(rows)
        if not now or now[-1][0] != version:
            return
        key = CachedKey(now, name, scopes, key_hash, revoked, pins)
        with self._lock:
            self._keys[key_id] = key
            self._keys.move_to_end(key_id)
            while len(self._keys) > self._size:
                self._keys.popitem(last=False)

    def forget(self, key_id: UUID) -> None:
        """Drop what is remembered of one key."""
        with self._lock:
            self._keys.pop(key_id, None)
