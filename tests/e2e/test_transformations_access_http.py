"""Transformations are no oracle on text a key may not see: attackers first.

The world of ``tests/e2e/attacks.py``: ``case-4471`` is restricted to ``investigations``, a key
pinned to group ``support`` may see only ``refund-policy``. A transformation is refused as a
claim commit is, before any input text is read and leaving nothing: a receipt the key may not
read answers as a missing one, an input outside the pool is ``in-pool`` whatever the output
guesses, and an input the receipt's principal may no longer see is ``entitlement-denied``
with the field and the safe code only.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from ledger.runtime import LedgerRuntime
from tests.e2e.attacks import OPEN_TEXT, SECRET_TEXT, SUPPORT, leaks, same_refusal, world
from tests.e2e.flows import open_receipt


def _body(span_id: str, output: str) -> dict[str, Any]:
    return {
        "method": "compression",
        "inputs": [span_id],
        "output": output,
        "may_remove": ["repetition"],
        "must_keep": ["numbers", "dates", "exceptions"],
    }


def test_a_pinned_key_cannot_transform_evidence_of_a_receipt_it_may_not_read(
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
    missing_id = "rcpt_" + "0" * 32
    before = w.position()

    body = _body(w.secret_span["span_id"], SECRET_TEXT)
    denied = client.post(f"/v1/receipts/{receipt_id}/transformations", json=body, headers=w.support)
    missing = client.post(
        f"/v1/receipts/{missing_id}/transformations", json=body, headers=w.support
    )

    assert denied.status_code == 404, denied.text
    assert same_refusal(denied, missing, receipt_id, missing_id)
    assert leaks(denied.json()) == []
    assert w.position() == before


def test_guessing_a_denied_spans_text_through_transformations_learns_nothing(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    receipt_id = open_receipt(
        client, w.support, [w.open_span["span_id"]], principal=SUPPORT, purpose="fraud-review"
    )
    before = w.position()
    answers = []
    for guess in (SECRET_TEXT, "Project Heron will acquire Zz for $2 million in May.", "x"):
        response = client.post(
            f"/v1/receipts/{receipt_id}/transformations",
            json=_body(w.secret_span["span_id"], guess),
            headers=w.support,
        )
        answers.append((response.status_code, response.json()))

    assert answers[0] == answers[1] == answers[2]  # a right guess answers as a wrong one
    status, problem = answers[0]
    assert status == 422
    assert problem["type"].endswith("/invalid-input")
    assert problem["errors"] == [
        {
            "field": "inputs[0]",
            "rule": "in-pool",
            "message": f"span {w.secret_span['span_id']} is not in the receipt's sealed "
            "evidence pool",
        }
    ]
    assert "dropped" not in problem
    assert leaks(problem) == []
    assert w.position() == before


def test_an_input_the_receipts_principal_may_no_longer_see_is_refused_with_the_code_only(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    receipt_id = open_receipt(
        client, w.trusted, [w.open_span["span_id"]], principal=SUPPORT, purpose="fraud-review"
    )
    recorded = client.post(
        f"/v1/receipts/{receipt_id}/transformations",
        json=_body(w.open_span["span_id"], OPEN_TEXT),
        headers=w.trusted,
    )
    assert recorded.status_code == 201, recorded.text
    transformation_id = recorded.json()["transformation_id"]
    narrowed = client.post(
        "/v1/sources/refund-policy/access", json={"groups": ["finance"]}, headers=w.ingester
    )
    assert narrowed.status_code == 200, narrowed.text
    before = w.position()

    # An output that drops the input's figure: refused for entitlement before it is read.
    transform = client.post(
        f"/v1/receipts/{receipt_id}/transformations",
        json=_body(w.open_span["span_id"], "Refunds are possible."),
        headers=w.trusted,
    )
    claim = {
        "claims": [{"text": OPEN_TEXT, "bindings": [{"transformation_id": transformation_id}]}]
    }
    commit = client.post(f"/v1/receipts/{receipt_id}/claims", json=claim, headers=w.trusted)

    assert transform.status_code == 403, transform.text
    assert transform.json()["type"].endswith("/entitlement-denied")
    assert transform.json()["errors"] == [
        {
            "field": "inputs[0]",
            "rule": "entitlement-group-mismatch",
            "message": "the principal may not see this span",
        }
    ]
    assert commit.status_code == 403, commit.text
    assert commit.json()["errors"] == [
        {
            "field": "claims[0].bindings[0].transformation_id",
            "rule": "entitlement-group-mismatch",
            "message": "the receipt's principal may not see this span",
        }
    ]
    for refused in (transform, commit):
        assert "refund-policy" not in refused.text
        assert "30 days" not in refused.text
        assert "dropped" not in refused.json()
    assert w.position() == before
