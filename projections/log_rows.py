"""Stored events read straight from the log table, for projections that need only the bytes.

The library's ``select_notifications`` builds a ``UUID`` for every row; a projection that only
hashes the stored state and writes the id back as text (the transparency log) spends a fifth
of its time on that. :func:`read_rows` reads the same columns with the same ordering from the
SQLite and PostgreSQL recorders' tables and returns plain rows; any other recorder is read
through ``select_notifications``.
"""

from __future__ import annotations

from typing import Any, NamedTuple
from uuid import UUID

from eventsourcing.persistence import AggregateRecorder, ApplicationRecorder, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder
from psycopg import sql
from psycopg.rows import tuple_row


class LogRow(NamedTuple):
    """One stored event (the attributes a projection reads from a notification)."""

    id: int
    originator_id: str  # lower-case, hyphenated
    originator_version: int
    topic: str
    state: bytes


def _hyphenated(value: str) -> str:
    """``0123...cdef`` (32 hex digits, as SQLite rows hold a UUID) in its usual form."""
    return f"{value[:8]}-{value[8:12]}-{value[12:16]}-{value[16:20]}-{value[20:]}"


def read_rows(recorder: ApplicationRecorder, start: int, limit: int) -> list[LogRow]:
    """Up to ``limit`` stored events after notification id ``start``, in order."""
    if isinstance(recorder, SQLiteApplicationRecorder) and (
        recorder.datastore.originator_id_type == "uuid"
    ):
        statement = (
            "SELECT rowid, originator_id, originator_version, topic, state "  # noqa: S608
            f"FROM {recorder.events_table_name} WHERE rowid>? ORDER BY rowid LIMIT ?"
        )
        with recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(statement, (start, limit))
            return [
                LogRow(row[0], _hyphenated(row[1]), row[2], row[3], row[4])
                for row in cursor.fetchall()
            ]
    if isinstance(recorder, PostgresApplicationRecorder):
        query = sql.SQL(
            "SELECT notification_id, originator_id::text, originator_version, topic, state "
            "FROM {schema}.{table} WHERE notification_id>%s ORDER BY notification_id LIMIT %s"
        ).format(
            schema=sql.Identifier(recorder.datastore.schema),
            table=sql.Identifier(recorder.events_table_name),
        )
        with (
            recorder.datastore.get_connection() as conn,
            conn.cursor(row_factory=tuple_row) as cursor,
        ):
            cursor.execute(query, (start, limit), prepare=True)
            return [LogRow(*row) for row in cursor.fetchall()]
    return [_row(n) for n in recorder.select_notifications(start, limit, inclusive_of_start=False)]


def _row(notification: Any) -> LogRow:
    return LogRow(
        notification.id,
        str(notification.originator_id),
        notification.originator_version,
        notification.topic,
        notification.state,
    )


def notification_id_of(
    recorder: AggregateRecorder, originator_id: UUID | str, version: int
) -> int | None:
    """The log position of one stored event, for naming a failure (None if the recorder's
    table cannot be asked: only the SQLite and PostgreSQL recorders are)."""
    table = getattr(recorder, "events_table_name", None)
    datastore = getattr(recorder, "datastore", None)
    if table is None or datastore is None:
        return None
    try:
        schema = getattr(datastore, "schema", None)
        if schema is None:  # SQLite: the notification id is the row id
            with datastore.transaction(commit=False) as cursor:
                cursor.execute(
                    f"SELECT rowid FROM {table} WHERE originator_id=? AND originator_version=?",  # noqa: S608 - the recorder's own table name
                    (UUID(str(originator_id)).hex, version),
                )
                found = cursor.fetchone()
        else:
            query = sql.SQL(
                "SELECT notification_id FROM {}.{} WHERE originator_id = %s "
                "AND originator_version = %s"
            ).format(sql.Identifier(schema), sql.Identifier(table))
            with datastore.get_connection() as conn, conn.cursor() as cursor:
                cursor.execute(query, (originator_id, version))
                found = cursor.fetchone()
    except Exception:  # naming the position is best effort, on a failure path only
        return None
    if found is None:
        return None
    value = next(iter(found.values())) if isinstance(found, dict) else found[0]
    return int(value)


def applied_version(recorder: AggregateRecorder, originator_id: UUID, position: int) -> int:
    """The highest version of an aggregate among the events up to log ``position`` (0 for
    none): how far a projection at ``position`` has followed the aggregate."""
    table = getattr(recorder, "events_table_name", None)
    datastore = getattr(recorder, "datastore", None)
    if table is None or datastore is None:
        return 0
    schema = getattr(datastore, "schema", None)
    if schema is None:  # SQLite: the notification id is the row id
        with datastore.transaction(commit=False) as cursor:
            cursor.execute(
                f"SELECT max(originator_version) FROM {table} "  # noqa: S608 - the recorder's own table name
                "WHERE originator_id=? AND rowid <= ?",
                (originator_id.hex, position),
            )
            found = cursor.fetchone()
    else:
        query = sql.SQL(
            "SELECT max(originator_version) AS v FROM {}.{} WHERE originator_id = %s "
            "AND notification_id <= %s"
        ).format(sql.Identifier(schema), sql.Identifier(table))
        with datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(query, (originator_id, position))
            found = cursor.fetchone()
    value = (
        None
        if found is None
        else next(iter(found.values()))
        if isinstance(found, dict)
        else found[0]
    )
    return 0 if value is None else int(value)


def _by_aggregate(
    recorder: AggregateRecorder, originator_ids: list[UUID], columns: str, tail: str
) -> list[tuple[Any, ...]] | None:
    """The rows of ``SELECT columns FROM <the events table> WHERE originator_id IN (...)
    tail`` over ``originator_ids`` (one query per 500), ``originator_id`` first in
    ``columns``; None for a recorder whose table cannot be asked (only the SQLite and
    PostgreSQL recorders' can)."""
    table = getattr(recorder, "events_table_name", None)
    datastore = getattr(recorder, "datastore", None)
    if table is None or datastore is None:
        return None
    schema = getattr(datastore, "schema", None)
    found: list[tuple[Any, ...]] = []
    for offset in range(0, len(originator_ids), 500):
        chunk = originator_ids[offset : offset + 500]
        if schema is None:  # SQLite keeps the ids as 32 hex digits
            marks = ",".join("?" * len(chunk))
            with datastore.transaction(commit=False) as cursor:
                cursor.execute(
                    f"SELECT {columns} FROM {table} WHERE originator_id IN ({marks}) {tail}",  # noqa: S608 - the recorder's own table name, this module's columns
                    [aggregate.hex for aggregate in chunk],
                )
                found.extend(tuple(row) for row in cursor.fetchall())
        else:
            query = sql.SQL("SELECT {} FROM {}.{} WHERE originator_id = ANY(%s) {}").format(
                sql.SQL(columns), sql.Identifier(schema), sql.Identifier(table), sql.SQL(tail)
            )
            with (
                datastore.get_connection() as conn,
                conn.cursor(row_factory=tuple_row) as cursor,
            ):
                cursor.execute(query, (chunk,))
                found.extend(cursor.fetchall())
    return found


def aggregate_heads(recorder: AggregateRecorder, originator_ids: list[UUID]) -> dict[UUID, int]:
    """The newest stored version of each aggregate (one query; an aggregate with no events is
    absent): whether a process's folded copy of it is still current."""
    found = _by_aggregate(
        recorder, originator_ids, "originator_id, max(originator_version)", "GROUP BY originator_id"
    )
    return {UUID(str(aggregate)): int(version) for aggregate, version in found or []}


def aggregate_events(
    recorder: AggregateRecorder, originator_ids: list[UUID]
) -> dict[UUID, list[StoredEvent]]:
    """Every stored event of each aggregate, in version order, read in one query (per 500
    aggregates): a page of a list checks its rows against their aggregates without a query
    per row. An aggregate with no events is absent; a recorder whose table cannot be asked is
    read an aggregate at a time."""
    found = _by_aggregate(
        recorder,
        originator_ids,
        "originator_id, originator_version, topic, state",
        "ORDER BY originator_id, originator_version",
    )
    if found is None:
        return {
            aggregate: events
            for aggregate in originator_ids
            if (events := list(recorder.select_events(aggregate)))
        }
    histories: dict[UUID, list[StoredEvent]] = {}
    for originator_id, version, topic, state in found:
        aggregate = UUID(str(originator_id))
        histories.setdefault(aggregate, []).append(
            StoredEvent(aggregate, int(version), str(topic), bytes(state))
        )
    return histories
