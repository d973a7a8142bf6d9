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
