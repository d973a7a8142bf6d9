"""Tabular evidence: validation, plain-text rendering and citeable cell envelopes.

Input (:func:`parse_tables`) is JSON-like: a list of objects with ``table_id`` (matching
``[A-Za-z0-9._:-]{1,64}``, unique), ``title`` (string), ``columns`` (non-empty list of
non-empty strings), ``rows`` (list of lists of strings, each as long as ``columns``) and an
optional ``footnotes`` (list of strings). Other keys are ignored. Every string must be a single
line without control characters; values are stored stripped and in Unicode NFC so that the
rendered text is already normal. At most :data:`MAX_CELLS` cells in all.

Layout (:func:`render_tables`); tables are separated by one blank line::

    Revenue by segment                <- title (the table_id when the title is empty)
    | Segment | FY2023 |              <- header line
    | Services | $4.5 million |       <- one line per row; an empty cell renders as nothing
    [1] Figures in USD.               <- one line per footnote

Envelope of a cell (one line, what a citation of that cell shows)::

    {title} — {row label}, {column header}: {value}[ [1] {footnote 1}[ [2] {footnote 2}...]]

e.g. ``Revenue by segment — Services, FY2023: $4.5 million [1] Figures in USD.``; a cell of
column 0, or of a row whose label is empty, drops the ``{row label}, `` part.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ledger.errors import InvalidInput

MAX_CELLS = 10_000
"""The most cells (rows times columns, all tables together) one source may carry."""

TABLE_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
"""What a ``table_id`` must match in full."""

_NOT_SINGLE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


@dataclass(frozen=True, slots=True)
class Table:
    """A validated table: id, title, column headers, rows of cells and footnotes."""

    table_id: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    footnotes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CellPlacement:
    """Where a rendered cell's text sits in the combined text, and its citeable envelope."""

    table_id: str
    row: int
    col: int
    start: int
    end: int
    envelope: str


def parse_tables(raw: object) -> tuple[Table, ...]:
    """Validate JSON-like ``raw`` into tables; see the module docstring for the rules.

    Raises :class:`~ledger.errors.InvalidInput` naming the offending field by path, e.g.
    ``tables[0].rows[2]`` with rule ``row_length``.
    """
    if not isinstance(raw, list):
        raise InvalidInput("tables", "type", "tables must be a list of table objects")
    tables: list[Table] = []
    seen: set[str] = set()
    cells = 0
    for index, item in enumerate(raw):
        table = _parse_table(item, f"tables[{index}]")
        if table.table_id in seen:
            raise InvalidInput(
                f"tables[{index}].table_id",
                "unique",
                f"tables[{index}].table_id {table.table_id!r} is used by an earlier table",
            )
        seen.add(table.table_id)
        cells += len(table.rows) * len(table.columns)
        if cells > MAX_CELLS:
            raise InvalidInput(
                "tables", "max_cells", f"the tables hold more than {MAX_CELLS} cells in all"
            )
        tables.append(table)
    return tuple(tables)


def render_tables(tables: Sequence[Table], offset: int) -> tuple[str, list[CellPlacement]]:
    """Render ``tables`` as text that will start at absolute ``offset`` of the combined text.

    Returns the text and one placement per non-empty cell (column 0 included), where
    ``combined[placement.start:placement.end]`` is the cell's value.
    """
    lines: list[str] = []
    placements: list[CellPlacement] = []
    position = offset
    for table in tables:
        if lines:
            lines.append("")
            position += 1
        title = table.title or table.table_id
        for line in (title, "| " + " | ".join(table.columns) + " |"):
            lines.append(line)
            position += len(line) + 1
        notes = " ".join(f"[{n}] {note}" for n, note in enumerate(table.footnotes, start=1))
        for row_index, row in enumerate(table.rows):
            cursor = position + 2
            for col, value in enumerate(row):
                if value:
                    envelope = _envelope(title, table.columns[col], row[0] if col else "", value)
                    placements.append(
                        CellPlacement(
                            table.table_id,
                            row_index,
                            col,
                            cursor,
                            cursor + len(value),
                            f"{envelope} {notes}" if notes else envelope,
                        )
                    )
                cursor += len(value) + 3
            line = "| " + " | ".join(row) + " |"
            lines.append(line)
            position += len(line) + 1
        for n, note in enumerate(table.footnotes, start=1):
            line = f"[{n}] {note}".rstrip()
            lines.append(line)
            position += len(line) + 1
    return "\n".join(lines), placements


def _envelope(title: str, header: str, label: str, value: str) -> str:
    where = f"{label}, {header}" if label else header
    return f"{title} \u2014 {where}: {value}"


def _parse_table(item: object, path: str) -> Table:
    if not isinstance(item, dict):
        raise InvalidInput(path, "type", f"{path} must be an object")
    table_id = _text(item, "table_id", path)
    if TABLE_ID.fullmatch(table_id) is None:
        raise InvalidInput(
            f"{path}.table_id",
            "pattern",
            f"{path}.table_id must be 1-64 characters from A-Z a-z 0-9 . _ : -",
        )
    title = _text(item, "title", path)
    columns = _strings(item.get("columns"), f"{path}.columns")
    if not columns:
        raise InvalidInput(f"{path}.columns", "non_empty", f"{path}.columns must not be empty")
    for col, header in enumerate(columns):
        if not header:
            raise InvalidInput(
                f"{path}.columns[{col}]", "non_empty", f"{path}.columns[{col}] must not be blank"
            )
    raw_rows = item.get("rows")
    if not isinstance(raw_rows, list):
        raise InvalidInput(f"{path}.rows", "type", f"{path}.rows must be a list of rows")
    rows: list[tuple[str, ...]] = []
    for row_index, raw_row in enumerate(raw_rows):
        row_path = f"{path}.rows[{row_index}]"
        row = _strings(raw_row, row_path)
        if len(row) != len(columns):
            raise InvalidInput(
                row_path,
                "row_length",
                f"{row_path} has {len(row)} cells but the table has {len(columns)} columns",
            )
        rows.append(row)
    footnotes = _strings(item.get("footnotes", []), f"{path}.footnotes")
    return Table(table_id, title, columns, tuple(rows), footnotes)


def _text(item: dict[object, object], key: str, path: str) -> str:
    if key not in item:
        raise InvalidInput(f"{path}.{key}", "required", f"{path}.{key} is missing")
    return _clean(item[key], f"{path}.{key}")


def _strings(value: object, path: str) -> tuple[str, ...]:
    if value is None:
        raise InvalidInput(path, "required", f"{path} is missing")
    if not isinstance(value, list):
        raise InvalidInput(path, "type", f"{path} must be a list of strings")
    return tuple(_clean(element, f"{path}[{index}]") for index, element in enumerate(value))


def _clean(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(path, "type", f"{path} must be a string")
    if _NOT_SINGLE_LINE.search(value) is not None:
        raise InvalidInput(
            path, "single_line", f"{path} must be one line without control characters"
        )
    return unicodedata.normalize("NFC", value).strip()
