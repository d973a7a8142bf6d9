"""Read-model tables and indexes: an index added to an existing table is created on open."""

from __future__ import annotations

from sqlalchemy import inspect

from ledger.runtime import LedgerRuntime
from projections.database import ReadModelDatabase


def _indexes(db: ReadModelDatabase) -> set[str]:
    schema = db.database.schema or None
    return {str(i["name"]) for i in inspect(db.sync).get_indexes("receipts", schema=schema)}


def test_an_index_missing_from_an_existing_table_is_created(runtime: LedgerRuntime) -> None:
    first = ReadModelDatabase.open(runtime.database)
    assert "ix_receipts_due" in _indexes(first)
    with first.sync.begin() as conn:
        conn.exec_driver_sql(
            "DROP INDEX "
            + (f"{runtime.database.schema}." if runtime.database.schema else "")
            + "ix_receipts_due"
        )
    assert "ix_receipts_due" not in _indexes(first)
    first.close()

    reopened = ReadModelDatabase.open(runtime.database)
    assert "ix_receipts_due" in _indexes(reopened)
    reopened.close()


def _columns(db: ReadModelDatabase) -> set[str]:
    schema = db.database.schema or None
    return {str(c["name"]) for c in inspect(db.sync).get_columns("receipts", schema=schema)}


def test_a_nullable_column_missing_from_an_existing_table_is_added(runtime: LedgerRuntime) -> None:
    first = ReadModelDatabase.open(runtime.database)
    prefix = f"{runtime.database.schema}." if runtime.database.schema else ""
    with first.sync.begin() as conn:
        conn.exec_driver_sql(f"DROP INDEX {prefix}ix_receipts_actor")
        for column in ("actor", "purpose", "inference_id", "opened_by"):
            conn.exec_driver_sql(f"ALTER TABLE {prefix}receipts DROP COLUMN {column}")
    assert "actor" not in _columns(first)
    first.close()

    reopened = ReadModelDatabase.open(runtime.database)

    assert {"actor", "purpose", "inference_id", "opened_by"} <= _columns(reopened)
    assert "ix_receipts_actor" in _indexes(reopened)
    reopened.close()
