"""Tables: validation errors name the field path; rendering places every cell exactly."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.errors import InvalidInput
from ledger.registry.ingestion import Limits, prepare_version
from ledger.text.normalize import normalise
from ledger.text.spans import check_spans
from ledger.text.tables import MAX_CELLS, Table, cell_labels, parse_tables, render_tables


def _without(key: str) -> dict[str, Any]:
    return {k: v for k, v in _table().items() if k != key}


def _table(**changes: Any) -> dict[str, Any]:
    table: dict[str, Any] = {
        "table_id": "rev-2023",
        "title": "Revenue by segment",
        "columns": ["Segment", "FY2023", "FY2022"],
        "rows": [["Services", "$4.5 million", "$3.9 million"], ["Hardware", "", "$1.2 million"]],
        "footnotes": ["Figures in USD."],
    }
    table.update(changes)
    return table


def _combined(tables: tuple[Table, ...], body: str = "Body text.") -> tuple[str, list[Any]]:
    rendered, cells = render_tables(tables, len(body) + 2)
    return body + "\n\n" + rendered, cells


def test_parses_a_valid_table() -> None:
    (table,) = parse_tables([_table()])
    assert table.table_id == "rev-2023"
    assert table.rows[1] == ("Hardware", "", "$1.2 million")
    assert table.footnotes == ("Figures in USD.",)


def test_footnotes_are_optional() -> None:
    raw = _table()
    del raw["footnotes"]
    assert parse_tables([raw])[0].footnotes == ()


def test_places_every_non_empty_cell_at_its_value_in_the_combined_text() -> None:
    tables = parse_tables([_table(), _table(table_id="other", title="", rows=[["x", "y", "z"]])])
    combined, cells = _combined(tables)
    by_cell = {(cell.table_id, cell.row, cell.col): cell for cell in cells}
    for table in tables:
        for row_index, row in enumerate(table.rows):
            for col, value in enumerate(row):
                key = (table.table_id, row_index, col)
                if not value:
                    assert key not in by_cell
                    continue
                cell = by_cell[key]
                assert combined[cell.start : cell.end] == value


def test_envelope_carries_title_header_row_label_value_and_footnotes() -> None:
    _, cells = _combined(parse_tables([_table()]))
    cell = next(cell for cell in cells if (cell.row, cell.col) == (0, 1))
    assert (
        cell.envelope
        == "Revenue by segment Segment \u2014 Services, FY2023: $4.5 million [1] Figures in USD."
    )
    label = next(cell for cell in cells if (cell.row, cell.col) == (1, 0))
    assert (
        label.envelope == "Revenue by segment Segment \u2014 Segment: Hardware [1] Figures in USD."
    )


def test_renders_title_header_rows_and_footnotes_as_lines() -> None:
    rendered, _ = render_tables(parse_tables([_table()]), 0)
    assert rendered.split("\n") == [
        "Revenue by segment",
        "| Segment | FY2023 | FY2022 |",
        "| Services | $4.5 million | $3.9 million |",
        "| Hardware |  | $1.2 million |",
        "[1] Figures in USD.",
    ]


BAD_TABLES: list[tuple[str, object, str, str]] = [
    ("not-a-list", {"table_id": "x"}, "tables", "type"),
    ("table-not-an-object", ["x"], "tables[0]", "type"),
    ("missing-table-id", [_without("table_id")], "tables[0].table_id", "required"),
    ("table-id-not-a-string", [_table(table_id=7)], "tables[0].table_id", "type"),
    ("table-id-with-space", [_table(table_id="a b")], "tables[0].table_id", "pattern"),
    ("table-id-too-long", [_table(table_id="x" * 65)], "tables[0].table_id", "pattern"),
    ("duplicate-table-id", [_table(), _table()], "tables[1].table_id", "unique"),
    ("missing-title", [_without("title")], "tables[0].title", "required"),
    ("empty-columns", [_table(columns=[], rows=[])], "tables[0].columns", "non_empty"),
    ("columns-not-a-list", [_table(columns="A,B")], "tables[0].columns", "type"),
    ("rows-missing", [_without("rows")], "tables[0].rows", "type"),
    ("short-row", [_table(rows=[["a", "b", "c"], ["a", "b"]])], "tables[0].rows[1]", "row_length"),
    ("non-string-cell", [_table(rows=[["a", 4.5, "c"]])], "tables[0].rows[0][1]", "type"),
    ("row-not-a-list", [_table(rows=["abc"])], "tables[0].rows[0]", "type"),
    ("control-character-in-cell", [_table(rows=[["a", "b\x00c", "d"]])], "tables[0].rows[0][1]",
     "single_line"),
    ("columns-and-header-rows", [_table(header_rows=[["A", "B", "C"]])], "tables[0].header_rows",
     "one_of"),
    ("empty-header-rows", [{**_without("columns"), "header_rows": []}], "tables[0].header_rows",
     "non_empty"),
    ("short-header-row", [{**_without("columns"), "header_rows": [["A", "B", "C"], ["A"]]}],
     "tables[0].header_rows[1]", "row_length"),
    ("label-columns-past-width", [_table(label_columns=4)], "tables[0].label_columns", "range"),
    ("label-columns-not-an-integer", [_table(label_columns="1")], "tables[0].label_columns",
     "range"),
    ("caption-not-a-string", [_table(caption=3)], "tables[0].caption", "type"),
    ("units-not-a-string", [_table(units=["x"])], "tables[0].units", "type"),
    ("footnote-not-a-string", [_table(footnotes=[None])], "tables[0].footnotes[0]", "type"),
    ("too-many-cells", [_table(columns=["A"], rows=[["x"]] * (MAX_CELLS + 1))], "tables",
     "max_cells"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "field", "rule"),
    [case[1:] for case in BAD_TABLES],
    ids=[case[0] for case in BAD_TABLES],
)
def test_rejects_a_bad_table_naming_the_field_and_rule(raw: object, field: str, rule: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_tables(raw)
    assert (caught.value.field, caught.value.rule) == (field, rule)
    assert field in caught.value.message


def _tatqa_shaped(**changes: Any) -> dict[str, Any]:
    """Two header rows with blank header cells, as TAT-QA tables come."""
    table: dict[str, Any] = {
        "table_id": "t1",
        "title": "",
        "header_rows": [
            ["($ in millions)", "Year Ended December 31,", "", "Change"],
            ["", "2019", "2018", ""],
        ],
        "rows": [
            ["Revenue:", "", "", ""],
            ["Product", "1,200", "1,000", "20%"],
            ["Services", "300", "250", "20%"],
        ],
    }
    table.update(changes)
    return table


def _envelope_of(table: dict[str, Any], row: int, col: int) -> str:
    _, cells = _combined(parse_tables([table]))
    return next(cell.envelope for cell in cells if (cell.row, cell.col) == (row, col))


def test_a_single_header_row_as_columns_still_works() -> None:
    (table,) = parse_tables([_table()])
    assert table.header_rows == (("Segment", "FY2023", "FY2022"),)
    assert table.columns == ("Segment", "FY2023", "FY2022")


def test_a_cell_envelope_carries_every_header_above_it_and_the_row_label() -> None:
    envelope = _envelope_of(_tatqa_shaped(), 1, 2)
    assert (
        envelope == "($ in millions) \u2014 Revenue: Product, Year Ended December 31, 2018: 1,000"
    )


def test_a_blank_header_cell_inherits_the_header_to_its_left() -> None:
    (table,) = parse_tables([_tatqa_shaped()])
    assert table.columns == (
        "",
        "Year Ended December 31, 2019",
        "Year Ended December 31, 2018",
        "Change",
    )


def test_a_blank_header_cell_under_a_header_takes_only_the_header_above() -> None:
    envelope = _envelope_of(_tatqa_shaped(), 2, 3)
    assert envelope == "($ in millions) \u2014 Revenue: Services, Change: 20%"


def test_a_row_with_only_a_label_opens_a_section_that_prefixes_the_rows_below() -> None:
    label = _envelope_of(_tatqa_shaped(), 0, 0)
    assert label == "($ in millions) \u2014 row 1, column 1: Revenue:"
    assert _envelope_of(_tatqa_shaped(), 2, 0) == "($ in millions) \u2014 Revenue: Services"


def test_caption_and_units_join_the_envelope_heading() -> None:
    table = _table(caption="Segment revenue for the year.", units="in thousands")
    envelope = _envelope_of(table, 0, 1)
    assert envelope.startswith(
        "Revenue by segment Segment revenue for the year. Segment (in thousands) \u2014 Services,"
    )


def test_a_table_without_title_or_caption_has_no_table_id_in_its_envelopes() -> None:
    envelope = _envelope_of(_table(title="", table_id="t9", columns=["", "B", "C"]), 0, 1)
    assert envelope == "Table \u2014 Services, B: $4.5 million [1] Figures in USD."


def test_renders_caption_units_and_every_header_row() -> None:
    rendered, _ = render_tables(parse_tables([_tatqa_shaped(caption="Revenue", units="$m")]), 0)
    assert rendered.split("\n")[:4] == [
        "Revenue",
        "($m)",
        "| ($ in millions) | Year Ended December 31, |  | Change |",
        "|  | 2019 | 2018 |  |",
    ]


def test_a_line_break_inside_a_cell_becomes_one_space() -> None:
    (table,) = parse_tables([_table(rows=[["Services\r\n and  support", "4.5\u2028m", "3\t9"]])])
    assert table.rows[0] == ("Services and support", "4.5 m", "3 9")
    combined, cells = _combined((table,))
    assert all(combined[cell.start : cell.end] for cell in cells)
    assert "Services and support" in combined


def test_two_label_columns_both_label_a_value_cell() -> None:
    table = _table(
        columns=["Region", "Segment", "FY2023"],
        rows=[["EMEA", "Services", "4.5"]],
        label_columns=2,
    )
    assert _envelope_of(table, 0, 2).startswith(
        "Revenue by segment Region Segment \u2014 EMEA, Services, FY2023: 4.5"
    )


_CELL = st.lists(
    st.sampled_from(
        ["a", "B", "7", " ", "\n", "\r\n", "\t", "\u2028", "|", ":", "\u00e9", "e\u0301"]
    ),
    max_size=6,
).map("".join)


@st.composite
def _raw_tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    width = draw(st.integers(1, 4))
    row = st.lists(_CELL, min_size=width, max_size=width)
    return [
        {
            "table_id": f"t{index}",
            "title": draw(_CELL),
            "caption": draw(_CELL),
            "units": draw(_CELL),
            "header_rows": draw(st.lists(row, min_size=1, max_size=3)),
            "rows": draw(st.lists(row, max_size=4)),
            "footnotes": draw(st.lists(_CELL, max_size=2)),
            "label_columns": draw(st.integers(0, width)),
        }
        for index in range(draw(st.integers(1, 2)))
    ]


@settings(max_examples=200, deadline=None)
@given(_raw_tables())
def test_every_cell_span_points_at_its_value_in_the_frozen_text(raw: list[dict[str, Any]]) -> None:
    prepared = prepare_version("s", "Body text.", "text/plain", "T", raw, Limits())
    check_spans(prepared.text, prepared.spans)
    cells = [span for span in prepared.spans if span.table_ref is not None]
    tables = {table.table_id: table for table in prepared.tables}
    for span in cells:
        ref = span.table_ref
        assert ref is not None
        assert tables[ref.table_id].rows[ref.row][ref.col] == span.text
        assert span.envelope is not None
        assert f": {span.text}" in span.envelope
        assert "\n" not in span.envelope
    again, _ = normalise(prepared.text, "text/plain")
    assert again == prepared.text


def test_the_stub_head_of_the_last_header_row_joins_the_heading() -> None:
    # A one-row header whose label cell says what the columns are (``Quarters Ended``), as
    # PDF extraction leaves it: the words belong to every value cell of the table.
    table = _table(
        title="",
        columns=["Quarters Ended", "July 27, 2019", "April 27, 2019"],
        rows=[["Revenue", "$13,428", "$12,958"]],
        footnotes=[],
    )
    assert _envelope_of(table, 0, 2) == "Quarters Ended \u2014 Revenue, April 27, 2019: $12,958"
    assert _envelope_of(table, 0, 0) == "Quarters Ended \u2014 Quarters Ended: Revenue"


@pytest.mark.parametrize(
    ("envelope", "value", "labels"),
    [
        (
            "Costs (in thousands) \u2014 Revenue: Product, 2019: 1,204",
            "1,204",
            "Revenue: Product, 2019",
        ),
        ("Costs \u2014 A \u2014 B \u2014 Total, 2019: $ 5", "$ 5", "Total, 2019"),
        ("Costs \u2014 Total, 2019: 12 [1]", "12", "Total, 2019"),  # a footnote after the value
        ("Costs \u2014 Total, Note: 12: 12", "12", "Total, Note: 12"),
        ("Tickets | Adults | 25", "25", "Tickets | Adults | 25"),  # not an envelope: all of it
        ("Costs \u2014 : 25", "25", "Costs \u2014 : 25"),  # no labels: all of it
    ],
)
def test_cell_labels_are_what_lies_between_the_heading_and_the_value(
    envelope: str, value: str, labels: str
) -> None:
    assert cell_labels(envelope, value) == labels
