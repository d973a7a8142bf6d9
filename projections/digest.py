"""A digest of read-model rows, to show that a rebuild gives identical tables."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy import Engine, Table, select

from ledger.canonical import canonical_json


def tables_digest(engine: Engine, tables: Sequence[Table]) -> str:
    """``sha256:<hex>`` over every row of ``tables`` in primary-key order (RFC 8785 rows)."""
    digest = hashlib.sha256()
    with engine.connect() as conn:
        for table in tables:
            digest.update(table.name.encode() + b"\n")
            order = list(table.primary_key.columns)
            for row in conn.execute(select(table).order_by(*order)).mappings():
                digest.update(canonical_json({str(k): v for k, v in row.items()}) + b"\n")
    return "sha256:" + digest.hexdigest()
