"""Span lookups by range, by table cell and by quote; every span served is checked against
the verified version, so an edited read-model row is refused. SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import register
from tests.tamper import Tamperer

TEXT = "Revenue rose 2.2% in 2023. Costs fell \u2014 sharply. Staff grew."
INTEGRITY = "https://provledger.dev/problems/ledger-integrity"


@pytest.fixture
def client(settings: Settings, runtime: LedgerRuntime) -> Iterator[TestClient]:
    """No background poller: a row a test edits is read back as edited."""
    quiet = settings.model_copy(update={"background": False})
    with TestClient(create_app(quiet, runtime), raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def headers(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return auth("ingest", "read", name="app")


@pytest.fixture
def spans(client: TestClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    return register(client, headers, "report", TEXT, effective_from="2024-01-01T00:00:00Z")


def _search(client: TestClient, headers: dict[str, str], **body: Any):  # type: ignore[no-untyped-def]
    params = {k: body.pop(k) for k in ("limit", "after") if k in body}
    return client.post("/v1/spans/search", json=body, params=params, headers=headers)


def test_a_range_lookup_returns_the_spans_overlapping_the_range(
    client: TestClient, headers: dict[str, str], spans: list[dict[str, Any]]
) -> None:
    second = spans[1]
    path = "/v1/sources/report/versions/1/spans"

    inside = client.get(
        path, params={"start": second["start"] + 1, "end": second["start"] + 2}, headers=headers
    ).json()
    across = client.get(
        path, params={"start": spans[0]["end"] - 1, "end": second["start"] + 1}, headers=headers
    ).json()
    everything = client.get(path, headers=headers).json()

    assert [s["span_id"] for s in inside["items"]] == [second["span_id"]]
    assert [s["span_id"] for s in across["items"]] == [spans[0]["span_id"], second["span_id"]]
    assert [s["span_id"] for s in everything["items"]] == [s["span_id"] for s in spans]
    assert everything["next"] is None


def test_a_range_whose_end_is_not_after_its_start_is_refused(
    client: TestClient, headers: dict[str, str], spans: list[dict[str, Any]]
) -> None:
    response = client.get(
        "/v1/sources/report/versions/1/spans", params={"start": 5, "end": 5}, headers=headers
    )

    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "query.end"


def test_a_range_lookup_of_a_missing_version_is_404(
    client: TestClient, headers: dict[str, str], spans: list[dict[str, Any]]
) -> None:
    response = client.get("/v1/sources/report/versions/9/spans", headers=headers)

    assert response.status_code == 404


def test_a_cell_lookup_returns_table_cells_with_their_envelopes(
    client: TestClient, headers: dict[str, str]
) -> None:
    tables = [
        {
            "table_id": "t1",
            "title": "",
            "columns": ["Region", "2019", "2018"],
            "rows": [["EMEA", "10", "9"], ["APAC", "7", "6"]],
        }
    ]
    register(client, headers, "tab", "Sales by region.", tables=tables)
    path = "/v1/sources/tab/versions/1/cells"

    one = client.get(path, params={"table": "t1", "row": 1, "col": 2}, headers=headers).json()
    column = client.get(path, params={"col": 1}, headers=headers).json()

    [cell] = one["items"]
    assert cell["text"] == "6"
    assert cell["table_ref"] == {"table_id": "t1", "row": 1, "col": 2}
    assert "APAC" in cell["envelope"]
    assert "2018" in cell["envelope"]
    assert [c["text"] for c in column["items"]] == ["10", "7"]


def test_a_quote_search_matches_after_the_gates_quote_normalisation_only(
    client: TestClient, headers: dict[str, str], spans: list[dict[str, Any]]
) -> None:
    typographic = _search(client, headers, quote="Costs  fell - sharply").json()
    wrong_case = _search(client, headers, quote="costs fell").json()

    [found] = typographic["items"]
    assert found["span_id"] == spans[1]["span_id"]
    assert (found["source_id"], found["version"]) == ("report", 1)
    assert wrong_case["items"] == []


def test_a_quote_search_finds_text_written_in_compatibility_forms(
    client: TestClient, headers: dict[str, str]
) -> None:
    [span] = register(client, headers, "wide", "\uff32\uff45\uff56\uff45\uff4e\uff55\uff45 grew.")

    response = _search(client, headers, quote="Revenue grew")

    assert [s["span_id"] for s in response.json()["items"]] == [span["span_id"]]


def test_a_quote_search_sees_only_versions_in_force_at_as_of(
    client: TestClient, headers: dict[str, str], spans: list[dict[str, Any]]
) -> None:
    client.post(
        "/v1/sources/report/versions",
        json={"text": "Revenue rose 3.1% in 2024.", "effective_from": "2025-01-01T00:00:00Z"},
        headers=headers,
    )

    now = _search(client, headers, quote="Revenue rose").json()["items"]
    then = _search(client, headers, quote="Revenue rose", as_of="2024-06-01T00:00:00Z").json()
    before = _search(client, headers, quote="Revenue rose", as_of="2023-06-01T00:00:00Z").json()

    assert [(s["version"], s["text"]) for s in now] == [(2, "Revenue rose 3.1% in 2024.")]
    assert [s["span_id"] for s in then["items"]] == [spans[0]["span_id"]]
    assert before["items"] == []


def test_a_quote_search_pages_and_filters_by_source(
    client: TestClient, headers: dict[str, str], spans: list[dict[str, Any]]
) -> None:
    register(client, headers, "other", "Staff grew. Staff grew again.")
    first = _search(client, headers, quote="Staff grew", limit=2).json()
    rest = _search(client, headers, quote="Staff grew", limit=2, after=first["next"]).json()
    only = _search(client, headers, quote="Staff grew", source_id="report").json()

    found = [(s["source_id"], s["text"]) for s in first["items"] + rest["items"]]
    assert found == [
        ("other", "Staff grew."),
        ("other", "Staff grew again."),
        ("report", "Staff grew."),
    ]
    assert rest["next"] is None
    assert [s["source_id"] for s in only["items"]] == ["report"]


@pytest.mark.parametrize(("quote", "rule"), [("x" * 1001, "max-length"), ("  \n ", "non-empty")])
def test_a_quote_too_long_or_empty_is_refused_naming_the_rule(
    client: TestClient, headers: dict[str, str], quote: str, rule: str
) -> None:
    response = _search(client, headers, quote=quote)

    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert (error["field"], error["rule"]) == ("quote", rule)


def test_a_span_edited_in_the_read_model_is_refused_by_every_lookup(
    client: TestClient, headers: dict[str, str], spans: list[dict[str, Any]], runtime: LedgerRuntime
) -> None:
    Tamperer(runtime).read_model(
        "UPDATE registry_spans SET text = %s WHERE span_id = %s",
        "Revenue fell 9.2% in 2023.",
        spans[0]["span_id"],
    )

    ranged = client.get("/v1/sources/report/versions/1/spans", headers=headers)
    searched = _search(client, headers, quote="Revenue fell")

    for response in (ranged, searched):
        assert response.status_code == 500, response.text
        body = response.json()
        assert body["type"] == INTEGRITY
        assert body["reason"] == "read_model_mismatch"
        assert "Revenue fell" not in response.text


@pytest.mark.parametrize("source_id", ["\ud800", "a\u0000"])
def test_a_search_naming_a_source_id_no_column_can_hold_is_invalid_input(
    client: TestClient, headers: dict[str, str], source_id: str
) -> None:
    escaped = source_id.encode("unicode_escape").decode().replace("\\x00", "\\u0000")
    body = '{"quote": "Revenue", "source_id": "' + escaped + '"}'
    response = client.post(
        "/v1/spans/search",
        content=body,
        headers={**headers, "Content-Type": "application/json"},
    )

    assert response.status_code == 422, response.text
