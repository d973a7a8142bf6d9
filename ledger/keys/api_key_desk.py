"""API-key commands: issue, revoke, authenticate and list keys kept as ledger aggregates."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import StoredEvent

from ledger.access.attributes import Pins
from ledger.errors import InvalidInput, NotFound
from ledger.eventlog.port import EventLog
from ledger.keys.api_keys import (
    ApiKey,
    Caller,
    check_name,
    check_pinnable,
    granted_scopes,
    hash_secret,
    key_aggregate_id,
    name_in_secret,
    new_secret,
    parse_scopes,
)
from ledger.keys.cache import LEASE_SECONDS, CachedKey, KeyCache, revocation_wait


class ApiKeyDesk:
    """The API keys of one ledger; only the hash of a secret is ever stored.

    With a ``cache`` (:mod:`ledger.keys.cache`), authentication rebuilds a key only when its
    stored rows changed since this process last verified them."""

    def __init__(self, log: EventLog, cache: KeyCache | None = None) -> None:
        self.log = log
        self.cache = cache
        self.revocation_wait = revocation_wait(LEASE_SECONDS if cache is None else cache.lease)
        """Seconds a committed revocation waits before it returns: the lease of every
        process's key cache (this process's, which all share), and a margin
        (``ledger/keys/cache.py``)."""

    def issue(self, name: str, scopes: Sequence[str], actor: str, pins: Pins | None = None) -> str:
        """Issue a key and return its secret; the ledger keeps only the hash. ``pins`` bound
        what the key's requests may claim as their principal (``docs/access.md``)."""
        check_name(name)
        scope_list = parse_scopes(scopes)
        check_pinnable(scope_list, pins)
        secret = new_secret(name)
        try:
            key: ApiKey = self.log.repository.get(key_aggregate_id(name))
        except AggregateNotFoundError:
            key = ApiKey.issue(name, scope_list, hash_secret(secret), actor, pins)
        else:
            key.reissue(scope_list, hash_secret(secret), actor, pins)
        self.log.commit(key)
        return secret

    def revoke(self, name: str, reason: str, actor: str) -> int:
        """Revoke the key called ``name``; returns the revocation's log position. Once
        committed it waits for every process's lease on remembered keys to lapse
        (:attr:`revocation_wait`), so that when it returns no process admits the key any
        more (and no receipt opens under it: the receipts it opened expire,
        ``processes/expiry_recorded.py``)."""
        check_name(name)
        if len(reason) > 500:
            raise InvalidInput("reason", "max-length", "reason is at most 500 characters")
        key = self._get_key(name)
        key.revoke(reason, actor)
        recordings = self.log.commit(key)
        time.sleep(self.revocation_wait)
        return recordings[-1].notification.id

    def authenticate(self, secret: str) -> Caller | None:
        """Return the principal a secret stands for, or None if unknown or revoked."""
        key_id = self.key_id_of(secret)
        if key_id is not None and self.cache is not None:
            looks = self.cache.looks
            rows = self.cache.rows(key_id)
            decided, principal = self.authenticate_cached(key_id, secret, rows, looks)
            if decided:
                return principal
        return self.rebuild(secret)

    def rebuild(self, secret: str) -> Caller | None:
        """Authenticate from the key's verified events (and remember them in the cache)."""
        name = name_in_secret(secret)
        if name is None:
            return None
        key_id = key_aggregate_id(name)
        cache = self.cache
        try:
            key: ApiKey = self.log.repository.get(key_id)
        except AggregateNotFoundError:
            return None
        if cache is not None:
            cache.remember(
                key_id,
                key.version,
                key.name,
                granted_scopes(key.scopes, key.pins),
                key.key_hash,
                key.revoked,
                key.pins,
            )
        if key.revoked or not key.matches(secret):
            return None
        return Caller(name=key.name, scopes=granted_scopes(key.scopes, key.pins), pins=key.pins)

    def key_id_of(self, secret: str) -> UUID | None:
        """The aggregate id of the key a secret names (None: not a provledger key)."""
        name = name_in_secret(secret)
        return None if name is None else key_aggregate_id(name)

    def authenticate_trusted(self, key_id: UUID, secret: str) -> Caller | None:
        """The principal of a remembered key that may be trusted without reading its rows
        (:meth:`ledger.keys.cache.KeyCache.trusted`) and admits ``secret``; None when a read
        of the key's rows must decide."""
        if self.cache is None:
            return None
        known = self.cache.trusted(key_id, hash_secret(secret))
        return None if known is None else _principal_of(known)

    def authenticate_cached(
        self, key_id: UUID, secret: str, rows: Sequence[StoredEvent], looks: int | None = None
    ) -> tuple[bool, Caller | None]:
        """Decide from the key cache and the stored ``rows`` of the key ``key_id`` (which
        :meth:`key_id_of` found in ``secret``) alone, when they suffice:
        ``(True, principal or None)``; ``(False, None)`` when the key must be rebuilt from
        its events (:meth:`rebuild` does it). ``looks`` is the cache's
        :attr:`~ledger.keys.cache.KeyCache.looks` taken before ``rows`` were read."""
        if self.cache is None:
            return False, None
        known = self.cache.compare(key_id, rows, looks)
        if known is False:
            return True, None
        if known is None:
            return False, None
        if not known.admits(hash_secret(secret)):
            return True, None
        return True, _principal_of(known)

    def list(self) -> list[dict[str, Any]]:
        """Every key name with its scopes and status (never a hash or secret)."""
        names: list[str] = []
        for notification in self.log.notifications([ApiKey.Issued.TOPIC]):
            names.append(self.log.decode(notification).name)
        keys = [self._get_key(name) for name in names]
        return [
            {
                "name": key.name,
                "scopes": key.scopes,
                "status": "revoked" if key.revoked else "active",
                "pins": None if key.pins is None else key.pins.to_json(),
                "issued_at": key.created_on,
            }
            for key in keys
        ]

    def _get_key(self, name: str) -> ApiKey:
        try:
            key: ApiKey = self.log.repository.get(key_aggregate_id(name))
        except AggregateNotFoundError:
            raise NotFound(f"no API key named {name!r}") from None
        return key


def _principal_of(known: CachedKey) -> Caller:
    """The principal a remembered key stands for."""
    return Caller(name=known.name, scopes=known.scopes, pins=known.pins)
