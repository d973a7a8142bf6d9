"""The eventsourcing library's own recorder test cases, run against the recorder under the
ledger's signed event store, on SQLite and on PostgreSQL.

The ledger signs and chains events in its mapper and event store
(:class:`ledger.eventlog.store.SignedEventStore`); the recorder below them is the library's,
configured from :class:`ledger.eventlog.database.DatabaseConfig` exactly as the service
configures it (:func:`api.services.open_ledger`). These cases check that recorder keeps the
library's contract: ordering, conflicts, notification ids, topic filters, concurrent writers.

Not run here, and why:
- ``AggregateRecorderTestCase``: it expects ``insert_events`` to return None, the contract of a
  recorder without a notification log; the ledger's recorder is an application recorder.
- ``test_performance`` and ``test_concurrent_throughput``: they time the recorder; speed is
  measured by ``benchmarks/`` (``benchmarks.append``), never asserted in a test.
- The cases store raw bytes (``b"state1"``): the recorder does not read what it stores, so
  they apply unchanged; the signing rules are tested through the application in
  ``tests/integration/test_signed_store.py``.
"""

from __future__ import annotations

import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from eventsourcing.persistence import ApplicationRecorder
from eventsourcing.tests.persistence import ApplicationRecorderTestCase
from psycopg import sql

from api.services import open_ledger
from api.settings import Settings
from ledger.runtime import LedgerRuntime
from tests.conftest import PG_URL

_TIMED = "times the recorder; speed is measured by benchmarks/, never asserted in a test"


class _SignedStoreRecorder(ApplicationRecorderTestCase[ApplicationRecorder]):
    """Each case gets the recorder of a freshly opened ledger."""

    __test__ = False  # the backends below run the cases

    def setUp(self) -> None:
        super().setUp()
        self._runtimes: list[LedgerRuntime] = []
        self._tmp = tempfile.TemporaryDirectory()
        self._threads_before = set(threading.enumerate())

    def tearDown(self) -> None:
        # The library's concurrency case tells its reader threads to stop but does not join
        # them; closing the database under a reader mid-query crashes SQLite's C code.
        for thread in set(threading.enumerate()) - self._threads_before:
            if not thread.daemon:
                thread.join(timeout=30)
        for runtime in self._runtimes:
            runtime.close()
        self._tmp.cleanup()
        super().tearDown()

    def settings(self) -> Settings:
        raise NotImplementedError

    def create_recorder(self) -> ApplicationRecorder:
        runtime = open_ledger(self.settings())
        self._runtimes.append(runtime)
        recorder: Any = runtime.ledger.recorder
        assert isinstance(recorder, ApplicationRecorder)
        return recorder

    @pytest.mark.skip(reason=_TIMED)
    def test_performance(self) -> None: ...

    @pytest.mark.skip(reason=_TIMED)
    def test_concurrent_throughput(self) -> None: ...


class TestSignedStoreRecorderOnSQLite(_SignedStoreRecorder):
    """The SQLite recorder, on a file as the service keeps it."""

    __test__ = True

    def settings(self) -> Settings:
        return Settings(data_dir=Path(self._tmp.name) / "data")


@pytest.mark.postgres
class TestSignedStoreRecorderOnPostgreSQL(_SignedStoreRecorder):
    """The PostgreSQL recorder, in a schema of its own."""

    __test__ = True

    def setUp(self) -> None:
        super().setUp()
        self._schema = f"t_{uuid.uuid4().hex[:12]}"

    def tearDown(self) -> None:
        super().tearDown()
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(self._schema))
            )

    def settings(self) -> Settings:
        return Settings(
            data_dir=Path(self._tmp.name) / "data", database_url=f"{PG_URL}?schema={self._schema}"
        )
