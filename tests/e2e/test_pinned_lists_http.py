"""Pinned keys on the lists and lookups: attackers first.

Restricted sources (group ``investigations``) sit between open ones. A key pinned to the
``support`` group tries to learn about them through every list and lookup: by paging, by a
filter naming them, by counting, and after editing the read model's access rows. Each
restricted item must be absent (no id, title, text or count) while pages stay full and
cursors stable; a key pinned to ``investigations`` and a key without pins see everything.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.access.attributes import Pins
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import commit_verbatim, receipt_body, register
from tests.tamper import Tamperer

RESTRICTED = {"groups": ["investigations"], "purposes": ["fraud-review"]}
SECRET_WORD = "Northwind"
TABLE = [
    {
        "table_id": "t1",
        "title": "Northwind invoices",
        "columns": ["Invoice", "Amount"],
        "rows": [["Northwind 1", "12,400"]],
    }
]
SOURCES = ("a-open", "b-secret", "c-open", "d-secret", "e-open", "f-secret", "g-open")


def _pinned(runtime: LedgerRuntime, name: str, **pins: list[str]) -> dict[str, str]:
    secret = runtime.api_keys.issue(name, ["claims:write", "read"], "test:suite", Pins.parse(pins))
    return {"Authorization": f"Bearer {secret}"}


@pytest.fixture
def world(client: TestClient, auth, runtime: LedgerRuntime) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """Seven sources (three restricted), keys for support, investigations and a trusted app."""
    ingest = auth("ingest", "read", name="ingester")
    spans = {}
    for source_id in SOURCES:
        secret = source_id.endswith("secret")
        text = (
            f"The {SECRET_WORD} ledger for {source_id} shows a duplicated invoice."
            if secret
            else f"The open ledger for {source_id} shows a duplicated invoice."
        )
        extra: dict[str, Any] = {"access": RESTRICTED, "tables": TABLE} if secret else {}
        spans[source_id] = register(client, ingest, source_id, text, **extra)
    return {
        "spans": spans,
        "support": _pinned(runtime, "support-app", groups=["support"], purposes=["fraud-review"]),
        "cases": _pinned(runtime, "case-app", groups=["investigations"], purposes=["fraud-review"]),
        "trusted": auth("read", "claims:write", name="trusted-app"),
    }


def _all_pages(
    client: TestClient, method: str, path: str, headers: dict[str, str], limit: int, **kw: Any
) -> list[list[dict[str, Any]]]:
    pages: list[list[dict[str, Any]]] = []
    after = None
    while True:
        params = {"limit": limit, **({"after": after} if after else {})}
        response = client.request(method, path, params=params, headers=headers, **kw)
        assert response.status_code == 200, response.text
        body = response.json()
        pages.append(body["items"])
        after = body["next"]
        if after is None:
            return pages


def _leaks(body: Any) -> bool:
    text = json.dumps(body)
    return SECRET_WORD in text or "secret" in text


def test_a_pinned_key_lists_only_sources_its_principals_may_see_in_full_pages(
    client: TestClient, world: dict[str, Any]
) -> None:
    pages = _all_pages(client, "GET", "/v1/sources", world["support"], limit=2)

    assert [[s["source_id"] for s in page] for page in pages] == [
        ["a-open", "c-open"],
        ["e-open", "g-open"],
    ]  # full pages although restricted sources sit between; the last page says so
    assert not _leaks(pages)
    cases = _all_pages(client, "GET", "/v1/sources", world["cases"], limit=3)
    assert [s["source_id"] for page in cases for s in page] == list(SOURCES)
    trusted = client.get("/v1/sources", headers=world["trusted"]).json()
    assert [s["source_id"] for s in trusted["items"]] == list(SOURCES)


def test_a_cursor_given_to_a_pinned_key_stays_stable_when_restricted_sources_are_added(
    client: TestClient, world: dict[str, Any], auth
) -> None:  # type: ignore[no-untyped-def]
    first = client.get("/v1/sources", params={"limit": 2}, headers=world["support"]).json()
    register(
        client, auth("ingest", name="late"), "d-late", "Late restricted text.", access=RESTRICTED
    )
    register(client, auth("ingest", name="late2"), "d-open", "Late open text.")

    second = client.get(
        "/v1/sources", params={"limit": 2, "after": first["next"]}, headers=world["support"]
    ).json()

    assert [s["source_id"] for s in second["items"]] == ["d-open", "e-open"]


def test_an_edited_access_row_in_the_read_model_does_not_widen_a_pinned_list(
    client: TestClient, world: dict[str, Any], runtime: LedgerRuntime
) -> None:
    tamper = Tamperer(runtime)
    tamper.read_model("DELETE FROM registry_access WHERE source_id = %s", "b-secret")
    shown = client.get("/v1/sources/b-secret", headers=world["trusted"])
    assert shown.status_code == 500  # the display row, edited to say open, is not served ...

    listed = client.get("/v1/sources", headers=world["support"]).json()
    found = client.post(
        "/v1/spans/search", json={"quote": SECRET_WORD}, headers=world["support"]
    ).json()

    assert "b-secret" not in [s["source_id"] for s in listed["items"]]  # ... the events do not
    assert found == {"items": [], "next": None}


def test_a_pinned_key_finds_no_restricted_span_by_quote_and_pages_stay_full(
    client: TestClient, world: dict[str, Any]
) -> None:
    quote = {"quote": "shows a duplicated invoice"}
    pages = _all_pages(client, "POST", "/v1/spans/search", world["support"], limit=2, json=quote)
    named = client.post(
        "/v1/spans/search",
        json={"quote": "invoice", "source_id": "b-secret"},
        headers=world["support"],
    ).json()

    assert [[s["source_id"] for s in page] for page in pages] == [
        ["a-open", "c-open"],
        ["e-open", "g-open"],
    ]
    assert not _leaks(pages)
    assert named == {"items": [], "next": None}
    cases = client.post("/v1/spans/search", json=quote, headers=world["cases"]).json()
    assert [s["source_id"] for s in cases["items"]] == list(SOURCES)


@pytest.mark.parametrize(
    "path",
    [
        "/v1/sources/b-secret/versions/1/spans?start=0&end=40",
        "/v1/sources/b-secret/versions/1/cells?table=t1",
        "/v1/sources/b-secret/versions/1/affected",
        "/v1/sources/b-secret/versions/1",
    ],
)
def test_a_pinned_key_cannot_look_up_spans_or_cells_of_a_restricted_version(
    client: TestClient, world: dict[str, Any], path: str
) -> None:
    refused = client.get(path, headers=world["support"])
    missing = client.get(path.replace("b-secret", "b-none"), headers=world["support"])

    assert refused.status_code == 404, refused.text  # as if the ledger held no such source
    assert refused.text.replace("b-secret", "X") == missing.text.replace("b-none", "X")
    assert client.get(path, headers=world["cases"]).status_code == 200
    assert client.get(path, headers=world["trusted"]).status_code == 200
    open_path = path.replace("b-secret", "a-open").replace("?table=t1", "")
    assert client.get(open_path, headers=world["support"]).status_code == 200


def _open_and_commit(
    client: TestClient, headers: dict[str, str], span: dict[str, Any], principal: dict[str, Any]
) -> tuple[str, str]:
    body = receipt_body([span["span_id"]], purpose="fraud-review", principal=principal)
    opened = client.post("/v1/receipts", json=body, headers=headers)
    assert opened.status_code == 201, opened.text
    receipt_id = opened.json()["receipt_id"]
    return receipt_id, commit_verbatim(client, headers, receipt_id, span)["claim_id"]


def test_a_pinned_key_lists_only_receipts_and_claims_it_may_read(
    client: TestClient, world: dict[str, Any]
) -> None:
    support = {"groups": ["support"], "purpose": "fraud-review"}
    cases = {"groups": ["investigations"], "purpose": "fraud-review"}
    spans = world["spans"]
    opened = [
        _open_and_commit(client, world["support"], spans["a-open"][0], support),
        _open_and_commit(client, world["cases"], spans["b-secret"][0], cases),
        _open_and_commit(client, world["cases"], spans["d-secret"][0], cases),
        _open_and_commit(client, world["support"], spans["c-open"][0], support),
        _open_and_commit(client, world["support"], spans["e-open"][0], support),
        _open_and_commit(client, world["cases"], spans["a-open"][0], cases),
    ]
    mine = [opened[i] for i in (0, 3, 4)]

    receipts = _all_pages(client, "GET", "/v1/receipts", world["support"], limit=2)
    claims = _all_pages(client, "GET", "/v1/claims", world["support"], limit=2)
    by_source = client.get(
        "/v1/claims", params={"source_id": "b-secret"}, headers=world["support"]
    ).json()
    affected = client.get("/v1/sources/a-open/versions/1/affected", headers=world["support"])

    assert [[r["receipt_id"] for r in page] for page in receipts] == [
        [mine[0][0], mine[1][0]],
        [mine[2][0]],
    ]
    assert [c["claim_id"] for page in claims for c in page] == [c for _, c in mine]
    assert [len(page) for page in claims] == [2, 1]
    assert by_source == {"items": [], "next": None}
    # a-open is open, but one of the two receipts on it was opened for an investigator
    assert [r["receipt_id"] for r in affected.json()["items"]] == [mine[0][0]]
    assert (affected.json()["receipt_count"], affected.json()["claim_count"]) == (1, 1)
    on_open = client.get("/v1/sources/a-open/versions/1/affected", headers=world["trusted"])
    assert on_open.json()["receipt_count"] == 2
    trusted = client.get("/v1/receipts", headers=world["trusted"]).json()
    assert [r["receipt_id"] for r in trusted["items"]] == [r for r, _ in opened]
    case_claims = client.get("/v1/claims", headers=world["cases"]).json()
    assert [c["claim_id"] for c in case_claims["items"]] == [
        opened[1][1],
        opened[2][1],
        opened[5][1],
    ]


@pytest.mark.parametrize("form", ["span_ids", "range"])
def test_a_restricted_source_cited_by_a_pinned_key_to_locate_an_answer_is_one_it_lacks(
    client: TestClient, world: dict[str, Any], form: str
) -> None:
    def body(source_id: str) -> dict[str, Any]:
        span = world["spans"][source_id][0]
        chunk: dict[str, Any] = (
            {"span_ids": [span["span_id"]]}
            if form == "span_ids"
            else {"source_id": source_id, "version": 1, "start": 0, "end": span["end"]}
        )
        return {"answer": f"{span['text']} [1]", "chunks": {"1": chunk}}

    refused = client.post("/v1/locate", json=body("b-secret"), headers=world["support"])

    if form == "span_ids":  # an unknown span id
        assert refused.status_code == 422, refused.text
        assert refused.json()["errors"][0]["rule"] == "exists"
    else:  # an empty range: nothing is located in it
        assert refused.status_code == 200, refused.text
        assert [s["span_id"] for s in refused.json()["sentences"]] == [None]
    assert not _leaks({k: v for k, v in refused.json().items() if k != "sentences"})
    assert (
        client.post("/v1/locate", json=body("a-open"), headers=world["support"]).status_code == 200
    )
    assert (
        client.post("/v1/locate", json=body("b-secret"), headers=world["cases"]).status_code == 200
    )
