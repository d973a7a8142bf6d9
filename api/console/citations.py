"""Where a cited table cell sits, in the table's own words, and a span's breadcrumb (a cited
version's dates and its source's withdrawal are read by ``projections/citation_queries.py``).

A table cell is cited by table, row and column (numbered from 0 in the registry); a reader
finds it by its row label and its column header. Both come from the version's recorded
tables (``registry_versions.tables``) and the cell's envelope (``ledger.text.tables``): the
envelope's ``{row labels}, {header path}`` with the header path the table's own for that
column.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.text.tables import cell_labels


def breadcrumb(title: str, heading_path: Sequence[str] | None) -> list[str]:
    """The headings above a span, without a first heading that only repeats the document's
    title (an HTML page's ``<h1>`` is usually its title)."""
    path = [str(part) for part in heading_path or []]
    return path[1:] if path and path[0].strip() == str(title).strip() else path


@dataclass(frozen=True)
class CellPosition:
    """A table cell in words: which table, which row, which column, what value."""

    table: str
    row: str
    column: str
    value: str


def _table_name(table: dict[str, Any] | None, table_id: str) -> str:
    """The table's title and caption (each once), its units, else its id."""
    if table is None:
        return f"table {table_id}"
    parts = []
    for key in ("title", "caption"):
        text = str(table.get(key) or "").strip()
        if text and text not in parts:
            parts.append(text)
    name = ": ".join(parts) or f"table {table_id}"
    units = str(table.get("units") or "").strip().strip("()")
    return f"{name} ({units})" if units else name


def cell_position(
    tables: Collection[dict[str, Any]],
    table_id: str,
    row: int,
    col: int,
    envelope: str | None,
    value: str,
) -> CellPosition:
    """Where the cell at ``row``, ``col`` (from 0) of ``table_id`` sits: its row label and
    column header when the table has them, else the row and column counted from 1."""
    table = next((t for t in tables if t.get("table_id") == table_id), None)
    columns = [str(c) for c in (table or {}).get("columns") or []]
    header = columns[col].strip() if 0 <= col < len(columns) else ""
    labels = ""
    if envelope:
        where = cell_labels(envelope, value)
        if where != envelope:  # the envelope has its usual shape
            if header and where == header:
                labels = ""
            elif header and where.endswith(", " + header):
                labels = where[: -len(header) - 2]
            elif not header and where != f"row {row + 1}, column {col + 1}":
                labels = where
    return CellPosition(
        table=_table_name(table, table_id),
        row=labels or f"row {row + 1}",
        column=header or f"column {col + 1}",
        value=value,
    )
