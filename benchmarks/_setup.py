"""Shared set-up for benchmarks: fresh ledgers and bare applications on either backend."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate
from psycopg import sql

from api.services import open_ledger
from api.settings import Settings
from ledger.eventlog.aggregate import LedgerAggregate
from ledger.eventlog.topics import aggregate_topic
from ledger.runtime import LedgerRuntime
from projections.database import ensure_postgres_schema

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"


@aggregate_topic("bench.note")
class SignedNote(LedgerAggregate):
    """A small aggregate for the signed ledger."""

    class Written(Aggregate.Created, LedgerAggregate.Event):
        TOPIC = "bench.note.written"
        text: str
        tags: list[str]

    class Amended(LedgerAggregate.Event):
        TOPIC = "bench.note.amended"
        text: str

        def apply(self, aggregate: SignedNote) -> None:
            aggregate.text = self.text

    def __init__(self, text: str, tags: list[str]) -> None:
        self.text = text
        self.tags = tags


class BareNote(Aggregate):
    """The same aggregate for a bare eventsourcing application."""

    class Written(Aggregate.Created):
        text: str
        tags: list[str]

    class Amended(Aggregate.Event):
        text: str

        def apply(self, aggregate: BareNote) -> None:
            aggregate.text = self.text

    def __init__(self, text: str, tags: list[str]) -> None:
        self.text = text
        self.tags = tags


class BareApp(Application[uuid.UUID]):
    """A plain eventsourcing application with the library's default mapper."""

    name = "bare"


@contextmanager
def backend_settings(backend: str) -> Iterator[Settings]:
    """Settings for a throwaway ledger on ``backend`` (a temp dir, a temp schema)."""
    with tempfile.TemporaryDirectory() as tmp:
        if backend == "sqlite":
            yield Settings(data_dir=Path(tmp))
            return
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        try:
            yield Settings(data_dir=Path(tmp), database_url=f"{PG_URL}?schema={schema}")
        finally:
            with psycopg.connect(PG_URL, autocommit=True) as conn:
                conn.execute(
                    sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
                )


def open_bare(settings: Settings) -> BareApp:
    """A bare application on the same database as ``settings`` (its own tables)."""
    database = settings.database()
    env = database.eventsourcing_env()
    ensure_postgres_schema(database)
    if database.kind == "sqlite":
        env["SQLITE_DBNAME"] = str(settings.data_dir / "bare.sqlite3")
    return BareApp(env)


def open_signed(settings: Settings) -> LedgerRuntime:
    """The signed ledger for ``settings``."""
    return open_ledger(settings)
