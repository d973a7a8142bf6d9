"""Verified API keys are remembered per process, and every process sees a revocation at once.

Two runtimes open the same database, as two API processes would: the app authenticates from its
key cache, the other runtime revokes or reissues the key, and the app's very next request sees
it (a request re-reads the key's rows by their index and compares their fingerprint, or trusts
a key its process's key watch has vouched for within the lease, and a revocation waits the
lease out before it answers).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import psycopg
import pytest
from fastapi.testclient import TestClient
from structlog.testing import capture_logs

from api.main import create_app
from api.services import open_ledger
from api.settings import Settings
from ledger.keys.api_key_desk import ApiKeyDesk
from ledger.keys.api_keys import new_secret
from ledger.keys.cache import KeyCache
from ledger.runtime import LedgerRuntime
from projections.key_rows import AsyncKeyRows
from tests.conftest import PG_URL

PATH = "/v1/sources/none"  # any authenticated read: 404 once authenticated


@pytest.fixture
def other(settings: Settings) -> Iterator[LedgerRuntime]:
    """A second process's runtime on the same database."""
    runtime = open_ledger(settings)
    try:
        yield runtime
    finally:
        runtime.close()


def _cache(runtime: LedgerRuntime) -> KeyCache:
    cache = runtime.api_keys.cache
    assert cache is not None
    return cache


def _bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def _assert_unauthenticated(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 401, response.text
    assert response.json()["detail"] == "unknown or revoked API key"


def test_a_key_is_rebuilt_once_then_answered_from_the_cache(
    client: TestClient, runtime: LedgerRuntime
) -> None:
    secret = runtime.api_keys.issue("reader", ["read"], "test:suite")
    cache = _cache(runtime)
    hits, misses = cache.hits, cache.misses

    for _ in range(3):
        assert client.get(PATH, headers=_bearer(secret)).status_code == 404

    assert (cache.hits - hits, cache.misses - misses) == (2, 1)


def test_a_key_revoked_by_another_process_is_refused_on_the_very_next_request(
    client: TestClient, runtime: LedgerRuntime, other: LedgerRuntime
) -> None:
    secret = runtime.api_keys.issue("reader", ["read"], "test:suite")
    assert client.get(PATH, headers=_bearer(secret)).status_code == 404
    assert client.get(PATH, headers=_bearer(secret)).status_code == 404  # from the cache

    other.api_keys.revoke("reader", "left the team", "test:suite")

    _assert_unauthenticated(client.get(PATH, headers=_bearer(secret)))


def test_a_key_reissued_by_another_process_works_and_its_old_secret_does_not(
    client: TestClient, runtime: LedgerRuntime, other: LedgerRuntime
) -> None:
    old = runtime.api_keys.issue("reader", ["read"], "test:suite")
    assert client.get(PATH, headers=_bearer(old)).status_code == 404
    other.api_keys.revoke("reader", "rotate", "test:suite")
    _assert_unauthenticated(client.get(PATH, headers=_bearer(old)))

    new = other.api_keys.issue("reader", ["read"], "test:suite")

    assert client.get(PATH, headers=_bearer(new)).status_code == 404
    assert client.get(PATH, headers=_bearer(new)).status_code == 404  # from the cache
    _assert_unauthenticated(client.get(PATH, headers=_bearer(old)))


def test_a_wrong_secret_for_a_cached_key_is_refused(
    client: TestClient, runtime: LedgerRuntime
) -> None:
    secret = runtime.api_keys.issue("reader", ["read"], "test:suite")
    assert client.get(PATH, headers=_bearer(secret)).status_code == 404

    _assert_unauthenticated(client.get(PATH, headers=_bearer(secret[:-4] + "AAAA")))


def test_an_unknown_key_name_is_refused_without_rebuilding_anything(
    client: TestClient, runtime: LedgerRuntime
) -> None:
    cache = _cache(runtime)
    misses = cache.misses

    _assert_unauthenticated(client.get(PATH, headers=_bearer(new_secret("nobody"))))

    assert cache.misses == misses


def test_a_cached_key_is_checked_on_the_event_loop_not_through_the_recorder(
    client: TestClient, runtime: LedgerRuntime
) -> None:
    secret = runtime.api_keys.issue("reader", ["read"], "test:suite")
    assert client.get(PATH, headers=_bearer(secret)).status_code == 404  # rebuilt once
    cache = _cache(runtime)
    read_in_thread = cache._read_rows
    calls: list[object] = []
    cache._read_rows = lambda key_id: calls.append(key_id) or read_in_thread(key_id)  # type: ignore[method-assign]
    hits = cache.hits

    assert client.get(PATH, headers=_bearer(secret)).status_code == 404

    assert cache.hits - hits == 1
    assert calls == []  # asyncpg on PostgreSQL, a read-only connection on SQLite


@pytest.fixture
def other_client(settings: Settings, other: LedgerRuntime) -> Iterator[TestClient]:
    """A second API process's app, on the same database, with its own key cache."""
    with TestClient(create_app(settings, other), raise_server_exceptions=False) as test_client:
        yield test_client


def test_a_key_revoked_through_one_app_is_refused_by_another_app_on_the_very_next_request(
    client: TestClient, other_client: TestClient
) -> None:
    keys_a: ApiKeyDesk = client.app.state.services.api_keys  # type: ignore[attr-defined]
    secret = keys_a.issue("reader", ["read"], "test:suite")
    for app_client in (client, other_client, client, other_client):  # both caches warm
        assert app_client.get(PATH, headers=_bearer(secret)).status_code == 404

    keys_a.revoke("reader", "left the team", "test:suite")

    _assert_unauthenticated(other_client.get(PATH, headers=_bearer(secret)))
    _assert_unauthenticated(client.get(PATH, headers=_bearer(secret)))


def _key_row_connection_pids(app_client: TestClient) -> list[int]:
    reader: AsyncKeyRows = app_client.app.state.key_rows  # type: ignore[attr-defined]
    return reader.server_pids()


# PostgreSQL only: SQLite reads the rows through the event store's recorder.
@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_a_lost_key_row_connection_is_replaced_and_a_revocation_still_holds_at_once(
    client: TestClient, other_client: TestClient, backend: str
) -> None:
    keys_a: ApiKeyDesk = client.app.state.services.api_keys  # type: ignore[attr-defined]
    secret = keys_a.issue("reader", ["read"], "test:suite")
    assert other_client.get(PATH, headers=_bearer(secret)).status_code == 404
    assert other_client.get(PATH, headers=_bearer(secret)).status_code == 404  # from the cache
    pids = _key_row_connection_pids(other_client)
    assert pids
    with psycopg.connect(PG_URL, autocommit=True) as admin:
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))

    keys_a.revoke("reader", "left the team", "test:suite")

    _assert_unauthenticated(other_client.get(PATH, headers=_bearer(secret)))
    assert not set(_key_row_connection_pids(other_client)) & set(pids)
    renewed = keys_a.issue("reader", ["read"], "test:suite")
    assert other_client.get(PATH, headers=_bearer(renewed)).status_code == 404


@pytest.fixture
def leased(settings: Settings) -> Iterator[tuple[TestClient, LedgerRuntime]]:
    """An app and a second process's runtime with a lease of half a second on remembered keys
    (the default), long enough that a test can see the app trust a key."""
    leased_settings = settings.model_copy(update={"key_lease_ms": 500})
    runtime = open_ledger(leased_settings)
    other = open_ledger(leased_settings)
    try:
        with TestClient(create_app(leased_settings, runtime)) as test_client:
            yield test_client, other
    finally:
        other.close()
        runtime.close()


def _trusted_once(app_client: TestClient, secret: str) -> None:
    """Request until the app admits the key without reading its rows (it does once its key
    watch has looked after the key was confirmed)."""
    cache = app_client.app.state.services.api_keys.cache  # type: ignore[attr-defined]
    trusted = cache.trusted_hits
    for _ in range(50):
        assert app_client.get(PATH, headers=_bearer(secret)).status_code == 404
        if cache.trusted_hits > trusted:
            return
        time.sleep(0.01)
    raise AssertionError("the key was never trusted from the cache")


@pytest.fixture
def trusted(
    leased: tuple[TestClient, LedgerRuntime],
) -> tuple[TestClient, LedgerRuntime, str]:
    """A key issued by the other process that the app now trusts within the lease."""
    app_client, other = leased
    secret = other.api_keys.issue("reader", ["read"], "test:suite")
    _trusted_once(app_client, secret)
    return app_client, other, secret


def test_a_process_whose_key_watch_hangs_still_refuses_a_revoked_key_on_the_very_next_request(
    trusted: tuple[TestClient, LedgerRuntime, str],
) -> None:
    """The attack on the lease: the process stops hearing about key events (a stalled look)
    while it trusts the key. The revocation answers only after the lease has run out, so the
    process's next request reads the key's rows and refuses it."""
    app_client, other, secret = trusted
    reader: AsyncKeyRows = app_client.app.state.key_rows  # type: ignore[attr-defined]

    async def stalled(after: int, limit: int) -> list[object]:
        await asyncio.Event().wait()  # never answers
        return []

    reader.changes = stalled  # type: ignore[method-assign,assignment]

    other.api_keys.revoke("reader", "left the team", "test:suite")

    _assert_unauthenticated(app_client.get(PATH, headers=_bearer(secret)))


def test_a_key_revoked_elsewhere_is_refused_by_a_process_that_trusts_it(
    trusted: tuple[TestClient, LedgerRuntime, str],
) -> None:
    app_client, other, secret = trusted

    other.api_keys.revoke("reader", "left the team", "test:suite")

    _assert_unauthenticated(app_client.get(PATH, headers=_bearer(secret)))
    renewed = other.api_keys.issue("reader", ["read"], "test:suite")
    _trusted_once(app_client, renewed)  # the reissued key is trusted again
    _assert_unauthenticated(app_client.get(PATH, headers=_bearer(secret)))


def test_a_failing_key_watch_lapses_the_lease_and_requests_read_the_rows_again(
    trusted: tuple[TestClient, LedgerRuntime, str],
) -> None:
    """The failure is logged once, not at every look, and the recovery once; then keys are
    trusted again."""
    app_client, _, secret = trusted
    reader: AsyncKeyRows = app_client.app.state.key_rows  # type: ignore[attr-defined]
    watch = app_client.app.state.key_watch  # type: ignore[attr-defined]
    app_cache = app_client.app.state.services.api_keys.cache  # type: ignore[attr-defined]

    async def failing(after: int, limit: int) -> list[object]:
        raise ConnectionError("the database went away")

    working = reader.changes
    with capture_logs() as logs:
        reader.changes = failing  # type: ignore[method-assign,assignment]
        for _ in range(300):
            if watch.failures >= 3:
                break
            time.sleep(0.01)
    assert watch.failures >= 3
    assert [e["error"] for e in logs if e["event"] == "key_watch_failed"] == ["ConnectionError"]
    trusted = app_cache.trusted_hits

    assert app_client.get(PATH, headers=_bearer(secret)).status_code == 404

    assert app_cache.trusted_hits == trusted  # decided by a read of the key's rows
    with capture_logs() as logs:
        reader.changes = working  # type: ignore[method-assign]
        for _ in range(300):
            if not watch.failures:
                break
            time.sleep(0.01)
    assert not watch.failures
    assert [e["event"] for e in logs if e["event"].startswith("key_watch")] == [
        "key_watch_recovered"
    ]
    _trusted_once(app_client, secret)
