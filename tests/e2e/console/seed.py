"""A small ledger the console tests read: a policy with two versions, a table, a claim that
cites each, a summary of two policy sentences (a transformation), and a source, claim and
transformation whose every field carries script-injection payloads.

Works with any client that speaks ``post(path, json=, headers=)`` (FastAPI's TestClient, or
an ``httpx.Client`` against a live server).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledger.access.policy import DEFAULT_ACCESS_POLICY

XSS_SCRIPT = "<script>window.__xss=1</script>"
XSS_ATTRIBUTE = '"\'><img src=x onerror="window.__xss=1">'
XSS_URL = "javascript:window.__xss=1"

POLICY_V1 = (
    "# Returns\n\n## Damaged goods\n\n"
    "Damaged goods are returned within 30 days of delivery. "
    "Items returned after 30 days are assessed individually.\n\n"
    "## Refunds\n\nRefunds are paid to the original card.\n"
)
POLICY_V2 = (
    "# Returns\n\n## Damaged goods\n\n"
    "Damaged goods are returned within 14 days of delivery. "
    "Items returned after 30 days are assessed individually.\n\n"
    "## Refunds\n\nRefunds are paid to the original card.\n\n"
    "## Exchanges\n\nExchanges are free of charge.\n"
)
HOSTILE_TEXT = f"Hostile results {XSS_SCRIPT} were {XSS_ATTRIBUTE} reported in 2019."
FIRST_OUTCOME = {
    "decision": "Return accepted within the 30-day window",
    "reviewer": "reviewer-12",
    "actions": [
        {"action_id": "rma-5521", "kind": "return_label", "target": "order 88-1042"},
        {"action_id": "mail-77", "kind": "email", "target": "customer 3391"},
    ],
}
AMENDED_OUTCOME = {
    "decision": "Return accepted; refund to the original card",
    "reviewer": "reviewer-4",
    "actions": [{"action_id": "refund-903", "kind": "refund", "target": "card ending 4242"}],
}
HOSTILE_OUTCOME = {
    "decision": f"Decided {XSS_SCRIPT}",
    "reviewer": XSS_ATTRIBUTE,
    "actions": [{"action_id": "x-1", "kind": "email", "target": f"{XSS_ATTRIBUTE} {XSS_URL}"}],
}


@dataclass(frozen=True)
class Seeded:
    """What the seed wrote."""

    receipt_id: str
    hostile_receipt_id: str
    claim_id: str
    table_claim_id: str
    hostile_claim_id: str
    policy_v1_recorded_at: str
    window_span_id: str
    """The span the receipt's first claim cites: version 1's "Damaged goods ..." sentence."""


def _post(client: Any, path: str, headers: dict[str, str], body: dict[str, Any]) -> Any:
    response = client.post(path, json=body, headers=headers)
    assert response.status_code in (200, 201), response.text
    return response.json()


def _receipt(client: Any, headers: dict[str, str], spans: list[str], **extra: Any) -> str:
    body = {
        "request": "What is the returns window for damaged goods?",
        "actor": "analyst-7",
        "purpose": "customer-support",
        "policy_version": "2026.1",
        "route": "hybrid_retrieval",
        "model": {"name": "answerer", "version": "3"},
        "tools": ["search"],
        "evidence": spans,
        "excluded": [{"ref": "doc-secret", "reason_code": "pii"}],
        **extra,
    }
    receipt_id: str = _post(client, "/v1/receipts", headers, body)["receipt_id"]
    return receipt_id


def _commit(
    client: Any, headers: dict[str, str], receipt_id: str, claims: list[dict[str, Any]]
) -> list[str]:
    body = _post(client, f"/v1/receipts/{receipt_id}/claims", headers, {"claims": claims})
    return [claim["claim_id"] for claim in body["committed"]]


def seed(client: Any, headers: dict[str, str]) -> Seeded:
    """Write the console's test ledger through the API (``headers``: an admin key)."""
    rules = DEFAULT_ACCESS_POLICY.rules_json()  # the policy in force: the default rules
    _post(client, "/v1/policies", headers, {"policy_version": "2026.1", "rules": rules})
    policy = _post(
        client,
        "/v1/sources",
        headers,
        {
            "source_id": "returns-policy",
            "title": "Returns and Credits Policy",
            "authority": "source_of_record",
            "media_type": "text/markdown",
            "uri": "https://example.com/returns",
            "text": POLICY_V1,
        },
    )
    report = _post(
        client,
        "/v1/sources",
        headers,
        {
            "source_id": "annual-report",
            "title": "Annual report",
            "authority": "derived",
            "text": "Revenue grew in 2019.",
            "tables": [
                {
                    "table_id": "t1",
                    "title": "Revenue",
                    "header_rows": [["($ in millions)", "2019", "2018"]],
                    "rows": [["Product", "1,200", "1,000"]],
                }
            ],
        },
    )
    hostile = _post(
        client,
        "/v1/sources",
        headers,
        {
            "source_id": "hostile",
            "title": f"Hostile {XSS_SCRIPT} {XSS_ATTRIBUTE}",
            "authority": "advisory",
            "uri": XSS_URL,
            "metadata": {"owner": XSS_ATTRIBUTE, "note": XSS_SCRIPT},
            "text": HOSTILE_TEXT,
        },
    )
    window = next(s for s in policy["spans"] if s["text"].startswith("Damaged goods"))
    cell = next(s for s in report["spans"] if s["text"] == "1,200")
    pool = [s["span_id"] for s in policy["spans"]] + [cell["span_id"]]
    receipt_id = _receipt(client, headers, pool)
    claim_id, table_claim_id = _commit(
        client,
        headers,
        receipt_id,
        [
            {
                "text": "Damaged goods are returned within 30 days of delivery.",
                "bindings": [{"span_id": window["span_id"]}],
            },
            {
                "text": "Product revenue was 1,200 in 2019.",
                "type": "factual",
                "bindings": [{"span_id": cell["span_id"]}],
            },
        ],
    )
    assessed = next(s for s in policy["spans"] if s["text"].startswith("Items returned after"))
    _post(
        client,
        f"/v1/receipts/{receipt_id}/transformations",
        headers,
        {
            "method": "summary",
            "inputs": [window["span_id"], assessed["span_id"]],
            "output": "Damaged goods are returned within 30 days of delivery; items returned "
            "after 30 days are assessed individually.",
            "may_remove": ["repetition", "procedure"],
            "must_keep": ["numbers", "dates", "exceptions", "negations"],
        },
    )
    for outcome in (FIRST_OUTCOME, AMENDED_OUTCOME):  # decided, then amended on review
        _post(client, f"/v1/receipts/{receipt_id}/outcome", headers, outcome)
    hostile_span = hostile["spans"][0]
    hostile_receipt = _receipt(
        client,
        headers,
        [hostile_span["span_id"]],
        request=f"Tell me {XSS_SCRIPT}",
        actor=f"actor {XSS_ATTRIBUTE}",
        purpose=XSS_SCRIPT,
        tools=[XSS_URL],
    )
    (hostile_claim_id,) = _commit(
        client,
        headers,
        hostile_receipt,
        [{"text": hostile_span["text"], "bindings": [{"span_id": hostile_span["span_id"]}]}],
    )
    _post(
        client,
        f"/v1/receipts/{hostile_receipt}/transformations",
        headers,
        {
            "method": "compression",
            "inputs": [hostile_span["span_id"]],
            "output": f"{XSS_SCRIPT} Results {XSS_ATTRIBUTE} were reported in 2019.",
            "must_keep": ["dates"],
        },
    )
    _post(client, f"/v1/receipts/{hostile_receipt}/outcome", headers, HOSTILE_OUTCOME)
    source = client.get("/v1/sources/returns-policy", headers=headers).json()
    v1_recorded = source["versions"][0]["recorded_at"]
    _post(
        client,
        "/v1/sources/returns-policy/versions",
        headers,
        {"text": POLICY_V2, "media_type": "text/markdown"},
    )
    return Seeded(
        receipt_id,
        hostile_receipt,
        claim_id,
        table_claim_id,
        hostile_claim_id,
        v1_recorded,
        window["span_id"],
    )


SEGMENT_REPORT = (
    "<html><head><title>Segment report 2023</title></head><body>"
    "<h1>Segment report 2023</h1>"
    "<p>Services revenue grew in fiscal 2023. Hardware revenue declined in fiscal 2023.</p>"
    "<table><caption>Revenue by segment</caption>"
    "<thead><tr><th>Segment</th><th>FY2023</th><th>FY2022</th></tr></thead>"
    "<tbody><tr><th>Services</th><td>$4.5 million</td><td>$3.9 million</td></tr>"
    "<tr><th>Hardware</th><td>$2.1 million</td><td>$2.6 million</td></tr></tbody></table>"
    "</body></html>"
)


@dataclass(frozen=True)
class Mixed:
    """A receipt of seven claims over three requests and a repair: claims 1-3 committed
    together, 5 committed while 4 was refused (and committed later by a repair, keeping its
    place), 6 verified but refused with 7, which the gate rejected (an atomic request)."""

    receipt_id: str
    claim_ids: tuple[str, ...]
    """By claim number less one (claim 1 is ``claim_ids[0]``)."""
    committed_order: tuple[int, ...]
    refused: tuple[int, ...]


def _claim(text: str, span: dict[str, Any]) -> dict[str, Any]:
    return {"text": text, "bindings": [{"span_id": span["span_id"]}]}


def seed_mixed(client: Any, headers: dict[str, str]) -> Mixed:
    """Write the mixed receipt (after :func:`seed`: it cites the policy's second version)."""
    report = _post(
        client,
        "/v1/sources",
        headers,
        {
            "source_id": "segment-report",
            "title": "Segment report 2023",
            "authority": "source_of_record",
            "media_type": "text/html",
            "text": SEGMENT_REPORT,
        },
    )
    policy = client.get("/v1/sources/returns-policy/versions/2", headers=headers).json()["spans"]

    def span(spans: list[dict[str, Any]], start: str) -> dict[str, Any]:
        return next(s for s in spans if s["text"].startswith(start))

    window, refunds, exchanges = (
        span(policy, "Damaged goods"),
        span(policy, "Refunds"),
        span(policy, "Exchanges"),
    )
    services, hardware = span(report["spans"], "$4.5"), span(report["spans"], "$2.1")
    # Services' cell of the year before: a claim of 2023's figure citing it is contradicted
    # there (rejected), and a repair moves it onto 2023's cell.
    services_2022 = span(report["spans"], "$3.9")
    pool = [s["span_id"] for s in policy + report["spans"]]
    receipt_id = _receipt(
        client,
        headers,
        pool,
        request="How did the segments do in 2023, and what is the returns policy now?",
        actor="auditor-demo",
        purpose="quarterly-review",
        route="long_context",
    )
    path = f"/v1/receipts/{receipt_id}/claims"
    first = _post(
        client,
        path,
        headers,
        {
            "claims": [
                _claim("Damaged goods are returned within 14 days of delivery.", window),
                _claim("Services revenue was $4.5 million in FY2023.", services),
                _claim("Refunds are paid to the original card.", refunds),
            ]
        },
    )
    second = client.post(
        path,
        json={
            "mode": "independent",
            "claims": [
                _claim("Services revenue was 4.5 million in FY2023.", services_2022),
                _claim("Exchanges are free of charge.", exchanges),
            ],
        },
        headers=headers,
    )
    third = client.post(
        path,
        json={
            "claims": [
                _claim("Hardware revenue was $2.1 million in FY2023.", hardware),
                _claim("Hardware revenue was $9.9 million in FY2023.", hardware),
            ]
        },
        headers=headers,
    )
    body = second.json()
    assert [c["status"] for c in body["committed"]] == ["verified"], second.text
    assert [c["status"] for c in body["quarantined"]] == ["rejected"], second.text
    refused = third.json()["rejected"]
    assert [c["status"] for c in refused] == ["verified", "rejected"], third.text
    misattributed = body["quarantined"][0]["claim_id"]
    repaired = _post(
        client, f"/v1/receipts/{receipt_id}/claims/{misattributed}/repair", headers, {}
    )
    assert repaired["repair"]["outcome"] == "repaired", repaired
    ids = (
        *[c["claim_id"] for c in first["committed"]],
        misattributed,
        body["committed"][0]["claim_id"],
        *[c["claim_id"] for c in refused],
    )
    return Mixed(receipt_id, ids, committed_order=(1, 2, 3, 4, 5), refused=(6, 7))
