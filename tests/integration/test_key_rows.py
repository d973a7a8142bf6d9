"""The API-key rows read on the event loop (PostgreSQL): one connection per read, never a stale
answer when a connection is lost."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import psycopg
import pytest

from ledger.keys.api_keys import ApiKey, key_aggregate_id
from ledger.runtime import LedgerRuntime
from projections.key_rows import AsyncKeyRows
from tests.conftest import PG_URL

pytestmark = pytest.mark.parametrize("backend", ["postgres"], indirect=True)


def _terminate(pid: int) -> None:
    """End one server process and wait until PostgreSQL no longer lists it."""
    with psycopg.connect(PG_URL, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        for _ in range(500):
            row = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,))
            if row.fetchone() == (0,):
                return
            time.sleep(0.01)
    pytest.fail(f"server process {pid} did not end")


def test_reads_every_row_of_a_key_in_version_order(runtime: LedgerRuntime) -> None:
    runtime.api_keys.issue("reader", ["read"], "test:suite")
    runtime.api_keys.revoke("reader", "rotate", "test:suite")
    key_id = key_aggregate_id("reader")

    async def read() -> list[tuple[int, str]]:
        reader = await AsyncKeyRows.open(runtime.database, runtime.ledger)
        try:
            return [(row.originator_version, row.topic) for row in await reader.rows(key_id)]
        finally:
            await reader.close()

    assert asyncio.run(read()) == [
        (1, ApiKey.Issued.TOPIC),
        (2, ApiKey.Revoked.TOPIC),
    ]


def test_concurrent_reads_share_at_most_size_connections(runtime: LedgerRuntime) -> None:
    runtime.api_keys.issue("reader", ["read"], "test:suite")
    key_id = key_aggregate_id("reader")

    async def read() -> tuple[list[int], list[int]]:
        reader = await AsyncKeyRows.open(runtime.database, runtime.ledger, size=2)
        try:
            counts = [len(rows) for rows in await asyncio.gather(*[reader.rows(key_id)] * 12)]
            return counts, reader.server_pids()
        finally:
            await reader.close()

    counts, pids = asyncio.run(read())

    assert counts == [1] * 12
    assert 1 <= len(pids) <= 2


def test_a_connection_lost_unnoticed_is_replaced_and_the_read_made_again(
    runtime: LedgerRuntime,
) -> None:
    runtime.api_keys.issue("reader", ["read"], "test:suite")
    key_id = key_aggregate_id("reader")

    async def read() -> tuple[list[int], list[int], list[int]]:
        reader = await AsyncKeyRows.open(runtime.database, runtime.ledger, size=1)
        try:
            before = reader.server_pids()
            # Blocking: the event loop does not run, so the client has not seen the loss
            # when the next read starts, and the read itself fails on the dead connection.
            _terminate(before[0])
            runtime.api_keys.revoke("reader", "left the team", "test:suite")
            rows = await reader.rows(key_id)
            return before, reader.server_pids(), [row.originator_version for row in rows]
        finally:
            await reader.close()

    before, after, versions = asyncio.run(read())

    assert versions == [1, 2]  # the revocation, read on the new connection
    assert len(after) == 1
    assert after != before


def test_a_read_whose_lost_connection_cannot_be_replaced_fails_rather_than_answering(
    runtime: LedgerRuntime,
) -> None:
    runtime.api_keys.issue("reader", ["read"], "test:suite")
    key_id = key_aggregate_id("reader")

    async def read() -> None:
        opened = await AsyncKeyRows.open(runtime.database, runtime.ledger, size=1)
        statement = opened.statement
        await opened.close()
        connections: list[asyncpg.Connection] = []

        async def connect() -> asyncpg.Connection:
            if connections:
                raise ConnectionRefusedError("the database is down")
            connections.append(await asyncpg.connect(PG_URL))
            return connections[-1]

        reader = AsyncKeyRows(connect, statement, size=1)
        assert len(await reader.rows(key_id)) == 1
        _terminate(connections[0].get_server_pid())
        with pytest.raises(ConnectionRefusedError, match="the database is down"):
            await reader.rows(key_id)
        await reader.close()

    asyncio.run(read())
