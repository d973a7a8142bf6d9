"""The API-key rows read on the event loop: authentication without a thread hop on PostgreSQL.

Every authenticated request reads its key's rows once (``ledger/keys/cache.py``) so that a
revocation made by any process holds on the very next request. Through the event store's
recorder that read is blocking, so every request hopped to a worker thread and back (measured
alone, the hop and the recorder's pool made an authentication cost a third more CPU).
:class:`AsyncKeyRows` makes the same indexed read (the events table's primary key,
``originator_id`` then ``originator_version``) with asyncpg from the event loop; only a key
whose rows changed is rebuilt in a worker thread.
SQLite keeps the blocking read: it is a local file read, and there is no async driver for the
event store's file there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

import asyncpg
from eventsourcing.persistence import StoredEvent

if TYPE_CHECKING:
    from ledger.eventlog.application import Ledger
    from ledger.eventlog.database import DatabaseConfig

POOL_SIZE = 4
"""Connections per API process for these reads (each holds one for a single query)."""


def _quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


class AsyncKeyRows:
    """A small asyncpg pool reading one key's stored rows (PostgreSQL only)."""

    def __init__(self, pool: Any, statement: str) -> None:
        self._pool = pool
        self._statement = statement

    @classmethod
    async def open(cls, database: DatabaseConfig, ledger: Ledger) -> AsyncKeyRows:
        """Connect to the ledger's PostgreSQL database, reading its events table."""
        recorder: Any = ledger.recorder
        table = f"{_quoted(recorder.datastore.schema)}.{_quoted(recorder.events_table_name)}"
        statement = (
            f"SELECT originator_version, topic, state FROM {table} "  # noqa: S608 - identifiers
            "WHERE originator_id = $1 ORDER BY originator_version"
        )
        pool = await asyncpg.create_pool(
            host=database.host,
            port=database.port,
            user=database.user,
            password=database.password or None,
            database=database.dbname,
            min_size=1,
            max_size=POOL_SIZE,
            server_settings={"application_name": "provledger-api-keys"},
        )
        return cls(pool, statement)

    async def rows(self, key_id: UUID) -> Sequence[StoredEvent]:
        """The key's stored rows, in version order."""
        records = await self._pool.fetch(self._statement, key_id)
        return [
            StoredEvent(
                originator_id=key_id,
                originator_version=record["originator_version"],
                topic=record["topic"],
                state=bytes(record["state"]),
            )
            for record in records
        ]

    async def close(self) -> None:
        """Close the pool."""
        await self._pool.close()
