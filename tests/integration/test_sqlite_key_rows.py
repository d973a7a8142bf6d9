"""The API-key rows read on the event loop (SQLite): the same rows as the event store holds,
as committed at the moment of the read, on a connection that cannot write."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from ledger.keys.api_keys import ApiKey, key_aggregate_id
from ledger.runtime import LedgerRuntime
from projections.key_rows import SqliteKeyRows

pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


def test_reads_every_row_of_a_key_in_version_order_as_committed_now(
    runtime: LedgerRuntime,
) -> None:
    runtime.api_keys.issue("reader", ["read"], "test:suite")
    key_id = key_aggregate_id("reader")
    reader = SqliteKeyRows.open(runtime.database, runtime.ledger)
    try:
        before = asyncio.run(reader.rows(key_id))
        runtime.api_keys.revoke("reader", "rotate", "test:suite")  # after the reader opened
        after = asyncio.run(reader.rows(key_id))
    finally:
        asyncio.run(reader.close())

    assert [(r.originator_version, r.topic) for r in before] == [(1, ApiKey.Issued.TOPIC)]
    assert [(r.originator_version, r.topic) for r in after] == [
        (1, ApiKey.Issued.TOPIC),
        (2, ApiKey.Revoked.TOPIC),
    ]
    stored = runtime.ledger.recorder.select_events(key_id)
    assert [bytes(r.state) for r in after] == [bytes(r.state) for r in stored]


def test_the_reader_cannot_write_and_refuses_reads_once_closed(runtime: LedgerRuntime) -> None:
    reader = SqliteKeyRows.open(runtime.database, runtime.ledger)
    connection = reader._connection
    assert connection is not None
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        connection.execute("DELETE FROM stored_events")
    asyncio.run(reader.close())
    with pytest.raises(RuntimeError, match="closed"):
        asyncio.run(reader.rows(key_aggregate_id("reader")))
