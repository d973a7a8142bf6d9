"""Lists share one convention: ``?limit=&after=`` answered ``{items, next}``. Both backends."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.e2e.flows import commit_verbatim, open_receipt, register


@pytest.fixture
def headers(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return auth("ingest", "read", "claims:write", name="app")


def _all(client: TestClient, headers: dict[str, str], path: str, **params: Any) -> list[Any]:
    """Every item of a list, read two at a time through its cursors."""
    items: list[Any] = []
    cursor = None
    while True:
        query = {**params, "limit": 2, **({"after": cursor} if cursor else {})}
        response = client.get(path, params=query, headers=headers)
        assert response.status_code == 200, response.text
        body = response.json()
        assert {"items", "next"} <= set(body)
        items.extend(body["items"])
        cursor = body["next"]
        if cursor is None:
            return items


def test_sources_list_pages_through_every_source_by_id_and_filters_withdrawn(
    client: TestClient, headers: dict[str, str]
) -> None:
    for name in ("c", "a", "e", "b", "d"):
        register(client, headers, name, f"Text of {name}.")
    client.post("/v1/sources/b/withdraw", json={"reason": "wrong"}, headers=headers)

    every = _all(client, headers, "/v1/sources")
    withdrawn = _all(client, headers, "/v1/sources", status="withdrawn")

    assert [s["source_id"] for s in every] == ["a", "b", "c", "d", "e"]
    assert every[0]["current_version"] == 1
    assert every[0]["current_version_hash"].startswith("sha256:")
    assert [s["source_id"] for s in withdrawn] == ["b"]


def test_receipts_list_filters_by_actor_purpose_and_opening_time_in_opening_order(
    client: TestClient, headers: dict[str, str]
) -> None:
    span = register(client, headers, "s", "Revenue rose.")[0]["span_id"]
    first = open_receipt(client, headers, [span], actor="alice", purpose="qa")
    second = open_receipt(client, headers, [span], actor="bob", purpose="qa")
    third = open_receipt(client, headers, [span], actor="alice", purpose="qa")
    fourth = open_receipt(client, headers, [span], actor="alice", purpose="audit")
    opened = client.get(f"/v1/receipts/{second}", headers=headers).json()["opened_at"]

    alice_qa = _all(client, headers, "/v1/receipts", actor="alice", purpose="qa")
    later = _all(client, headers, "/v1/receipts", opened_after=opened)

    assert [r["receipt_id"] for r in alice_qa] == [first, third]
    assert {r["status"] for r in alice_qa} == {"open"}
    assert [r["receipt_id"] for r in later] == [third, fourth]
    assert [r["receipt_id"] for r in _all(client, headers, "/v1/receipts")] == [
        first,
        second,
        third,
        fourth,
    ]


def test_claims_list_filters_by_receipt_source_and_status(
    client: TestClient, headers: dict[str, str]
) -> None:
    left = register(client, headers, "left", "Revenue rose. Costs fell. Staff grew.")
    right = register(client, headers, "right", "Prices rose.")
    receipt = open_receipt(client, headers, [s["span_id"] for s in left + right])
    claims = [commit_verbatim(client, headers, receipt, span) for span in left + right]

    by_receipt = _all(client, headers, "/v1/claims", receipt_id=receipt)
    by_source = _all(client, headers, "/v1/claims", source_id="right")
    rejected = _all(client, headers, "/v1/claims", status="rejected")

    assert [c["claim_id"] for c in by_receipt] == [c["claim_id"] for c in claims]
    assert [c["claim_id"] for c in by_source] == [claims[-1]["claim_id"]]
    assert by_source[0]["status"] == "verified"
    assert rejected == []


@pytest.mark.parametrize(
    ("path", "after"),
    [
        ("/v1/sources", "not-a-cursor!"),
        ("/v1/receipts", "WyJzb3VyY2VzIiwiYSJd"),  # a cursor of /v1/sources
        ("/v1/claims", "WyJjbGFpbXMiLDFd"),  # a claims cursor missing its second part
        ("/v1/sources", "WyJzb3VyY2VzIiwiYVx1MDAwMCJd"),  # ["sources", "a\u0000"]
        ("/v1/sources", "WyJzb3VyY2VzIiwiXHVkODAwIl0"),  # ["sources", "\ud800"]
    ],
)
def test_a_cursor_the_list_did_not_give_is_refused_naming_query_after(
    client: TestClient, headers: dict[str, str], path: str, after: str
) -> None:
    response = client.get(path, params={"after": after}, headers=headers)

    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "field": "query.after",
            "rule": "cursor",
            "message": "after is not a cursor this list gave",
        }
    ]


def test_a_limit_out_of_range_is_refused_naming_limit(
    client: TestClient, headers: dict[str, str]
) -> None:
    response = client.get("/v1/claims", params={"limit": 0}, headers=headers)

    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "query.limit"


def test_lists_need_the_read_scope(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    writer = auth("claims:write", name="writer")
    for path in ("/v1/sources", "/v1/receipts", "/v1/claims"):
        assert client.get(path, headers=writer).status_code == 403


def test_the_event_log_pages_with_items_and_next_and_keeps_after_as_a_number(
    client: TestClient, auth, runtime
) -> None:  # type: ignore[no-untyped-def]
    headers = auth("audit:read", name="auditor")
    runtime.api_keys.issue("second", ["read"], "test:suite")
    runtime.api_keys.issue("third", ["read"], "test:suite")

    first = client.get("/v1/events", params={"limit": 2}, headers=headers).json()
    rest = client.get("/v1/events", params={"after": first["next"]}, headers=headers).json()
    legacy = client.get("/v1/events", params={"after": 2}, headers=headers).json()

    assert [e["notification_id"] for e in first["items"]] == [1, 2]
    assert first["events"] == first["items"]
    assert first["next"] == "2"
    assert [e["notification_id"] for e in rest["items"]] == [3]
    assert rest["next"] is None
    assert legacy["items"] == rest["items"]


def test_version_spans_page_by_cursor_and_the_deprecated_offset_still_works(
    client: TestClient, headers: dict[str, str]
) -> None:
    spans = register(
        client, headers, "s", "Revenue rose. Costs fell. Staff grew. Prices held. Debt shrank."
    )
    ids = [s["span_id"] for s in spans]
    path = "/v1/sources/s/versions/1"

    paged = _all(client, headers, path)  # reads items/next only
    by_offset = client.get(path, params={"offset": 1, "limit": 1}, headers=headers).json()

    assert len(ids) == 5
    assert [s["span_id"] for s in paged] == ids
    assert [s["span_id"] for s in by_offset["spans"]] == [ids[1]]
    assert by_offset["next"] is not None


def test_ingest_returns_the_frozen_text_only_when_asked(
    client: TestClient, headers: dict[str, str]
) -> None:
    body = {"source_id": "s", "title": "S", "authority": "derived", "text": "Caf\u00e9  rose."}

    plain = client.post("/v1/sources", json=body, headers=headers).json()
    again = client.post(
        "/v1/sources", params={"include": "text"}, json=body, headers=headers
    ).json()
    added = client.post(
        "/v1/sources/s/versions",
        params={"include": "text"},
        json={"text": "Costs fell."},
        headers=headers,
    ).json()

    assert "frozen_text" not in plain
    assert (
        again["frozen_text"]
        == client.get("/v1/sources/s/versions/1", headers=headers).json()["frozen_text"]
    )
    assert added["frozen_text"] == "Costs fell."


def test_affected_receipts_page_by_receipt_id_with_counts_over_every_page(
    client: TestClient, headers: dict[str, str]
) -> None:
    span = register(client, headers, "s", "Revenue rose.")[0]
    receipts = []
    for _ in range(3):
        receipts.append(open_receipt(client, headers, [span["span_id"]]))
        commit_verbatim(client, headers, receipts[-1], span)
    client.app.state.services.read_side.receipts.catch_up()  # type: ignore[attr-defined]
    path = "/v1/sources/s/versions/1/affected"

    paged = _all(client, headers, path)
    first = client.get(path, params={"limit": 2}, headers=headers).json()

    assert [r["receipt_id"] for r in paged] == sorted(receipts)
    assert (first["receipt_count"], first["claim_count"]) == (3, 3)
    assert first["receipts"] == first["items"]
