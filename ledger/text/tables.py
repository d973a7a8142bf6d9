"""Tabular evidence: validation, plain-text rendering and citeable cell envelopes.

Input (:func:`parse_tables`) is JSON-like: a list of objects with

* ``table_id``: matching ``[A-Za-z0-9._:-]{1,64}``, unique;
* ``title``: string (may be empty);
* the header, either ``columns`` (one header row: a list of strings) or ``header_rows`` (a
  non-empty list of header rows, outermost first), never both;
* ``rows``: list of data rows (lists of strings), each as wide as the header;
* optional ``caption`` (string), ``units`` (a unit or scale note such as ``in thousands``),
  ``footnotes`` (list of strings) and ``label_columns`` (how many leading columns hold row
  labels; default 1, at most the width). Other keys are ignored.

Every string is normalised on the way in: a line break or tab inside a cell becomes one space
(runs of white space collapse), other control characters are refused (rule ``single_line``),
and the value is stored stripped and in Unicode NFC so that the rendered text is already
normal. At most :data:`MAX_CELLS` cells in all.

Header cells may be blank. A blank header cell over a value column takes the text of the
nearest non-blank cell to its left in the same header row, as a merged cell spanning right
would (``Year Ended December 31,`` over three year columns), as long as both sit under the
same (filled) header cell of the row above; otherwise the header above spans down into it
and it adds nothing (a blank under ``Change`` beside ``2018`` stays ``Change``). A header row
with a single non-blank cell over the value columns spans all of them (``$ in thousands``
under the years). A column's
*header path* is its header cells from the top down, repeated texts dropped, joined with
spaces (``Year Ended December 31, 2019``). Header cells over the label columns, in every header
row (the stub head, e.g. ``($ in millions)``, ``Quarters Ended``, ``Segment``), describe the
whole table and join its heading in envelopes (since ``provledger-segmenter/3``; before it, the
last header row's label cells were left out, as names of the label columns only). The last
header row's label cells also name the label columns (:attr:`Table.columns`).

Layout (:func:`render_tables`); tables are separated by one blank line::

    Revenue by segment                <- title (else the caption, else "Table {table_id}")
    The segments we report.           <- the caption, when there is a title too
    (in thousands)                    <- the units note
    | Segment | FY2023 |              <- one line per header row
    | Services | $4.5 million |       <- one line per row; an empty cell renders as nothing
    [1] Figures in USD.               <- one line per footnote

Envelope of a cell (one line, what a citation of that cell shows)::

    {heading} — {row labels}, {header path}: {value}[ [1] {footnote 1}...]

``{heading}`` is the title, caption, stub head and ``({units})``, those present, joined with
spaces (``Table`` when none is). ``{row labels}`` are the non-blank label cells left of the
cell, joined with ``, ``, prefixed by the current section: a data row whose only non-blank
cells are labels opens a section (``Revenue:``) that prefixes the labels of the rows below it
(``Revenue: Product``). e.g. ``Revenue by segment Segment — Services, FY2023: $4.5 million [1]
Figures in USD.``; a part that is empty is dropped with its separator.
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

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x84\x86-\x9f]")
_LINE_SPACE = re.compile(r"[\s\u2028\u2029\x85]+")


@dataclass(frozen=True, slots=True)
class Table:
    """A validated table: id, title, header rows, data rows, notes and the label columns."""

    table_id: str
    title: str
    header_rows: tuple[tuple[str, ...], ...]
    rows: tuple[tuple[str, ...], ...]
    footnotes: tuple[str, ...] = ()
    caption: str = ""
    units: str = ""
    label_columns: int = 1

    @property
    def width(self) -> int:
        """The number of columns."""
        return len(self.header_rows[0])

    @property
    def columns(self) -> tuple[str, ...]:
        """Each column's header path (blank header cells filled, see the module docstring)."""
        filled: list[list[str]] = []
        for row in self.header_rows:
            filled.append(_fill_right(row, self.label_columns, filled[-1] if filled else None))
        values = (
            " ".join(_distinct(row[col] for row in filled))
            for col in range(self.label_columns, self.width)
        )
        return (*self.header_rows[-1][: self.label_columns], *values)

    @property
    def heading(self) -> str:
        """What stands before `` — `` in every envelope of this table."""
        stub = [cell for row in self.header_rows for cell in row[: self.label_columns] if cell]
        units = f"({self.units.strip('()')})" if self.units else ""
        parts = _distinct([self.title, self.caption, *stub, units])
        return " ".join(part for part in parts if part) or "Table"


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
    return check_tables([_parse_table(item, f"tables[{i}]") for i, item in enumerate(raw)])


def with_document_tables(
    document: Sequence[Table], requested: Sequence[Table]
) -> tuple[Table, ...]:
    """The document's own tables (ids ``doc-N``) followed by the request's ``tables``.

    Raises :class:`~ledger.errors.InvalidInput` when a requested table takes a document
    table's id, or the cells together pass :data:`MAX_CELLS`.
    """
    taken = {table.table_id for table in document}
    for index, table in enumerate(requested):
        if table.table_id in taken:
            raise InvalidInput(
                f"tables[{index}].table_id",
                "unique",
                f"tables[{index}].table_id {table.table_id!r} is the id of a table of the "
                "document (its HTML or Markdown tables are doc-1, doc-2, ...)",
            )
    return check_tables([*document, *requested])


def check_tables(tables: Sequence[Table], field: str = "tables") -> tuple[Table, ...]:
    """Check that table ids are unique and the cells within :data:`MAX_CELLS`."""
    seen: set[str] = set()
    cells = 0
    for index, table in enumerate(tables):
        if table.table_id in seen:
            raise InvalidInput(
                f"{field}[{index}].table_id",
                "unique",
                f"{field}[{index}].table_id {table.table_id!r} is used by an earlier table",
            )
        seen.add(table.table_id)
        cells += (len(table.rows) + len(table.header_rows)) * table.width
        if cells > MAX_CELLS:
            raise InvalidInput(
                field, "max_cells", f"the tables hold more than {MAX_CELLS} cells in all"
            )
    return tuple(tables)


def render_tables(tables: Sequence[Table], offset: int) -> tuple[str, list[CellPlacement]]:
    """Render ``tables`` as text that will start at absolute ``offset`` of the combined text.

    Returns the text and one placement per non-empty data cell (label columns included), where
    ``combined[placement.start:placement.end]`` is the cell's value.
    """
    lines: list[str] = []
    placements: list[CellPlacement] = []
    position = offset
    for table in tables:
        if lines:
            lines.append("")
            position += 1
        for line in _head_lines(table):
            lines.append(line)
            position += len(line) + 1
        heading = table.heading
        columns = table.columns
        notes = " ".join(f"[{n}] {note}" for n, note in enumerate(table.footnotes, start=1))
        section = ""
        for row_index, row in enumerate(table.rows):
            labels = [cell for cell in row[: table.label_columns] if cell]
            opens_section = bool(labels) and not any(row[table.label_columns :])
            if opens_section:
                section = labels[0].rstrip(":")
            cursor = position + 2
            for col, value in enumerate(row):
                if value:
                    left = ", ".join(cell for cell in row[: min(col, table.label_columns)] if cell)
                    if section and not opens_section:
                        left = f"{section}: {left}" if left else section
                    envelope = _envelope(heading, left, columns[col], value, row_index, col)
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


def table_json(table: Table) -> dict[str, object]:
    """A table as recorded in a ``VersionAdded`` event (version 2) and shown on reads."""
    return {
        "table_id": table.table_id,
        "title": table.title,
        "caption": table.caption,
        "units": table.units,
        "label_columns": table.label_columns,
        "header_rows": [list(row) for row in table.header_rows],
        "columns": list(table.columns),
        "rows": [list(row) for row in table.rows],
        "footnotes": list(table.footnotes),
    }


def _head_lines(table: Table) -> list[str]:
    first = table.title or table.caption or f"Table {table.table_id}"
    lines = [first]
    if table.title and table.caption:
        lines.append(table.caption)
    if table.units:
        lines.append(f"({table.units.strip('()')})")
    lines.extend("| " + " | ".join(row) + " |" for row in table.header_rows)
    return lines


def _fill_right(row: Sequence[str], label_columns: int, above: list[str] | None) -> list[str]:
    """A header row with each blank cell over a value column taking the text to its left,
    within the span of the (filled) header row ``above``."""
    filled = list(row)
    labels = [cell for cell in filled[label_columns:] if cell]
    if len(labels) == 1 and len(filled) - label_columns > 1:
        # One label over the value columns is a cell merged across all of them.
        return [*filled[:label_columns], *[labels[0]] * (len(filled) - label_columns)]
    for col in range(label_columns + 1, len(filled)):
        same_group = above is None or above[col] == above[col - 1]
        if not filled[col] and same_group:
            filled[col] = filled[col - 1]
    return filled


def _distinct(parts: object) -> list[str]:
    """Non-blank parts in order, each text kept once."""
    out: list[str] = []
    for part in parts:  # type: ignore[attr-defined]
        if part and part not in out:
            out.append(part)
    return out


def cell_labels(envelope: str, value: str) -> str:
    """A cell envelope's row labels and column header: what lies between the table's heading
    (up to the last `` — ``) and ``: <value>``. A heading and a value are shared by many
    cells (every cell of a table, every year's ``12``); the labels say which cell it is. The
    whole envelope when it does not have that shape."""
    head, colon, _ = envelope.rpartition(f": {value}")
    _, dash, where = head.rpartition(" \u2014 ")
    return where if colon and dash and where.strip() else envelope


def _envelope(heading: str, labels: str, header: str, value: str, row: int, col: int) -> str:
    where = ", ".join(part for part in (labels, header) if part)
    if not where:
        where = f"row {row + 1}, column {col + 1}"  # a label cell under a blank stub
    return f"{heading} \u2014 {where}: {value}"


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
    header_rows = _header(item, path)
    width = len(header_rows[0])
    raw_rows = item.get("rows")
    if not isinstance(raw_rows, list):
        raise InvalidInput(f"{path}.rows", "type", f"{path}.rows must be a list of rows")
    rows = tuple(_row(raw_row, f"{path}.rows[{i}]", width) for i, raw_row in enumerate(raw_rows))
    footnotes = _strings(item.get("footnotes", []), f"{path}.footnotes")
    caption = _clean(item.get("caption", ""), f"{path}.caption")
    units = _clean(item.get("units", ""), f"{path}.units")
    label_columns = item.get("label_columns", 1)
    if (
        not isinstance(label_columns, int)
        or isinstance(label_columns, bool)
        or not 0 <= label_columns <= width
    ):
        raise InvalidInput(
            f"{path}.label_columns",
            "range",
            f"{path}.label_columns must be an integer from 0 to the width ({width})",
        )
    return Table(table_id, title, header_rows, rows, footnotes, caption, units, label_columns)


def _header(item: dict[object, object], path: str) -> tuple[tuple[str, ...], ...]:
    if "columns" in item and "header_rows" in item:
        raise InvalidInput(
            f"{path}.header_rows",
            "one_of",
            f"{path}.header_rows and {path}.columns are exclusive: give one header row as "
            "columns or every header row as header_rows",
        )
    if "header_rows" not in item:
        columns = _strings(item.get("columns"), f"{path}.columns")
        if not columns:
            raise InvalidInput(f"{path}.columns", "non_empty", f"{path}.columns must not be empty")
        return (columns,)
    raw = item["header_rows"]
    field = f"{path}.header_rows"
    if not isinstance(raw, list) or not raw:
        raise InvalidInput(field, "non_empty", f"{field} must be a non-empty list of header rows")
    first = _strings(raw[0], f"{field}[0]")
    if not first:
        raise InvalidInput(f"{field}[0]", "non_empty", f"{field}[0] must not be empty")
    return (first, *(_row(row, f"{field}[{i}]", len(first)) for i, row in enumerate(raw) if i))


def _row(raw_row: object, row_path: str, width: int) -> tuple[str, ...]:
    row = _strings(raw_row, row_path)
    if len(row) != width:
        raise InvalidInput(
            row_path,
            "row_length",
            f"{row_path} has {len(row)} cells but the table has {width} columns",
        )
    return row


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


def clean_cell(value: str) -> str:
    """A cell's text as stored: white space runs (line breaks too) as one space, stripped, NFC.

    Control characters other than white space are removed; use :func:`_clean` to refuse them.
    """
    value = _CONTROL.sub("", value)
    return unicodedata.normalize("NFC", _LINE_SPACE.sub(" ", value)).strip()


def _clean(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(path, "type", f"{path} must be a string")
    if _CONTROL.search(value) is not None:
        raise InvalidInput(
            path, "single_line", f"{path} must not hold control characters other than line breaks"
        )
    return clean_cell(value)
