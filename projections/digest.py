"""A digest of read-model rows, to show that a rebuild gives identical tables."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from sqlalchemy import Engine, Table, select

_encode = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
).encode


def tables_digest(engine: Engine, tables: Sequence[Table]) -> str:
    """``sha256:<hex>`` over every row of ``tables`` in primary-key order.

    Each table contributes its name and a newline, then each row as a compact JSON array of
    its column values in the table's column order (objects inside with sorted keys, no
    whitespace, UTF-8), one per line. Values are read through the table's column types, so
    the same rows give the same digest on SQLite and on PostgreSQL.
    """
    digest = hashlib.sha256()
    with engine.connect() as conn:
        for table in tables:
            digest.update(table.name.encode() + b"\n")
            order = list(table.primary_key.columns)
            for row in conn.execute(select(table).order_by(*order)):
                digest.update(_encode(list(row)).encode() + b"\n")
    return "sha256:" + digest.hexdigest()
