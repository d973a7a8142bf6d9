"""A cited table cell in the table's own words: its row label and its column header."""

from __future__ import annotations

from typing import Any

from api.console.citations import breadcrumb, cell_position
from ledger.text.tables import parse_tables, render_tables, table_json


def _cell(raw: list[dict[str, Any]], row: int, col: int) -> tuple[Any, ...]:
    """The recorded tables and the placement of the cell at ``row``, ``col``."""
    tables = parse_tables(raw)
    _, placements = render_tables(tables, 0)
    placed = next(p for p in placements if (p.row, p.col) == (row, col))
    value = tables[0].rows[row][col]
    return [table_json(t) for t in tables], placed.table_id, row, col, placed.envelope, value


def test_a_cell_reads_as_its_row_label_and_its_column_header() -> None:
    raw = [
        {
            "table_id": "doc-1",
            "title": "Revenue by segment",
            "caption": "Revenue by segment",
            "columns": ["Segment", "FY2023", "FY2022"],
            "rows": [["Services", "$4.5 million", "$3.9 million"]],
        }
    ]
    position = cell_position(*_cell(raw, 0, 1))
    assert position.table == "Revenue by segment"  # title and caption once
    assert (position.row, position.column, position.value) == ("Services", "FY2023", "$4.5 million")


def test_a_header_path_with_a_comma_stays_whole() -> None:
    raw = [
        {
            "table_id": "t",
            "title": "Income",
            "units": "in thousands",
            "header_rows": [["", "Year Ended December 31,", ""], ["", "2019", "2018"]],
            "rows": [["Revenue:", "", ""], ["Product", "1,200", "1,000"]],
        }
    ]
    position = cell_position(*_cell(raw, 1, 2))
    assert position.table == "Income (in thousands)"
    assert position.column == "Year Ended December 31, 2018"
    assert position.row == "Revenue: Product"


def test_a_cell_without_labels_or_header_is_counted_from_one() -> None:
    raw = [{"table_id": "t", "title": "", "columns": ["", ""], "rows": [["", "7"]]}]
    position = cell_position(*_cell(raw, 0, 1))
    assert (position.row, position.column) == ("row 1", "column 2")
    assert position.table == "table t"


def test_a_cell_of_a_table_the_version_does_not_record_still_reads() -> None:
    position = cell_position((), "gone", 2, 0, None, "x")
    assert (position.table, position.row, position.column) == ("table gone", "row 3", "column 1")


def test_a_breadcrumb_does_not_repeat_the_title_as_its_first_heading() -> None:
    assert breadcrumb("Segment report", ["Segment report", "Revenue"]) == ["Revenue"]
    assert breadcrumb("Policy", ["Returns", "Damaged goods"]) == ["Returns", "Damaged goods"]
    assert breadcrumb("Policy", None) == []
