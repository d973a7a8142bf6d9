"""``POST /v1/retrieve`` and receipts opened from a retrieval, over HTTP on both backends."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.receipts.document import check_receipt_payload
from tests.e2e.flows import receipt_body, register

PRINCIPAL = {
    "roles": ["analyst"],
    "units": ["finance"],
    "groups": ["g1"],
    "purpose": "reporting",
    "destination": "internal",
}
REVENUE = (
    "Revenue rose to $4.5 million in 2019. The board approved a new office in Lisbon. "
    "Staff turnover fell to 8 percent."
)
WEATHER = "Heavy rain closed the harbour for two days. Fishing boats stayed in port."


def _retrieve(client: TestClient, headers: dict[str, str], query: str, **extra: Any) -> Any:
    body = {"query": query, "principal": PRINCIPAL, "k": 5, **extra}
    return client.post("/v1/retrieve", json=body, headers=headers)


@pytest.fixture
def keys(auth):  # type: ignore[no-untyped-def]
    return {
        "ingest": auth("ingest", name="ingester"),
        "alice": auth("retrieve", "claims:write", "read", name="alice"),
        "bob": auth("retrieve", "claims:write", name="bob"),
    }


def test_retrieve_ranks_spans_by_both_rankers_and_records_the_retrieval(
    client: TestClient, keys: dict[str, dict[str, str]]
) -> None:
    register(client, keys["ingest"], "report", REVENUE)
    register(client, keys["ingest"], "weather", WEATHER)

    response = _retrieve(client, keys["alice"], "How much revenue in 2019?")

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["retrieval_id"].startswith("rtv_")
    first = body["results"][0]
    assert first["text"] == "Revenue rose to $4.5 million in 2019."
    assert first["source_id"] == "report"
    assert first["version"] == 1
    assert first["scores"]["bm25"]["rank"] == 1
    assert first["scores"]["dense"] is not None
    assert first["scores"]["rrf"] > 0
    assert all(result["source_id"] != "weather" for result in body["results"])
    assert {"code": "lexical-gate", "count": 4} in body["exclusions"]
    assert [r["role"] for r in body["rankers"]] == ["sparse", "dense", "fusion", "gate"]
    recorded = client.app.state.services.retrieval.get(body["retrieval_id"])  # type: ignore[attr-defined]
    assert [r["span_id"] for r in recorded.results] == [r["span_id"] for r in body["results"]]
    assert recorded.principal == PRINCIPAL
    assert recorded.exclusions == body["exclusions"]


def test_table_cells_come_back_with_their_envelope(
    client: TestClient, keys: dict[str, dict[str, str]]
) -> None:
    register(
        client,
        keys["ingest"],
        "segments",
        "Segment results follow.",
        tables=[
            {
                "table_id": "t1",
                "title": "Revenue by segment",
                "columns": ["Segment", "FY2023"],
                "rows": [["Services", "$4.5 million"]],
            }
        ],
    )

    body = _retrieve(client, keys["alice"], "services segment revenue FY2023").json()

    cell = next(r for r in body["results"] if r["table"] is not None)
    assert cell["text"] == "$4.5 million"
    assert cell["table"]["table_id"] == "t1"
    assert "Revenue by segment" in cell["table"]["envelope"]


def test_only_versions_in_force_at_as_of_are_returned(
    client: TestClient, keys: dict[str, dict[str, str]]
) -> None:
    register(
        client, keys["ingest"], "policy", "Refunds are paid within 30 days.",
        effective_from="2026-01-01T00:00:00Z",
    )  # fmt: skip
    response = client.post(
        "/v1/sources/policy/versions",
        json={"text": "Refunds are paid within 14 days.", "effective_from": "2026-06-01T00:00:00Z"},
        headers=keys["ingest"],
    )
    assert response.status_code == 201, response.text

    now = _retrieve(client, keys["alice"], "refunds paid days").json()
    before = _retrieve(
        client, keys["alice"], "refunds paid days", as_of="2026-03-01T00:00:00Z"
    ).json()

    assert [(r["version"], r["text"]) for r in now["results"]] == [
        (2, "Refunds are paid within 14 days.")
    ]
    assert [(r["version"], r["text"]) for r in before["results"]] == [
        (1, "Refunds are paid within 30 days.")
    ]


def test_a_withdrawn_source_is_never_returned(
    client: TestClient, keys: dict[str, dict[str, str]]
) -> None:
    register(client, keys["ingest"], "report", REVENUE)
    assert _retrieve(client, keys["alice"], "revenue 2019").json()["results"]
    response = client.post(
        "/v1/sources/report/withdraw", json={"reason": "retracted"}, headers=keys["ingest"]
    )
    assert response.status_code == 200, response.text

    assert _retrieve(client, keys["alice"], "revenue 2019").json()["results"] == []


def test_a_visibility_filter_withholds_versions_under_its_code(
    client: TestClient, keys: dict[str, dict[str, str]]
) -> None:
    register(client, keys["ingest"], "report", REVENUE)
    copy = register(client, keys["ingest"], "report-copy", REVENUE + " Copy.")
    seen: list[Any] = []

    class OnlyReport:
        def exclusion(self, source_id: str, version: int) -> str | None:
            return None if source_id == "report" else "entitlement-group-mismatch"

    def factory(principal: Any) -> OnlyReport:
        seen.append(principal)
        return OnlyReport()

    client.app.state.services.source_filters = factory  # type: ignore[attr-defined]
    client.app.state.services.__dict__.pop("retrieval", None)  # type: ignore[attr-defined]

    body = _retrieve(client, keys["alice"], "revenue 2019").json()

    assert {r["source_id"] for r in body["results"]} == {"report"}
    # Every span of the copy was a candidate (k is not reached) and each is counted.
    assert {"code": "entitlement-group-mismatch", "count": len(copy)} in body["exclusions"]
    assert seen[0].groups == ("g1",)
    assert seen[0].purpose == "reporting"


def test_receipt_from_a_retrieval_seals_exactly_what_was_retrieved(
    client: TestClient, keys: dict[str, dict[str, str]]
) -> None:
    register(client, keys["ingest"], "report", REVENUE)
    retrieved = _retrieve(client, keys["alice"], "revenue 2019 board office").json()
    body = receipt_body([], retrieval_id=retrieved["retrieval_id"], route="hybrid_retrieval")
    body.pop("evidence")

    response = client.post("/v1/receipts", json=body, headers=keys["alice"])

    assert response.status_code == 201, response.text
    receipt = response.json()
    assert [e["span_id"] for e in receipt["pool"]] == [r["span_id"] for r in retrieved["results"]]
    assert [e["version_hash"] for e in receipt["pool"]] == [
        r["version_hash"] for r in retrieved["results"]
    ]
    assert receipt["as_of"] == retrieved["as_of"]
    assert receipt["retrieval"] == {
        "retrieval_id": retrieved["retrieval_id"],
        "rankers": retrieved["rankers"],
        "exclusions": retrieved["exclusions"],
    }
    envelope = client.get(f"/v1/receipts/{receipt['receipt_id']}/envelope", headers=keys["alice"])
    assert envelope.status_code == 200
    payload = base64.b64decode(envelope.json()["payload"])
    document, reasons = check_receipt_payload(payload)
    assert reasons == []  # the receipt id covers the retrieval it was opened from
    assert document is not None
    assert document["retrieval"]["retrieval_id"] == retrieved["retrieval_id"]


def test_a_retrieval_of_another_actor_is_refused(
    client: TestClient, keys: dict[str, dict[str, str]]
) -> None:
    register(client, keys["ingest"], "report", REVENUE)
    retrieved = _retrieve(client, keys["alice"], "revenue 2019").json()
    body = receipt_body([], retrieval_id=retrieved["retrieval_id"])

    response = client.post("/v1/receipts", json=body, headers=keys["bob"])

    assert response.status_code == 403
    assert "another actor" in response.json()["detail"]


@pytest.mark.parametrize(
    ("extra", "field", "rule"),
    [
        ({"retrieval_id": "rtv_" + "0" * 32}, "retrieval_id", "exists"),
        ({"retrieval_id": "nope"}, "retrieval_id", "pattern"),
        ({"retrieval_id": "rtv_" + "0" * 32, "with_evidence": True}, "evidence", "one-of"),
    ],
)
def test_a_bad_retrieval_id_is_a_clear_422(
    client: TestClient,
    keys: dict[str, dict[str, str]],
    extra: dict[str, Any],
    field: str,
    rule: str,
) -> None:
    services = client.app.state.services  # type: ignore[attr-defined]
    before = services.ledger.last_position()
    extra = dict(extra)
    evidence = ["sp_" + "0" * 24] if extra.pop("with_evidence", False) else []
    response = client.post(
        "/v1/receipts", json=receipt_body(evidence, **extra), headers=keys["alice"]
    )

    assert response.status_code == 422
    assert {(e["field"], e["rule"]) for e in response.json()["errors"]} >= {(field, rule)}
    assert services.ledger.last_position() == before


@pytest.mark.parametrize(
    ("body", "field", "rule"),
    [
        ({"query": "the total of it"}, "query", "content-terms"),
        ({"query": "revenue", "k": 0}, "k", "greater_than_equal"),
        ({"query": "revenue", "as_of": "2026-01-01T00:00:00"}, "as_of", "timezone"),
        ({"query": "revenue", "principal": {"destination": "d"}}, "principal.purpose", "missing"),
        (
            {"query": "revenue", "principal": {"purpose": "p", "roles": ["a b"]}},
            "principal.roles[0]",
            "attribute-value",
        ),
    ],
)
def test_bad_retrieval_input_names_the_field_and_rule(
    client: TestClient,
    keys: dict[str, dict[str, str]],
    body: dict[str, Any],
    field: str,
    rule: str,
) -> None:
    response = client.post(
        "/v1/retrieve", json={"principal": PRINCIPAL, **body}, headers=keys["alice"]
    )

    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["field"] == field
    assert response.json()["errors"][0]["rule"] == rule


def test_retrieve_needs_the_retrieve_scope(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    response = _retrieve(client, auth("read", name="reader"), "revenue")

    assert response.status_code == 403
    assert "'retrieve' scope" in response.json()["detail"]


def _tamper(client: TestClient, **values: Any) -> None:
    """Edit every retrieval row of source ``report`` (its spans' columns, and a version's
    ``withdrawn`` in the version table too) and make the process read the versions again."""
    from sqlalchemy import update

    from projections.schema import retrieval_spans, retrieval_versions
    from projections.search.versions import VersionTable

    read_side = client.app.state.services.read_side  # type: ignore[attr-defined]
    read_side.retrieval.catch_up()
    with read_side.db.sync.begin() as conn:
        conn.execute(
            update(retrieval_spans).where(retrieval_spans.c.source_id == "report").values(**values)
        )
        if "withdrawn" in values:
            conn.execute(
                update(retrieval_versions)
                .where(retrieval_versions.c.source_id == "report")
                .values(withdrawn=values["withdrawn"])
            )
    read_side.retrieval_index.versions = VersionTable()


def test_an_edited_index_row_is_never_served(
    client: TestClient, keys: dict[str, dict[str, str]]
) -> None:
    register(client, keys["ingest"], "report", REVENUE)
    _tamper(client, text="Revenue rose to $9.9 million in 2019.")

    response = _retrieve(client, keys["alice"], "revenue 2019")

    assert response.status_code == 500, response.text
    assert response.json()["reason"] == "read_model_mismatch"
    assert "9.9" not in response.text


def test_a_withdrawal_the_index_lost_is_withheld_as_not_in_force(
    client: TestClient, keys: dict[str, dict[str, str]]
) -> None:
    register(client, keys["ingest"], "report", REVENUE)
    client.post("/v1/sources/report/withdraw", json={"reason": "r"}, headers=keys["ingest"])
    _tamper(client, withdrawn=0)

    body = _retrieve(client, keys["alice"], "revenue 2019 board").json()

    assert body["results"] == []
    assert {e["code"] for e in body["exclusions"]} >= {"not-in-force"}


def test_a_receipt_cannot_seal_a_retrieval_whose_source_was_withdrawn_since(
    client: TestClient, keys: dict[str, dict[str, str]]
) -> None:
    register(client, keys["ingest"], "report", REVENUE)
    retrieved = _retrieve(client, keys["alice"], "revenue 2019").json()
    client.post("/v1/sources/report/withdraw", json={"reason": "r"}, headers=keys["ingest"])

    response = client.post(
        "/v1/receipts",
        json=receipt_body([], retrieval_id=retrieved["retrieval_id"]),
        headers=keys["alice"],
    )

    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "retrieval_id[0]"
    assert response.json()["errors"][0]["rule"] == "citable"


def test_a_receipt_from_a_retrieval_keeps_the_retrievals_as_of(
    client: TestClient, keys: dict[str, dict[str, str]]
) -> None:
    register(client, keys["ingest"], "report", REVENUE)
    retrieved = _retrieve(client, keys["alice"], "revenue 2019").json()
    body = receipt_body([], retrieval_id=retrieved["retrieval_id"], as_of="2030-01-01T00:00:00Z")

    response = client.post("/v1/receipts", json=body, headers=keys["alice"])

    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "as_of"
    assert response.json()["errors"][0]["rule"] == "retrieval-as-of"
