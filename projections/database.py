"""Engines for the read models: a sync engine for projections, an async one for API reads.

SQLite read models live in their own file beside the event store; on PostgreSQL they share the
database and schema of the events. Async reads use aiosqlite or asyncpg.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from sqlalchemy import URL, Connection, Engine, Table, create_engine, event, inspect, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from ledger.eventlog.database import DatabaseConfig
from projections.schema import metadata


def readmodel_path(database: DatabaseConfig) -> Path:
    """Where the SQLite read models are kept for an SQLite event store."""
    assert database.sqlite_path is not None
    return database.sqlite_path.with_name(database.sqlite_path.stem + "-readmodels.sqlite3")


def _url(database: DatabaseConfig, driver: str) -> URL:
    if database.kind == "sqlite":
        return URL.create(driver, database=str(readmodel_path(database)))
    return URL.create(
        driver,
        username=database.user or None,
        password=database.password or None,
        host=database.host,
        port=database.port,
        database=database.dbname,
    )


def sqlite_pragmas(dbapi_connection: Any, _: Any) -> None:
    """WAL, normal sync and a busy timeout for read-model SQLite files."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


@dataclass
class ReadModelDatabase:
    """The read-model engines for one ledger."""

    sync: Engine
    database: DatabaseConfig
    _reads: Engine | None = field(default=None, init=False, repr=False)

    @classmethod
    def open(cls, database: DatabaseConfig) -> ReadModelDatabase:
        """Create the sync engine and the tables if missing."""
        options: dict[str, Any] = {}
        if database.kind == "postgresql" and database.schema:
            options["schema_translate_map"] = {None: database.schema}
        driver = "sqlite+pysqlite" if database.kind == "sqlite" else "postgresql+psycopg"
        engine = create_engine(_url(database, driver), execution_options=options)
        if database.kind == "sqlite":
            event.listen(engine, "connect", sqlite_pragmas)
        try:
            _create(engine)
        except DBAPIError:
            # Another process created the tables between our check and our CREATE.
            _create(engine)
        return cls(sync=engine, database=database)

    @property
    def reads(self) -> Engine:
        """The sync engine in autocommit mode, for single-statement reads: no ``BEGIN`` before
        the query and no ``ROLLBACK`` when the connection goes back to the pool, which on
        PostgreSQL are two round trips of the three such a read would otherwise cost."""
        if self._reads is None:
            self._reads = self.sync.execution_options(isolation_level="AUTOCOMMIT")
        return self._reads

    def async_engine(self) -> AsyncEngine:
        """An async engine over the same tables (aiosqlite or asyncpg)."""
        options: dict[str, Any] = {}
        if self.database.kind == "postgresql" and self.database.schema:
            options["schema_translate_map"] = {None: self.database.schema}
        driver = "sqlite+aiosqlite" if self.database.kind == "sqlite" else "postgresql+asyncpg"
        engine = create_async_engine(_url(self.database, driver), execution_options=options)
        if self.database.kind == "sqlite":
            event.listen(engine.sync_engine, "connect", sqlite_pragmas)
        return engine

    def close(self) -> None:
        """Dispose of pooled connections."""
        self.sync.dispose()


def bulk_insert(
    conn: Connection, table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """Insert many rows with the driver's own ``executemany``, inside ``conn``'s transaction.

    For high-volume, fixed-shape rows (Merkle nodes and leaves) where SQLAlchemy's per-row
    parameter processing costs more than the insert itself. Values must already be in the
    driver's types (int, str, bytes). Driver errors are raised as SQLAlchemy's
    (``IntegrityError`` for a duplicate key), as every other write's are.
    """
    if not rows:
        return
    dialect = conn.dialect
    schema = (conn.get_execution_options().get("schema_translate_map") or {}).get(None)
    quote = dialect.identifier_preparer.quote
    name = quote(table.name) if not schema else f"{quote(schema)}.{quote(table.name)}"
    marker = "?" if dialect.paramstyle == "qmark" else "%s"
    # Identifiers come from the schema and are quoted; values are bound parameters.
    statement = (
        f"INSERT INTO {name} ({', '.join(quote(c) for c in columns)}) "  # noqa: S608
        f"VALUES ({', '.join(marker for _ in columns)})"
    )
    dbapi = dialect.loaded_dbapi
    cursor = conn.connection.cursor()
    try:
        if dialect.name == "postgresql":
            # COPY streams the rows in one command: several times faster than executemany.
            statement = f"COPY {name} ({', '.join(quote(c) for c in columns)}) FROM STDIN"
            with cursor.copy(statement) as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            cursor.executemany(statement, rows)
    except dbapi.Error as exc:
        # The raw cursor bypasses SQLAlchemy's error wrapping; wrap here, so a unique
        # violation reaches callers as ``sqlalchemy.exc.IntegrityError`` like any other write
        # (the projection runner treats it as another process having written first).
        raise DBAPIError.instance(statement, None, exc, dbapi.Error, dialect=dialect) from exc
    finally:
        cursor.close()


def _schema_of(engine: Engine) -> str | None:
    """The PostgreSQL schema an engine's tables are translated into (None: the default)."""
    schema: str | None = engine.get_execution_options().get("schema_translate_map", {}).get(None)
    return schema


def add_missing_columns(engine: Engine) -> None:
    """Add the nullable columns a later release gave a table that exists (``create_all``
    creates only missing tables). Their values in rows written before are null until
    ``provledger projections rebuild`` replays the events."""
    schema = _schema_of(engine)
    inspector = inspect(engine)
    quote = engine.dialect.identifier_preparer.quote
    with engine.begin() as conn:
        for table in metadata.sorted_tables:
            if not inspector.has_table(table.name, schema=schema):
                continue
            present = {c["name"] for c in inspector.get_columns(table.name, schema=schema)}
            for column in table.columns:
                if column.name not in present and column.nullable:
                    kind = column.type.compile(dialect=engine.dialect)
                    name = (
                        quote(table.name)
                        if schema is None
                        else f"{quote(schema)}.{quote(table.name)}"
                    )
                    conn.execute(text(f"ALTER TABLE {name} ADD COLUMN {quote(column.name)} {kind}"))


def _create(engine: Engine) -> None:
    """Create missing tables, missing nullable columns, and missing indexes of tables that
    exist (``create_all`` only creates the indexes of tables it creates).

    A database with none of the tables (a new ledger) gets them all in one transaction,
    without asking first about each table, column and index: on PostgreSQL those questions are
    a hundred round trips or more."""
    schema = _schema_of(engine)
    ours = {table.name for table in metadata.sorted_tables}
    if not ours & set(inspect(engine).get_table_names(schema=schema)):
        with engine.begin() as conn:
            metadata.create_all(conn, checkfirst=False)
        return
    add_missing_columns(engine)
    metadata.create_all(engine)
    for table in metadata.sorted_tables:
        for index in table.indexes:
            index.create(engine, checkfirst=True)


def connect(
    database: DatabaseConfig, application_name: str | None = None
) -> psycopg.Connection[tuple[Any, ...]]:
    """An autocommit connection of its own to a PostgreSQL ledger's database (for a schema
    or an advisory lock, outside the pools)."""
    return psycopg.connect(
        host=database.host,
        port=database.port,
        dbname=database.dbname,
        user=database.user,
        password=database.password or None,
        autocommit=True,
        application_name=application_name,
    )


def setup_lock_key(database: DatabaseConfig) -> int:
    """The advisory lock key under which a process prepares a PostgreSQL ledger (another key
    than the worker lease's, ``processes.lease``)."""
    return database.advisory_key("setup")


@contextmanager
def setup_lock(database: DatabaseConfig) -> Iterator[None]:
    """Hold, on PostgreSQL, the ledger's setup lock while the body creates its schema, tables
    and functions (a no-op on SQLite).

    Two sessions creating the same schema at once fail with a unique violation, and two
    replacing the same function or table at once with ``tuple concurrently updated``: an API
    server and a projection runner started together, or several API workers, would otherwise
    fail to start. The lock is a session-level advisory lock on a connection of its own,
    released when the body ends (or the connection closes)."""
    if database.kind != "postgresql":
        yield
        return
    key = setup_lock_key(database)
    with connect(database) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (key,))
        try:
            yield
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (key,))


def ensure_postgres_schema(database: DatabaseConfig) -> None:
    """Create the configured PostgreSQL schema if it does not exist yet."""
    if database.kind != "postgresql" or not database.schema:
        return
    with connect(database) as conn:
        conn.execute(
            sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(database.schema))
        )
