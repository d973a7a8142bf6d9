"""The evidence registry over HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from ledger.runtime import LedgerRuntime

POLICY = """# Returns

## Damaged goods

Dr. Smith approved the U.S. policy on Jan. 5. Refunds of $4.5 million were paid, i.e. 2.2% of sales.
See section 4.2.1(b) for details.

## Late returns

Items returned after 30 days are not refunded.
"""


@pytest.fixture
def ingest(client: TestClient, auth):  # type: ignore[no-untyped-def]
    return auth("ingest", "read", name="ingester")


def _register(client: TestClient, headers: dict[str, str], **overrides: object):  # type: ignore[no-untyped-def]
    body = {
        "source_id": "policy-7",
        "title": "Returns policy",
        "text": POLICY,
        "media_type": "text/markdown",
        "authority": "source_of_record",
        "effective_from": "2026-01-01T00:00:00Z",
        **overrides,
    }
    return client.post("/v1/sources", json=body, headers=headers)


def test_registering_a_source_returns_spans_readable_at_once(
    client: TestClient, ingest: dict[str, str]
) -> None:
    response = _register(client, ingest)

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["version"] == 1
    assert body["version_hash"].startswith("sha256:")
    assert body["span_count"] == len(body["spans"]) > 0
    texts = [span["text"] for span in body["spans"]]
    assert "Dr. Smith approved the U.S. policy on Jan. 5." in texts
    refund = next(s for s in body["spans"] if s["text"].startswith("Refunds"))
    assert refund["heading_path"] == ["Returns", "Damaged goods"]

    span = client.get(f"/v1/spans/{refund['span_id']}", headers=ingest)
    assert span.status_code == 200
    assert span.json()["text"] == refund["text"]
    assert span.json()["status"] == "current"
    assert span.json()["version_hash"] == body["version_hash"]

    version = client.get("/v1/sources/policy-7/versions/1", headers=ingest).json()
    frozen = version["frozen_text"]
    for listed in version["spans"]:
        assert frozen[listed["start"] : listed["end"]] == listed["text"]


def test_the_same_text_again_is_idempotent(
    client: TestClient, ingest: dict[str, str], runtime: LedgerRuntime
) -> None:
    first = _register(client, ingest).json()
    position = runtime.ledger.last_position()

    again = _register(client, ingest)

    assert again.status_code == 200
    assert again.json()["version"] == 1
    assert [s["span_id"] for s in again.json()["spans"]] == [s["span_id"] for s in first["spans"]]
    assert runtime.ledger.last_position() == position


def test_different_text_for_an_existing_source_is_409_pointing_at_versions(
    client: TestClient, ingest: dict[str, str]
) -> None:
    _register(client, ingest)
    response = _register(client, ingest, text="Something else entirely.")
    assert response.status_code == 409
    assert "/v1/sources/policy-7/versions" in response.json()["detail"]


def test_a_new_version_supersedes_the_old_which_stays_resolvable(
    client: TestClient, ingest: dict[str, str]
) -> None:
    old = _register(client, ingest).json()
    response = client.post(
        "/v1/sources/policy-7/versions",
        json={
            "text": POLICY.replace("30 days", "45 days"),
            "media_type": "text/markdown",
            "effective_from": "2026-06-01T00:00:00Z",
        },
        headers=ingest,
    )
    assert response.status_code == 201, response.text
    assert response.json()["version"] == 2

    source = client.get("/v1/sources/policy-7", headers=ingest).json()
    v1, v2 = source["versions"]
    assert (v1["status"], v2["status"]) == ("superseded", "current")
    assert v1["effective_to"] == v2["effective_from"] == "2026-06-01T00:00:00.000000Z"
    old_span = client.get(f"/v1/spans/{old['spans'][-1]['span_id']}", headers=ingest).json()
    assert old_span["status"] == "superseded"
    assert old_span["version"] == 1


def test_withdrawn_sources_still_resolve_marked_withdrawn(
    client: TestClient, ingest: dict[str, str]
) -> None:
    spans = _register(client, ingest).json()["spans"]
    response = client.post(
        "/v1/sources/policy-7/withdraw", json={"reason": "retracted"}, headers=ingest
    )
    assert response.status_code == 200
    assert response.json()["status"] == "withdrawn"
    span = client.get(f"/v1/spans/{spans[0]['span_id']}", headers=ingest).json()
    assert span["status"] == "withdrawn"
    again = client.post("/v1/sources/policy-7/withdraw", json={"reason": "x"}, headers=ingest)
    assert again.status_code == 409


def test_span_context_returns_neighbours(client: TestClient, ingest: dict[str, str]) -> None:
    spans = _register(client, ingest).json()["spans"]
    middle = [s for s in spans if s["parent_span_id"] is None][2]

    context = client.get(f"/v1/spans/{middle['span_id']}/context?window=1", headers=ingest).json()

    assert len(context["before"]) == 1
    assert len(context["after"]) == 1
    assert context["before"][0]["sent_index"] == middle["sent_index"] - 1


def test_tables_become_citeable_cells_with_their_envelope(
    client: TestClient, ingest: dict[str, str]
) -> None:
    table = {
        "table_id": "t1",
        "title": "Revenue by segment",
        "columns": ["Segment", "FY2023", "FY2022"],
        "rows": [["Services", "$4.5 million", "$3.9 million"]],
        "footnotes": ["Figures in USD."],
    }
    body = _register(client, ingest, tables=[table]).json()

    cell = next(
        s for s in body["spans"] if s["table_ref"] == {"table_id": "t1", "row": 0, "col": 1}
    )
    assert cell["text"] == "$4.5 million"
    for needle in ("Revenue by segment", "FY2023", "Services", "Figures in USD."):
        assert needle in cell["envelope"]


@pytest.mark.parametrize(
    ("overrides", "status", "field"),
    [
        ({"source_id": "bad id!"}, 422, "source_id"),
        ({"source_id": "x" * 129}, 422, "source_id"),
        ({"text": "   \n "}, 422, "text"),
        ({"media_type": "application/pdf"}, 422, "media_type"),
        ({"authority": "gossip"}, 422, "authority"),
        ({"effective_from": "yesterday"}, 422, "effective_from"),
        (
            {
                "tables": [
                    {
                        "table_id": "t",
                        "title": "x",
                        "columns": ["a"],
                        "rows": [["1", "2"]],
                        "footnotes": [],
                    }
                ]
            },
            422,
            "tables",
        ),
        ({"title": ""}, 422, "title"),
    ],
)
def test_bad_input_gets_a_4xx_naming_the_field_and_writes_nothing(
    client: TestClient,
    ingest: dict[str, str],
    runtime: LedgerRuntime,
    overrides: dict[str, object],
    status: int,
    field: str,
) -> None:
    position = runtime.ledger.last_position()

    response = _register(client, ingest, **overrides)

    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["errors"][0]["field"].startswith(field)
    assert runtime.ledger.last_position() == position


def test_invalid_utf8_is_a_4xx(client: TestClient, ingest: dict[str, str]) -> None:
    body = b'{"source_id":"s","title":"t","authority":"derived","text":"\xff\xfe bad"}'
    response = client.post(
        "/v1/sources", content=body, headers={**ingest, "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["errors"][0] == {
        "field": "body",
        "rule": "utf-8",
        "message": "the request body is not valid UTF-8 (byte 59)",
    }


def test_text_over_the_limit_is_413(
    client: TestClient, ingest: dict[str, str], runtime: LedgerRuntime
) -> None:
    runtime.sources.limits = type(runtime.sources.limits)(max_text_bytes=1000)
    response = _register(client, ingest, text="word " * 300)
    assert response.status_code == 413
    assert "limit is 1000 bytes" in response.json()["detail"]


def test_reading_needs_the_read_scope(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    headers = auth("ingest")
    assert client.get("/v1/sources/anything", headers=headers).status_code == 403


def test_unknown_things_are_404(client: TestClient, ingest: dict[str, str]) -> None:
    assert client.get("/v1/sources/nope", headers=ingest).status_code == 404
    assert client.get("/v1/spans/sp_nope", headers=ingest).status_code == 404
    _register(client, ingest)
    assert client.get("/v1/sources/policy-7/versions/9", headers=ingest).status_code == 404


@pytest.mark.parametrize("field", ["title", "text", "uri"])
def test_lone_surrogates_are_refused_by_field(
    client: TestClient, ingest: dict[str, str], runtime: LedgerRuntime, field: str
) -> None:
    body = (
        '{"source_id":"s1","title":"T","text":"Fine text.","authority":"derived","uri":"u"}'
    ).replace(f'"{field}":"', f'"{field}":"\\ud800')
    response = client.post(
        "/v1/sources", content=body.encode(), headers={**ingest, "Content-Type": "application/json"}
    )
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0] == {
        "field": field,
        "rule": "utf-8",
        "message": f"{field} contains a lone surrogate",
    }
    assert runtime.ledger.last_position() == 1  # only the key issued by the fixture
