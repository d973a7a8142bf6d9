"""Statements the service runs on every request or every projection batch read a bounded number
of rows on PostgreSQL, however long the log is.

In a 20-minute soak of two API processes and a worker, PostgreSQL counted 555 million rows read
by 15,646 sequential scans of ``merkle_leaves`` and 72 million by 6,592 of ``checkpoints``
(docs/deployment.md, "PostgreSQL"). Each test below fills the tables the statement reads with
enough rows that a scan of them is visible, has PostgreSQL plan the statement against fresh
statistics, runs it under ``EXPLAIN ANALYZE`` and counts the rows its scans returned.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.sql import Executable

from api.services import open_ledger
from api.settings import Settings
from projections.database import ReadModelDatabase
from projections.log_anchor import _LAST_LEAF_AT_OR_BEFORE
from projections.schema import checkpoints, merkle_leaves, merkle_nodes
from projections.transparency import _SIZE_AND_NOTE
from projections.transparency_queries import NEWEST_CHECKPOINT
from tests.conftest import PG_URL

pytestmark = pytest.mark.postgres

LEAVES = 20_000
CHECKPOINTS = 5_000
BOUND = 10
"""Rows a statement that looks up the newest or one row may read: a handful, never the table."""

_SCANS = ("Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan")


@pytest.fixture
def filled(pg_schema: str, tmp_path: Path) -> Iterator[Engine]:
    """The transparency tables of a log of :data:`LEAVES` events with :data:`CHECKPOINTS`
    checkpoints, analysed; connections of the engine returned resolve table names in the
    schema (``search_path``), as the statements are compiled without it."""
    runtime = open_ledger(
        Settings(data_dir=tmp_path / "data", database_url=f"{PG_URL}?schema={pg_schema}")
    )
    db = ReadModelDatabase.open(runtime.database)
    with db.sync.begin() as conn:
        conn.execute(
            text(
                f'INSERT INTO "{pg_schema}".{merkle_leaves.name} '
                "(leaf_index, notification_id, originator_id, originator_version) "
                "SELECT i, i + 1, md5(i::text)::uuid::text, 1 "
                f"FROM generate_series(0, {LEAVES - 1}) AS i"
            )
        )
        conn.execute(
            text(
                f'INSERT INTO "{pg_schema}".{merkle_nodes.name} (level, idx, hash) '
                "SELECT 0, i, decode(md5(i::text) || md5(i::text), 'hex') "
                f"FROM generate_series(0, {LEAVES - 1}) AS i"
            )
        )
        conn.execute(
            text(
                f'INSERT INTO "{pg_schema}".{checkpoints.name} '
                "(size, root, note, created_at, position) "
                "SELECT i * 4, decode(md5(i::text) || md5(i::text), 'hex'), "
                "repeat('n', 300), '2026-12-02T00:00:00Z', i * 4 "
                f"FROM generate_series(1, {CHECKPOINTS}) AS i"
            )
        )
    with db.reads.connect() as conn:
        conn.execute(text(f'VACUUM ANALYZE "{pg_schema}".{merkle_leaves.name}'))
        conn.execute(text(f'VACUUM ANALYZE "{pg_schema}".{merkle_nodes.name}'))
        conn.execute(text(f'VACUUM ANALYZE "{pg_schema}".{checkpoints.name}'))
    db.close()
    runtime.close()
    engine = create_engine(
        PG_URL.replace("postgresql://", "postgresql+psycopg://"),
        connect_args={"options": f"-csearch_path={pg_schema}"},
    )
    yield engine
    engine.dispose()


def _rows_scanned(conn: Connection, statement: Executable, **params: Any) -> int:
    """Rows the scans of ``statement`` returned, over all their loops, by ``EXPLAIN ANALYZE``."""
    compiled = statement.compile(conn, compile_kwargs={"literal_binds": True})
    plan = conn.execute(text(f"EXPLAIN (ANALYZE, FORMAT JSON) {compiled}"), params).scalar_one()
    nodes = [(plan if isinstance(plan, list) else json.loads(plan))[0]["Plan"]]
    total = 0
    while nodes:
        node = nodes.pop()
        if node["Node Type"] in _SCANS:
            total += int(node["Actual Rows"]) * int(node["Actual Loops"])
        nodes.extend(node.get("Plans", ()))
    return total


def test_the_tree_size_is_read_without_counting_every_leaf(filled: Engine) -> None:
    with filled.connect() as conn:
        size, _note = conn.execute(_SIZE_AND_NOTE).one()
        assert size == LEAVES
        assert _rows_scanned(conn, _SIZE_AND_NOTE) <= BOUND


def test_the_newest_checkpoint_is_read_alone(filled: Engine) -> None:
    with filled.connect() as conn:
        rows = conn.execute(NEWEST_CHECKPOINT).all()
        assert [(row.size, row.note) for row in rows] == [(CHECKPOINTS * 4, "n" * 300)]
        assert _rows_scanned(conn, NEWEST_CHECKPOINT) <= BOUND


def test_the_log_anchor_reads_one_leaf(filled: Engine) -> None:
    statement = _LAST_LEAF_AT_OR_BEFORE.where(merkle_leaves.c.notification_id <= LEAVES - 5)
    with filled.connect() as conn:
        (notification_id, _hash) = conn.execute(statement).one()
        assert notification_id == LEAVES - 5
        assert _rows_scanned(conn, statement) <= BOUND
