"""Tables as clients send them, over HTTP on SQLite and PostgreSQL.

A TAT-QA-shaped table (two header rows, blank header cells, a section row) is accepted as it
comes; a claim citing a cell under a year header verifies; Markdown and HTML tables become
cells; bad table input is a 422 naming the field and the rule and writes nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from benchmarks.tatqa_rest import rest_span, source_body
from benchmarks.tatqa_tables import table_blocks
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import open_receipt, register
from tests.unit.gate._facts import STACKED_TABLE

TATQA_TABLE: dict[str, Any] = {
    "table_id": "t1",
    "title": "",
    "caption": "The following table presents revenue by type:",
    "header_rows": [
        ["($ in millions)", "Year Ended December 31,", "", ""],
        ["", "2019", "2018", "2017"],
    ],
    "rows": [
        ["Revenue:", "", "", ""],
        ["Product", "1,200", "1,000", "900"],
        ["Services", "300\n(restated)", "250", "200"],
    ],
}


@pytest.fixture
def headers(auth):  # type: ignore[no-untyped-def]
    return auth("ingest", "read", "claims:write", name="analyst")


def _cell(spans: list[dict[str, Any]], table_id: str, row: int, col: int) -> dict[str, Any]:
    return next(
        s for s in spans if s["table_ref"] == {"table_id": table_id, "row": row, "col": col}
    )


def test_a_tatqa_shaped_table_is_accepted_and_a_claim_citing_a_year_cell_verifies(
    client: TestClient, headers: dict[str, str]
) -> None:
    spans = register(client, headers, "report-1", "Annual report.", tables=[TATQA_TABLE])
    cell = _cell(spans, "t1", 1, 2)
    assert cell["text"] == "1,000"
    assert cell["envelope"] == (
        "The following table presents revenue by type: ($ in millions) \u2014 "
        "Revenue: Product, Year Ended December 31, 2018: 1,000"
    )
    assert _cell(spans, "t1", 2, 1)["text"] == "300 (restated)"
    receipt = open_receipt(client, headers, [cell["span_id"]])

    claim = {
        "text": "Product revenue was $1,000 million in 2018.",
        "bindings": [{"span_id": cell["span_id"]}],
    }
    response = client.post(
        f"/v1/receipts/{receipt}/claims", json={"claims": [claim]}, headers=headers
    )

    assert response.status_code == 201, response.text
    assert [c["status"] for c in response.json()["committed"]] == ["verified"], response.text


def test_a_version_read_shows_the_table_with_every_header_row(
    client: TestClient, headers: dict[str, str]
) -> None:
    register(client, headers, "report-2", "Annual report.", tables=[TATQA_TABLE])

    version = client.get("/v1/sources/report-2/versions/1", headers=headers).json()

    (table,) = version["tables"]
    assert table["header_rows"] == TATQA_TABLE["header_rows"]
    assert table["columns"][2] == "Year Ended December 31, 2018"
    assert table["caption"] == TATQA_TABLE["caption"]


def test_markdown_pipe_tables_become_cells_and_headings_are_not_spans(
    client: TestClient, headers: dict[str, str]
) -> None:
    text = "# Results\n\nSales rose.\n\n| Region | 2019 |\n|---|---|\n| EMEA | 10 |\n"

    spans = register(client, headers, "notes-1", text, media_type="text/markdown")

    assert [s["text"] for s in spans if s["table_ref"] is None] == ["Sales rose."]
    cell = _cell(spans, "doc-1", 0, 1)
    assert cell["envelope"] == "Results Region \u2014 EMEA, 2019: 10"


def test_html_tables_become_cells(client: TestClient, headers: dict[str, str]) -> None:
    text = (
        "<p>Sales.</p><table><tr><th>Region</th><th>2019</th></tr>"
        "<tr><td>EMEA</td><td>10</td></tr></table>"
    )

    spans = register(client, headers, "page-1", text, media_type="text/html")

    assert _cell(spans, "doc-1", 0, 1)["envelope"] == "Region \u2014 EMEA, 2019: 10"


@pytest.mark.parametrize(
    ("change", "field", "rule"),
    [
        ({"columns": ["a", "b", "c", "d"]}, "tables[0].header_rows", "one_of"),
        ({"header_rows": [["a", "b", "c", "d"], ["a"]]}, "tables[0].header_rows[1]", "row_length"),
        ({"header_rows": []}, "tables[0].header_rows", "non_empty"),
        ({"caption": 7}, "tables[0].caption", "type"),
        ({"rows": [["a", "b\x07", "c", "d"]]}, "tables[0].rows[0][1]", "single_line"),
    ],
)
def test_bad_table_input_is_a_422_naming_the_field_and_rule_and_writes_nothing(
    client: TestClient,
    headers: dict[str, str],
    runtime: LedgerRuntime,
    change: dict[str, Any],
    field: str,
    rule: str,
) -> None:
    position = runtime.ledger.last_position()
    body = {
        "source_id": "bad-1",
        "title": "Bad",
        "authority": "derived",
        "text": "Text.",
        "tables": [{**TATQA_TABLE, **change}],
    }

    response = client.post("/v1/sources", json=body, headers=headers)

    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    error = response.json()["errors"][0]
    assert (error["field"], error["rule"]) == (field, rule)
    assert field in error["message"]
    assert runtime.ledger.last_position() == position


def test_a_stacked_tatqa_table_is_sent_as_a_table_per_header_block(
    client: TestClient, headers: dict[str, str]
) -> None:
    """A table that stacks 2018 under 2019 with its own header rows reaches the ledger as two
    tables (benchmarks.tatqa_rest), so each cell's envelope names its own period."""
    table = STACKED_TABLE
    context = {"table": {"uid": "stacked", "table": table}, "paragraphs": [], "questions": []}
    body = source_body(context, with_caption=False)
    assert [t["table_id"] for t in body["tables"]] == ["t1", "t2"]
    response = client.post("/v1/sources", json=body, headers=headers)
    assert response.status_code == 201, response.text
    spans = response.json()["spans"]
    cell = rest_span("t5.1", spans, table_blocks(table), [])
    found = next(s for s in spans if s["span_id"] == cell)
    assert found["text"] == "$171"
    assert "2018" in found["envelope"]
    assert "2019" not in found["envelope"]
