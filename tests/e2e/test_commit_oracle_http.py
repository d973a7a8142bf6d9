"""The commit gate is no oracle on text a key may not see: attackers first.

A key pinned to group ``support`` knows the id of a span of ``case-4471`` (restricted to
``investigations``) and binds it in claims on its own receipt, guessing the span's text one
quote at a time. Every guess must be refused before any check reads the text: the same answer
for a right guess and a wrong one, no check results, no source id, nothing written. A binding
outside the sealed pool is refused so for every key; a pool span the receipt's principal may
no longer see is refused with the safe code only.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from ledger.runtime import LedgerRuntime
from tests.e2e.attacks import SECRET_TEXT, SUPPORT, leaks, world
from tests.e2e.flows import commit_verbatim, open_receipt


def _claim(span_id: str, quote: str) -> dict[str, Any]:
    return {
        "claims": [
            {
                "text": "Project Falcon will buy a firm.",
                "bindings": [{"span_id": span_id, "quote": quote}],
            }
        ]
    }


def test_guessing_a_denied_spans_text_through_commits_learns_nothing_and_writes_nothing(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    receipt_id = open_receipt(
        client, w.support, [w.open_span["span_id"]], principal=SUPPORT, purpose="fraud-review"
    )
    before = w.position()
    answers = []
    for guess in (SECRET_TEXT[:29], "Project Heron will acquire Zz", SECRET_TEXT):
        response = client.post(
            f"/v1/receipts/{receipt_id}/claims",
            json=_claim(w.secret_span["span_id"], guess),
            headers=w.support,
        )
        answers.append((response.status_code, response.json()))

    assert answers[0] == answers[1] == answers[2]  # a right guess answers as a wrong one
    status, body = answers[0]
    assert status == 422
    assert body["type"].endswith("/invalid-input")
    assert body["errors"] == [
        {
            "field": "claims[0].bindings[0].span_id",
            "rule": "in-pool",
            "message": f"span {w.secret_span['span_id']} is not in the receipt's sealed "
            "evidence pool",
        }
    ]
    assert "claims" not in body
    assert "checks" not in str(body)
    assert leaks(body) == []
    assert w.position() == before  # no signed event names the source in the receipt
    receipt = client.get(f"/v1/receipts/{receipt_id}", headers=w.support).json()
    assert receipt["quarantined"] == []
    assert receipt["claims"] == []


def test_a_binding_outside_the_sealed_pool_is_refused_unjudged_for_a_trusted_key_too(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    receipt_id = open_receipt(client, w.trusted, [w.open_span["span_id"]])
    before = w.position()

    response = client.post(
        f"/v1/receipts/{receipt_id}/claims",
        json=_claim(w.secret_span["span_id"], SECRET_TEXT),
        headers=w.trusted,
    )

    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["rule"] == "in-pool"
    assert leaks(response.json()) == []
    assert w.position() == before


def test_a_pool_span_the_receipts_principal_may_no_longer_see_is_refused_with_the_code_only(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    receipt_id = open_receipt(
        client, w.trusted, [w.open_span["span_id"]], principal=SUPPORT, purpose="fraud-review"
    )
    narrowed = client.post(
        "/v1/sources/refund-policy/access", json={"groups": ["finance"]}, headers=w.ingester
    )
    assert narrowed.status_code == 200, narrowed.text
    before = w.position()

    body = {
        "claims": [
            {
                "text": w.open_span["text"],
                "bindings": [{"span_id": w.open_span["span_id"], "quote": w.open_span["text"]}],
            }
        ]
    }
    response = client.post(f"/v1/receipts/{receipt_id}/claims", json=body, headers=w.trusted)

    assert response.status_code == 403, response.text
    problem = response.json()
    assert problem["type"].endswith("/entitlement-denied")
    assert problem["errors"] == [
        {
            "field": "claims[0].bindings[0].span_id",
            "rule": "entitlement-group-mismatch",
            "message": "the receipt's principal may not see this span",
        }
    ]
    assert "checks" not in response.text
    assert "refund-policy" not in response.text
    assert w.position() == before


def test_a_pinned_key_cannot_commit_to_a_receipt_it_may_not_read_and_learns_it_is_missing(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    investigator = {**SUPPORT, "groups": ["investigations"]}
    receipt_id = open_receipt(
        client,
        w.trusted,
        [w.secret_span["span_id"]],
        principal=investigator,
        purpose="fraud-review",
    )
    before = w.position()
    body = _claim(w.secret_span["span_id"], SECRET_TEXT)

    denied = client.post(f"/v1/receipts/{receipt_id}/claims", json=body, headers=w.support)
    missing = client.post(f"/v1/receipts/rcpt_{'0' * 32}/claims", json=body, headers=w.support)

    assert denied.status_code == missing.status_code == 404, denied.text
    assert denied.json()["detail"].replace(receipt_id, "X") == missing.json()["detail"].replace(
        f"rcpt_{'0' * 32}", "X"
    )
    assert leaks(denied.json()) == []
    assert w.position() == before
    repair = client.post(
        f"/v1/receipts/{receipt_id}/claims/clm_{'0' * 24}/repair", headers=w.support
    )
    assert repair.status_code == 404
    assert leaks(repair.json()) == []


def test_a_claim_on_the_pool_still_commits_through_the_gate(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    receipt_id = open_receipt(
        client, w.support, [w.open_span["span_id"]], principal=SUPPORT, purpose="fraud-review"
    )

    claim = commit_verbatim(client, w.support, receipt_id, w.open_span)

    assert claim["status"] == "verified"
