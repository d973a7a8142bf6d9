"""The API-key rows read on the event loop: authentication without a thread hop on PostgreSQL.

Every authenticated request reads its key's rows once (``ledger/keys/cache.py``) so that a
revocation made by any process holds on the very next request. Through the event store's
recorder that read is blocking, so every request hopped to a worker thread and back (measured
alone, the hop and the recorder's pool made an authentication cost a third more CPU).
:class:`AsyncKeyRows` makes the same indexed read (the events table's primary key,
``originator_id`` then ``originator_version``) with asyncpg from the event loop; only a key
whose rows changed is rebuilt in a worker thread.

The read is one round trip on a connection kept for it, not a pool's: an asyncpg pool resets a
connection when it is released (``RESET ALL``, ``UNLISTEN *`` and more: a second round trip per
request), and its acquire and release cost about as much CPU again. This read changes no
session state, so nothing needs resetting. A connection found closed, or lost during the read,
is replaced and the read made again on a new one; the answer always comes from a read made
during the request, never from what the cache remembers alone.

On SQLite, :class:`SqliteKeyRows` makes the same read on the event loop itself, on a read-only
connection of its own: a primary-key lookup in a local file takes tens of microseconds, less
than the hop to a worker thread and back, so it is made in place rather than awaited. Each read
is its own transaction, so it sees every write committed before it (WAL readers never wait for
the writer).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

import asyncpg
from eventsourcing.persistence import StoredEvent

if TYPE_CHECKING:
    from ledger.eventlog.application import Ledger
    from ledger.eventlog.database import DatabaseConfig

POOL_SIZE = 4
"""Connections per API process for these reads (each serves one read at a time)."""

LOOK_LIMIT = 2_000
"""Events one look of the key watch reads at most; with more committed, it looks again."""

Change = tuple[int, UUID, str]
"""(notification id, originator id, topic) of one stored event."""


def _quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def stored_rows(key_id: UUID, records: Sequence[Any]) -> list[StoredEvent]:
    """The records of either reader's statement (asyncpg records, ``sqlite3.Row``) as the
    event store's rows."""
    return [
        StoredEvent(
            originator_id=key_id,
            originator_version=record["originator_version"],
            topic=record["topic"],
            state=bytes(record["state"]),
        )
        for record in records
    ]


class AsyncKeyRows:
    """Up to ``size`` asyncpg connections reading one key's stored rows (PostgreSQL only)."""

    def __init__(
        self, connect: Callable[[], Awaitable[Any]], statement: str, size: int = POOL_SIZE
    ) -> None:
        self._connect = connect
        self._statement = statement
        self._slots = asyncio.Semaphore(size)
        self._idle: list[Any] = []
        self._busy: set[Any] = set()
        self._closed = False
        self._changes = ""
        self._position = ""

    @classmethod
    async def open(
        cls, database: DatabaseConfig, ledger: Ledger, size: int = POOL_SIZE
    ) -> AsyncKeyRows:
        """Connect to the ledger's PostgreSQL database, reading its events table."""
        recorder: Any = ledger.recorder
        table = f"{_quoted(recorder.datastore.schema)}.{_quoted(recorder.events_table_name)}"
        statement = (
            f"SELECT originator_version, topic, state FROM {table} "  # noqa: S608 - identifiers
            "WHERE originator_id = $1 ORDER BY originator_version"
        )

        def connect() -> Awaitable[Any]:
            connection: Awaitable[Any] = asyncpg.connect(
                host=database.host,
                port=database.port,
                user=database.user,
                password=database.password or None,
                database=database.dbname,
                server_settings={"application_name": "provledger-api-keys"},
            )
            return connection

        rows = cls(connect, statement, size)
        rows._changes = (
            f"SELECT notification_id, originator_id, topic FROM {table} "  # noqa: S608
            "WHERE notification_id > $1 ORDER BY notification_id LIMIT $2"
        )
        rows._position = f"SELECT COALESCE(MAX(notification_id), 0) FROM {table}"  # noqa: S608
        rows._idle.append(await connect())  # a wrong address fails at start, not per request
        return rows

    @property
    def statement(self) -> str:
        """The query it makes, with the key's id as ``$1``."""
        return self._statement

    async def rows(self, key_id: UUID) -> Sequence[StoredEvent]:
        """The key's stored rows, in version order, as read now."""
        async with self._slots:
            return stored_rows(key_id, await self._fetch(self._statement, (key_id,), retry=True))

    async def position(self) -> int:
        """The newest notification id committed."""
        async with self._slots:
            [record] = await self._fetch(self._position, (), retry=True)
            return int(record[0])

    async def changes(self, after: int, limit: int = LOOK_LIMIT) -> list[Change]:
        """The events committed after notification id ``after``, oldest first, at most
        ``limit``."""
        async with self._slots:
            records = await self._fetch(self._changes, (after, limit), retry=True)
        return [(r[0], UUID(str(r[1])), r[2]) for r in records]

    async def _fetch(self, statement: str, args: tuple[Any, ...], retry: bool) -> Any:
        connection = await self._connection()
        self._busy.add(connection)
        try:
            records = await connection.fetch(statement, *args)
        except Exception:
            lost = connection.is_closed()
            connection.terminate()
            if lost and retry:  # the server or network dropped it: read again on a new one
                return await self._fetch(statement, args, retry=False)
            raise
        except BaseException:  # cancelled mid-read: its state is unknown, so it is not reused
            connection.terminate()
            raise
        finally:
            self._busy.discard(connection)
        if self._closed:
            await connection.close()
        else:
            self._idle.append(connection)
        return records

    async def _connection(self) -> Any:
        """An idle open connection, or a new one (the semaphore bounds how many there are)."""
        if self._closed:
            raise RuntimeError("the API-key row reader is closed")
        while self._idle:
            connection = self._idle.pop()
            if not connection.is_closed():
                return connection
            connection.terminate()
        return await self._connect()

    def server_pids(self) -> list[int]:
        """The PostgreSQL process ids of the open connections."""
        return [c.get_server_pid() for c in (*self._idle, *self._busy) if not c.is_closed()]

    async def close(self) -> None:
        """Close every idle connection; one still reading is closed when its read ends."""
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.close()


class SqliteKeyRows:
    """One read-only SQLite connection reading one key's stored rows on the event loop."""

    def __init__(self, path: Path, table: str) -> None:
        self._connection: sqlite3.Connection | None = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
        )
        self._connection.row_factory = sqlite3.Row  # read by column name, as asyncpg's records
        self._statement = (
            f"SELECT originator_version, topic, state FROM {_quoted(table)} "  # noqa: S608
            "WHERE originator_id = ? ORDER BY originator_version"
        )
        self._changes = (
            f"SELECT rowid, originator_id, topic FROM {_quoted(table)} "  # noqa: S608
            "WHERE rowid > ? ORDER BY rowid LIMIT ?"
        )
        self._position = f"SELECT COALESCE(MAX(rowid), 0) FROM {_quoted(table)}"  # noqa: S608
        self._connection.execute(self._statement, ("",)).fetchall()  # a wrong table fails now

    @classmethod
    def open(cls, database: DatabaseConfig, ledger: Ledger) -> SqliteKeyRows:
        """Open on the ledger's SQLite file, reading its events table."""
        assert database.sqlite_path is not None
        recorder: Any = ledger.recorder
        return cls(database.sqlite_path, recorder.events_table_name)

    async def rows(self, key_id: UUID) -> Sequence[StoredEvent]:
        """The key's stored rows, in version order, as read now."""
        return stored_rows(key_id, self._open().execute(self._statement, (key_id.hex,)).fetchall())

    async def position(self) -> int:
        """The newest notification id (the events table's ``rowid``) committed."""
        return int(self._open().execute(self._position).fetchone()[0])

    async def changes(self, after: int, limit: int = LOOK_LIMIT) -> list[Change]:
        """The events committed after notification id ``after``, oldest first, at most
        ``limit``."""
        records = self._open().execute(self._changes, (after, limit)).fetchall()
        return [(r[0], UUID(hex=r[1]), r[2]) for r in records]

    def _open(self) -> sqlite3.Connection:
        if self._connection is None:
            raise RuntimeError("the API-key row reader is closed")
        return self._connection

    async def close(self) -> None:
        """Close the connection."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None


async def open_key_rows(
    database: DatabaseConfig, ledger: Ledger
) -> AsyncKeyRows | SqliteKeyRows | None:
    """The event-loop reader of API-key rows: asyncpg on PostgreSQL, a read-only connection on
    a SQLite file (None for a SQLite database not yet on disk)."""
    if database.kind == "postgresql":
        return await AsyncKeyRows.open(database, ledger)
    if database.sqlite_path is not None and database.sqlite_path.exists():
        return SqliteKeyRows.open(database, ledger)
    return None
