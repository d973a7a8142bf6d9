"""A receipt's signed context on its console page, from receipts opened through the API: the
route decision, the principal, the inference, the context packet, the retrieval, and the
exclusions by safe code only (both backends)."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient
from markupsafe import escape

from api.console import words
from ledger.access.attributes import Pins
from ledger.runtime import LedgerRuntime
from tests.e2e.console.conftest import HTML, Reader, sign_in
from tests.e2e.console.seed import XSS_ATTRIBUTE, XSS_SCRIPT
from tests.e2e.flows import commit_verbatim, receipt_body, register

SECRET_TITLE = "Investigation 4471 into the Northwind account"
SECRET_TEXT = "The investigation into Northwind found a duplicated invoice of $12,400."
OPEN_TEXT = "The refund policy allows reversal within 30 days of the charge."
RESTRICTED = {"groups": ["investigations"], "purposes": ["fraud-review"]}
PRINCIPAL = {
    "roles": ["analyst"],
    "units": ["payments"],
    "groups": ["support"],
    "purpose": "fraud-review",
    "destination": "internal",
}
ROUTING = {
    "task": "question",
    "corpus_tokens": 20_000,
    "operating_length_tokens": 128_000,
    "authoritative_source": True,
    "entitlement": "partial",
}
APP_NAME = "support-app"


def _secrets(secret_span: str) -> tuple[str, ...]:
    """What the page of a receipt that excluded the restricted source must never show."""
    return ("case-4471", SECRET_TITLE, "Northwind", "investigations", "12,400", secret_span)


def _page(client: TestClient, auth, receipt_id: str) -> str:  # type: ignore[no-untyped-def]
    secret = auth("audit:read", name="auditor")["Authorization"].removeprefix("Bearer ")
    sign_in(client, secret)
    response = client.get(f"/console/receipts/{receipt_id}", headers=HTML)
    assert response.status_code == 200, response.text
    return response.text


def _fact(page: str, name: str) -> str:
    """The ``<dd>`` of the context row named ``name``."""
    found = re.search(rf"<dt>{name}</dt><dd[^>]*>(.*?)</dd>\n", page, re.S)
    assert found is not None, name
    return found.group(1)


def _open_restricted(client: TestClient, auth, runtime: LedgerRuntime) -> tuple[Any, str, str]:  # type: ignore[no-untyped-def]
    """A receipt opened through the API by a pinned key for a principal, routed, over an
    open span, with a restricted span among the candidates; one claim committed."""
    ingest = auth("ingest", "read", name="ingester")
    secret = register(
        client, ingest, "case-4471", SECRET_TEXT, title=SECRET_TITLE, access=RESTRICTED
    )
    public = register(client, ingest, "refund-policy", OPEN_TEXT)
    key = runtime.api_keys.issue(
        APP_NAME,
        ["claims:write", "read"],
        "test:suite",
        # the key may see the restricted source; the principal it opens for may not
        Pins.parse({"groups": ["support", "investigations"], "purposes": ["fraud-review"]}),
    )
    app = {"Authorization": f"Bearer {key}"}
    body = receipt_body(
        [public[0]["span_id"]],
        request=f"May the charge be reversed? {XSS_SCRIPT}",
        actor=f"agent {XSS_ATTRIBUTE}",
        purpose="fraud-review",
        principal=PRINCIPAL,
        candidates=[public[0]["span_id"], secret[0]["span_id"]],
        routing=ROUTING,
        inference_id="inf-42",
    )
    del body["route"]
    opened = client.post("/v1/receipts", json=body, headers=app)
    assert opened.status_code == 201, opened.text
    receipt = opened.json()
    commit_verbatim(client, app, receipt["receipt_id"], public[0])
    return receipt, secret[0]["span_id"], public[0]["span_id"]


def test_a_routed_receipt_for_a_principal_shows_its_decision_principal_inference_and_packet(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    receipt, _, _ = _open_restricted(client, auth, runtime)
    stored = client.get(
        f"/v1/receipts/{receipt['receipt_id']}", headers=auth("read", name="reader")
    ).json()
    page = _page(client, auth, receipt["receipt_id"])

    decision = stored["route_decision"]
    assert decision["outcome"] == stored["route"] == "ask_abstain_escalate"
    assert _fact(page, "Route") == (
        "Ask, abstain or escalate: the evidence at hand cannot answer "
        '<code class="code">ask_abstain_escalate</code>'
    )
    shown = _fact(page, "Route decision")
    assert f"Decided by {decision['router']}, row {decision['row']} of its table" in shown
    assert decision["reasons"]
    for reason in decision["reasons"]:
        meaning = words.sentence(words.route_reason_words(reason))
        assert f'<li>{escape(meaning)} <code class="code">{reason}</code></li>' in shown
    assert "<dt>corpus tokens</dt><dd>20,000</dd>" in shown
    assert "<dt>authoritative source</dt><dd>yes</dd>" in shown
    principal = _fact(page, "Principal")
    assert stored["principal"] == PRINCIPAL
    for name, value in PRINCIPAL.items():
        if isinstance(value, list):
            assert f"<dt>{name}</dt><dd><code>{value[0]}</code></dd>" in principal
        else:
            assert f"<dt>{name}</dt><dd>{value}</dd>" in principal
    inference = f"<code>inf-42</code>, opened by {stored['opened_by']}"
    assert _fact(page, "Inference") == inference
    assert stored["packet"]["prefix_sha256"] in _fact(page, "Context packet")
    assert _fact(page, "Actor") == str(escape(stored["actor"]))
    assert str(escape(stored["request"])) in _fact(page, "Request")
    assert XSS_SCRIPT not in page
    assert "<img" not in page


def test_a_restricted_candidate_shows_as_its_safe_code_and_nothing_of_the_source(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    receipt, secret_span, public_span = _open_restricted(client, auth, runtime)
    auditor = auth("audit:read", name="access-auditor")
    access = client.get(f"/v1/receipts/{receipt['receipt_id']}/access", headers=auditor).json()
    denied = [d for d in access["decisions"] if not d["allowed"]]
    assert [d["source_id"] for d in denied] == ["case-4471"]  # the ledger knows which ...
    page = _page(client, auth, receipt["receipt_id"])
    assert (
        "<li>1 \u00d7 the person&#39;s groups do not include the source&#39;s "
        '<code class="code">entitlement-group-mismatch</code></li>'
    ) in page
    assert public_span in page
    for secret in _secrets(secret_span):  # ... the page never says
        assert secret not in page, secret


def test_a_receipt_opened_from_a_retrieval_shows_its_rankers_and_withheld_codes(
    client: TestClient, auth
) -> None:  # type: ignore[no-untyped-def]
    ingest = auth("ingest", name="ingester")
    secret = register(
        client, ingest, "case-4471", SECRET_TEXT, title=SECRET_TITLE, access=RESTRICTED
    )
    register(client, ingest, "refund-policy", OPEN_TEXT)

    class WithholdTheCase:
        def exclusion(self, source_id: str, version: int) -> str | None:
            return "entitlement-group-mismatch" if source_id == "case-4471" else None

    services = client.app.state.services  # type: ignore[attr-defined]
    services.source_filters = lambda principal: WithholdTheCase()
    services.__dict__.pop("retrieval", None)
    app = auth("retrieve", "claims:write", "read", name="retriever")
    retrieved = client.post(
        "/v1/retrieve",
        json={
            "query": "reversal of the charge within 30 days; duplicated invoice found",
            "principal": PRINCIPAL,
            "k": 5,
        },
        headers=app,
    ).json()
    codes = {e["code"]: e["count"] for e in retrieved["exclusions"]}
    assert codes.get("entitlement-group-mismatch", 0) >= 1
    body = receipt_body([], retrieval_id=retrieved["retrieval_id"], route="hybrid_retrieval")
    body.pop("evidence")
    opened = client.post("/v1/receipts", json=body, headers=app)
    assert opened.status_code == 201, opened.text
    receipt = opened.json()

    page = _page(client, auth, receipt["receipt_id"])

    shown = _fact(page, "Retrieval")
    assert shown.startswith(f"<code>{retrieved['retrieval_id']}</code>")
    for ranker in retrieved["rankers"]:
        line = f"{ranker['role']}: {ranker['name']} {ranker['version']}"
        assert f"<li>{escape(line)}</li>" in shown
    for code, count in codes.items():
        meaning = escape(words.exclusion_words(code))
        assert f'{count} \u00d7 {meaning} <code class="code">{code}</code>' in shown
    for leaked in _secrets(secret[0]["span_id"]):
        assert leaked not in page, leaked


def test_a_receipt_without_routing_principal_or_retrieval_shows_none_of_their_rows(
    reader: Reader,
) -> None:
    page = reader.client.get(f"/console/receipts/{reader.seeded.receipt_id}", headers=HTML).text
    for row in ("Route decision", "Principal", "Retrieval"):
        assert f"<dt>{row}</dt>" not in page
    stored = reader.client.get(
        f"/v1/receipts/{reader.seeded.receipt_id}", headers=reader.admin
    ).json()
    assert _fact(page, "Inference").startswith(f"<code>{stored['inference_id']}</code>")
