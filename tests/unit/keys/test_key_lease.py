"""Trusting a remembered API key without reading its rows (ledger/keys/cache.py).

A key is trusted only within the key watch's lease, and only if a read of its rows that began
after the watch last saw it change confirmed it. Each test drives the watch's looks by hand.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from uuid import UUID, uuid4

from eventsourcing.persistence import StoredEvent

from ledger.keys.api_keys import hash_secret
from ledger.keys.cache import KeyCache, poll_seconds, revocation_wait

SECRET = "pl_reader_secret"
LEASE = 60.0  # long enough that no test's own run time lapses it


class Store:
    """The key rows a test's cache reads."""

    def __init__(self) -> None:
        self.rows: dict[UUID, list[StoredEvent]] = {}

    def add(self, key_id: UUID) -> None:
        rows = self.rows.setdefault(key_id, [])
        rows.append(
            StoredEvent(key_id, len(rows) + 1, "provledger.api_key.issued", b"%d" % len(rows))
        )

    def read(self, key_id: UUID) -> Sequence[StoredEvent]:
        return list(self.rows.get(key_id, []))


def _cache(store: Store, size: int = 100, lease: float = LEASE) -> KeyCache:
    return KeyCache(store.read, lambda key_id, rows: None, size=size, lease=lease)


def _remember(cache: KeyCache, store: Store, key_id: UUID) -> None:
    version = len(store.rows[key_id])
    cache.remember(key_id, version, "reader", frozenset({"read"}), hash_secret(SECRET), False)


def _trusted(cache: KeyCache, key_id: UUID, secret: str = SECRET) -> bool:
    return cache.trusted(key_id, hash_secret(secret)) is not None


def _remembered() -> tuple[Store, KeyCache, UUID]:
    """A cache that remembers one key, confirmed before the watch has looked."""
    store = Store()
    key_id = uuid4()
    store.add(key_id)
    cache = _cache(store)
    _remember(cache, store, key_id)
    return store, cache, key_id


def _setup() -> tuple[Store, KeyCache, UUID]:
    store = Store()
    key_id = uuid4()
    store.add(key_id)
    cache = _cache(store)
    cache.watched((), time.monotonic())  # the watch's first look: the lease begins
    return store, cache, key_id


def test_a_key_confirmed_after_the_watch_looked_is_trusted_within_the_lease() -> None:
    store, cache, key_id = _setup()
    _remember(cache, store, key_id)

    assert _trusted(cache, key_id)
    assert cache.trusted_hits == cache.hits == 1


def test_nothing_is_trusted_before_the_watch_has_looked() -> None:
    _, cache, key_id = _remembered()

    assert not _trusted(cache, key_id)


def test_nothing_is_trusted_once_the_lease_has_run_out() -> None:
    store, _, key_id = _setup()
    stale = _cache(store, lease=0.001)
    stale.watched((), time.monotonic() - 1.0)  # a look that began a second ago
    _remember(stale, store, key_id)

    assert not _trusted(stale, key_id)


def test_a_lapsed_watch_trusts_nothing_until_it_looks_again() -> None:
    store, cache, key_id = _setup()
    _remember(cache, store, key_id)

    cache.lapse()
    assert not _trusted(cache, key_id)
    cache.watched((), time.monotonic())
    assert _trusted(cache, key_id)


def test_a_key_the_watch_saw_change_after_it_was_read_is_not_trusted() -> None:
    store, cache, key_id = _setup()
    _remember(cache, store, key_id)  # read before the change below was seen
    store.add(key_id)  # revoked elsewhere

    cache.watched([key_id], time.monotonic())

    assert not _trusted(cache, key_id)


def test_a_read_that_began_before_the_change_was_seen_confirms_nothing() -> None:
    """The read and the look race: the read began before the look that saw the change was
    applied, so it may predate the change, even if it ends after."""
    store, cache, key_id = _setup()
    _remember(cache, store, key_id)
    looks = cache.looks  # a read of the key's rows begins here...
    rows = store.read(key_id)
    cache.watched([key_id], time.monotonic())  # ...a look sees a change meanwhile...
    assert cache.compare(key_id, rows, looks)  # ...and the read still matches the entry

    assert not _trusted(cache, key_id)


def test_a_read_after_the_change_was_seen_confirms_the_key_again() -> None:
    store, cache, key_id = _setup()
    _remember(cache, store, key_id)
    cache.watched([key_id], time.monotonic())  # a change this process had already read
    assert not _trusted(cache, key_id)

    looks = cache.looks
    assert cache.compare(key_id, store.read(key_id), looks)

    assert _trusted(cache, key_id)


def test_another_keys_change_does_not_untrust_a_key() -> None:
    store, cache, key_id = _setup()
    _remember(cache, store, key_id)

    cache.watched([uuid4()], time.monotonic())

    assert _trusted(cache, key_id)


def test_a_secret_the_remembered_key_does_not_admit_is_left_to_the_read() -> None:
    """A refusal is never taken on trust: the key may have been reissued elsewhere."""
    store, cache, key_id = _setup()
    _remember(cache, store, key_id)

    assert not _trusted(cache, key_id, "pl_reader_other")
    assert cache.trusted_hits == 0


def test_a_look_that_read_only_part_of_the_log_does_not_renew_the_lease() -> None:
    _, cache, key_id = _remembered()

    cache.watched([], None)

    assert not _trusted(cache, key_id)


def test_a_new_watch_trusts_no_read_made_before_it_began() -> None:
    store, cache, key_id = _setup()
    _remember(cache, store, key_id)

    cache.forget_confirmations()
    cache.watched((), time.monotonic())
    assert not _trusted(cache, key_id)
    _remember(cache, store, key_id)
    assert _trusted(cache, key_id)


def test_changes_forgotten_past_the_size_untrust_every_older_read() -> None:
    store = Store()
    key_id = uuid4()
    store.add(key_id)
    cache = _cache(store, size=2)
    cache.watched((), time.monotonic())
    _remember(cache, store, key_id)

    cache.watched([uuid4(), uuid4(), uuid4()], time.monotonic())  # one change is forgotten

    assert not _trusted(cache, key_id)
    _remember(cache, store, key_id)
    assert _trusted(cache, key_id)


def test_a_revocation_waits_longer_than_the_lease_and_the_watch_looks_within_it() -> None:
    assert revocation_wait(0.5) > 0.5
    assert revocation_wait(0.0) == 0.0
    assert poll_seconds(0.5) * 4 < 0.5
