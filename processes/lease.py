"""The worker lease: one process at a time runs a ledger's background work.

``provledger worker`` holds the lease while it runs the projections, expiry, entailment sampling
and witness submission; a second worker on the same ledger waits for it instead of running the
same work twice, and takes over when the holder exits (or dies: the lease goes with its process).

- PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``) on a dedicated connection,
  keyed by the ledger's schema, so two ledgers in one database do not share a lease. The lock is
  released when the connection closes, including when the process is killed.
- SQLite: an exclusive ``flock`` on ``<database>.worker.lock`` beside the database file, released
  by the kernel when the process exits.

A worker checks after every round that it still holds the lease and stops (exit status 1) when
it lost it, rather than run beside the worker that took it over.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Callable
from typing import IO, Any

import psycopg

from ledger.eventlog.database import DatabaseConfig
from projections.database import connect

POLL_SECONDS = 0.5
"""How often a waiting worker tries the lease again."""


def lease_key(database: DatabaseConfig) -> int:
    """The advisory lock key of a PostgreSQL ledger's worker lease."""
    return database.advisory_key("worker")


class WorkerLease:
    """The lease of one ledger's background work (see the module)."""

    def __init__(self, database: DatabaseConfig) -> None:
        self.database = database
        self._conn: psycopg.Connection[Any] | None = None
        self._file: IO[bytes] | None = None

    def describe(self) -> str:
        """Where the lease lives, for the worker's messages."""
        if self.database.kind == "sqlite":
            return f"file lock {self._lock_path()}"
        return f"PostgreSQL advisory lock {lease_key(self.database)}"

    def try_acquire(self) -> bool:
        """Take the lease if it is free; True when this process now holds it."""
        if self.database.kind == "sqlite":
            return self._try_file()
        return self._try_advisory()

    def acquire(self, stop: threading.Event, waiting: Callable[[], None] = lambda: None) -> bool:
        """Take the lease, waiting while another process holds it (``waiting`` is called once
        when it does); False if ``stop`` was set first."""
        told = False
        while not stop.is_set():
            if self.try_acquire():
                return True
            if not told:
                waiting()
                told = True
            stop.wait(POLL_SECONDS)
        return False

    def still_held(self) -> bool:
        """Whether the lease is still this process's: on PostgreSQL, whether its connection
        still answers (a lost connection took the lock with it); a file lock is held while the
        process lives."""
        if self._file is not None:
            return True
        if self._conn is None:
            return False
        try:
            self._conn.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True

    def release(self) -> None:
        """Give the lease up (closing the connection or the file releases it)."""
        if self._conn is not None:
            with contextlib.suppress(psycopg.Error):
                self._conn.close()
            self._conn = None
        if self._file is not None:
            self._file.close()
            self._file = None

    def _lock_path(self) -> str:
        assert self.database.sqlite_path is not None
        return f"{self.database.sqlite_path}.worker.lock"

    def _try_file(self) -> bool:
        handle = open(self._lock_path(), "ab")  # noqa: SIM115 - held open while the lease is
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        handle.truncate(0)
        handle.write(f"{os.getpid()}\n".encode())
        handle.flush()
        self._file = handle
        return True

    def _try_advisory(self) -> bool:
        if self._conn is None:
            self._conn = connect(self.database, "provledger-worker-lease")
        row = self._conn.execute(
            "SELECT pg_try_advisory_lock(%s)", (lease_key(self.database),)
        ).fetchone()
        return bool(row and row[0])
