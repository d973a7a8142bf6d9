"""``POST /v1/receipts/{id}/transformations`` over HTTP, on both backends: seed 003's negative
control first (a policy summary that keeps the recommendation and drops the exclusion of
customers under an active dispute), then what an accepted transformation is and what every
refusal leaves (nothing).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from api.main import create_app
from api.services import open_ledger
from api.settings import Settings
from ledger.crypto.canonical import canonical_json
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import open_receipt, register
from tests.tamper import Tamperer

POLICY = (
    "Advisers may recommend reversing a disputed service charge of up to $250 when the charge "
    "was posted after 1 March 2024. Customers under an active dispute are excluded. Charges "
    "already under formal appeal are not eligible for the waiver. To apply the waiver, open the "
    "billing console, select the charge and choose Waive. For example, a customer charged $40 "
    "twice for one visit would get $40 back."
)
RECOMMENDATION = (
    "Advisers may recommend reversing a disputed service charge of up to $250 when the charge "
    "was posted after 1 March 2024."
)
EXCLUSION = "Customers under an active dispute are excluded."
APPEAL = "Charges already under formal appeal are not eligible for the waiver."
ALL_KINDS = ["exceptions", "numbers", "dates", "negations", "uncertainty", "minority_views"]
LOSS_BOUNDARY = "https://provledger.dev/problems/loss-boundary"


def _policy(client: TestClient, headers: dict[str, str]) -> tuple[str, list[dict[str, Any]]]:
    """The waiver policy registered and a receipt opened over all its spans."""
    spans = register(
        client,
        headers,
        "waiver-policy",
        POLICY,
        authority="source_of_record",
        effective_from="2024-01-01T00:00:00Z",
    )
    assert [s["text"] for s in spans[:3]] == [RECOMMENDATION, EXCLUSION, APPEAL]
    receipt_id = open_receipt(
        client,
        headers,
        [s["span_id"] for s in spans],
        request="May the disputed charge be reversed?",
        purpose="billing-review",
        as_of="2024-06-01T00:00:00Z",
    )
    return receipt_id, spans


def _transformation(spans: list[dict[str, Any]], output: str, **extra: Any) -> dict[str, Any]:
    return {
        "method": "summary",
        "inputs": [s["span_id"] for s in spans],
        "output": output,
        "may_remove": ["repetition", "examples", "procedure"],
        "must_keep": ALL_KINDS,
        **extra,
    }


def _post(
    client: TestClient, headers: dict[str, str], receipt_id: str, body: dict[str, Any]
) -> Any:
    return client.post(f"/v1/receipts/{receipt_id}/transformations", json=body, headers=headers)


def test_the_seed_policy_summary_that_drops_the_dispute_exclusion_is_refused_and_writes_nothing(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id, spans = _policy(client, headers)
    before = runtime.ledger.last_position()

    response = _post(
        client, headers, receipt_id, _transformation(spans, f"{RECOMMENDATION} {APPEAL}")
    )

    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"] == LOSS_BOUNDARY
    assert problem["title"] == "Loss boundary breached"
    excluded = spans[1]["span_id"]
    assert problem["dropped"] == [
        {
            "must_keep": "exceptions",
            "cue": "exception",
            "item": "Customers under an active dispute are excluded",
            "span_id": excluded,
            "input": 1,
        }
    ]
    assert problem["errors"] == [
        {
            "field": "output",
            "rule": "exceptions",
            "message": "the output drops exception 'Customers under an active dispute are "
            f"excluded' of span {excluded} (inputs[1])",
        }
    ]
    assert runtime.ledger.last_position() == before
    document = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()
    assert "transformations" not in document


def test_a_summary_that_keeps_its_boundary_is_a_signed_event_shown_on_the_receipt_and_packet(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id, spans = _policy(client, headers)
    packet_before = client.get(f"/v1/receipts/{receipt_id}/context", headers=headers).json()
    summary = f"{RECOMMENDATION} {EXCLUSION} {APPEAL}"

    response = _post(client, headers, receipt_id, _transformation(spans, summary))

    assert response.status_code == 201, response.text
    recorded = response.json()
    transformation_id = recorded["transformation_id"]
    assert transformation_id.startswith("tfm_")
    assert recorded["receipt_id"] == receipt_id
    assert [i["span_id"] for i in recorded["inputs"]] == [s["span_id"] for s in spans]
    assert {i["source_id"] for i in recorded["inputs"]} == {"waiver-policy"}
    assert recorded["output"] == summary
    assert recorded["check"]["checker"] == "provledger.loss-boundary/1"
    assert recorded["check"]["items"]["exceptions"] == {"found": 1, "released": 0, "kept": 1}
    assert [(r["item"], r["released_by"]) for r in recorded["check"]["released"]] == [
        ("$40", "examples")
    ]
    position = int(response.headers["Provledger-Position"])
    [event] = runtime.ledger.read_log(position - 1, 1)
    assert event.topic == "provledger.receipt.transformation_recorded"

    document = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()
    assert document["transformations"] == [{k: v for k, v in recorded.items() if k != "receipt_id"}]
    packet = client.get(f"/v1/receipts/{receipt_id}/context", headers=headers).json()
    assert packet["prefix_sha256"] == packet_before["prefix_sha256"]
    assert packet["prefix_sha256"] == packet["recorded_prefix_sha256"]
    assert packet["transformations"] == [
        {
            "transformation_id": transformation_id,
            "method": "summary",
            "inputs": [s["span_id"] for s in spans],
            "type": "data",
            "trust": "untrusted",
            "output": summary,
        }
    ]
    text = packet["packet"]
    section = text.index("<transformations>")
    assert text.index("</evidence>") < section < text.index("<query>")
    assert f'<transformation id="{transformation_id}" method="summary" inputs="' in text
    assert client.get(f"/v1/receipts/{receipt_id}/envelope", headers=headers).status_code == 200


def test_the_same_transformation_sent_again_answers_the_recorded_one_and_writes_nothing(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id, spans = _policy(client, headers)
    body = _transformation(spans, f"{RECOMMENDATION} {EXCLUSION} {APPEAL}")
    first = _post(client, headers, receipt_id, body)
    before = runtime.ledger.last_position()

    again = _post(client, headers, receipt_id, body)

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert runtime.ledger.last_position() == before


def test_a_claim_bound_to_a_transformation_is_judged_against_its_inputs_not_its_output(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id, spans = _policy(client, headers)
    invented = "Reversals are approved within 2 days."
    summary = f"{RECOMMENDATION} {EXCLUSION} {APPEAL} {invented}"
    recorded = _post(client, headers, receipt_id, _transformation(spans[:3], summary))
    assert recorded.status_code == 201, recorded.text
    transformation_id = recorded.json()["transformation_id"]

    def commit(text: str) -> Any:
        body = {
            "mode": "independent",
            "claims": [{"text": text, "bindings": [{"transformation_id": transformation_id}]}],
        }
        return client.post(f"/v1/receipts/{receipt_id}/claims", json=body, headers=headers)

    supported = commit(EXCLUSION)
    only_in_output = commit(invented)

    assert supported.status_code == 201, supported.text
    claim = supported.json()["committed"][0]
    assert claim["status"] == "verified"
    assert [(b["span_id"], b["transformation_id"]) for b in claim["bindings"]] == [
        (s["span_id"], transformation_id) for s in spans[:3]
    ]
    assert {b["source_id"] for b in claim["bindings"]} == {"waiver-policy"}
    judged = only_in_output.json()
    found = (judged.get("committed") or []) + (judged.get("quarantined") or [])
    assert found
    assert found[0]["status"] != "verified"  # the output says it; no input does
    stored = client.get(f"/v1/claims/{claim['claim_id']}", headers=headers)
    assert stored.status_code == 200, stored.text
    assert [b["transformation_id"] for b in stored.json()["bindings"]] == [transformation_id] * 3


def test_a_claim_bound_to_a_transformation_the_receipt_has_not_recorded_is_refused(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id, _ = _policy(client, headers)
    before = runtime.ledger.last_position()
    missing = "tfm_" + "0" * 24
    cases = [
        (
            [{"transformation_id": missing}],
            "claims[0].bindings[0].transformation_id",
            "known-transformation",
        ),
        (
            [{"transformation_id": missing, "quote": "Customers"}],
            "claims[0].bindings[0].quote",
            "span-binding",
        ),
        ([{"transformation_id": "tfm_xyz"}], "claims[0].bindings[0].transformation_id", "pattern"),
    ]
    for bindings, field, rule in cases:
        body = {"claims": [{"text": EXCLUSION, "bindings": bindings}]}
        response = client.post(f"/v1/receipts/{receipt_id}/claims", json=body, headers=headers)

        assert response.status_code == 422, response.text
        assert (response.json()["errors"][0]["field"], response.json()["errors"][0]["rule"]) == (
            field,
            rule,
        )
    both = {
        "claims": [
            {
                "text": EXCLUSION,
                "bindings": [{"span_id": "sp_" + "0" * 24, "transformation_id": missing}],
            }
        ]
    }
    response = client.post(f"/v1/receipts/{receipt_id}/claims", json=both, headers=headers)
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "claims.0.bindings.0"
    assert runtime.ledger.last_position() == before


def test_bad_transformation_requests_are_422_naming_the_field_and_rule_and_write_nothing(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id, spans = _policy(client, headers)
    other = register(client, headers, "other-memo", "The memo says nothing of waivers.")
    good = _transformation(spans, f"{RECOMMENDATION} {EXCLUSION} {APPEAL}")
    before = runtime.ledger.last_position()
    cases = [
        ({"method": "paraphrase"}, "method", "known-method"),
        ({"may_remove": ["examples", "anecdotes"]}, "may_remove[1]", "known-item"),
        ({"must_keep": ["exceptions", "opinions"]}, "must_keep[1]", "known-item"),
        ({"must_keep": []}, "must_keep", "non-empty"),
        ({"must_keep": ["dates", "dates"]}, "must_keep", "unique"),
        ({"inputs": []}, "inputs", "count"),
        ({"inputs": ["sp_nope"]}, "inputs[0]", "pattern"),
        ({"inputs": [spans[0]["span_id"], spans[0]["span_id"]]}, "inputs", "unique"),
        ({"inputs": [other[0]["span_id"]]}, "inputs[0]", "in-pool"),
        ({"output": "  "}, "output", "non-empty"),
        ({"output": "x" * 20_001}, "output", "max-length"),
    ]
    for change, field, rule in cases:
        response = _post(client, headers, receipt_id, {**good, **change})

        assert response.status_code == 422, (change, response.text)
        problem = response.json()
        assert problem["type"].endswith("/invalid-input"), change
        assert (problem["errors"][0]["field"], problem["errors"][0]["rule"]) == (field, rule)
    missing_field = {k: v for k, v in good.items() if k != "must_keep"}
    response = _post(client, headers, receipt_id, missing_field)
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "must_keep"
    assert runtime.ledger.last_position() == before


def test_recording_a_transformation_needs_the_claims_write_scope(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    writer = auth("ingest", "read", "claims:write", name="app")
    reader = auth("read", name="reader")
    receipt_id, spans = _policy(client, writer)
    body = _transformation(spans, f"{RECOMMENDATION} {EXCLUSION} {APPEAL}")
    before = runtime.ledger.last_position()

    anonymous = _post(client, {}, receipt_id, body)
    read_only = _post(client, reader, receipt_id, body)

    assert anonymous.status_code == 401
    assert read_only.status_code == 403
    assert read_only.json()["type"].endswith("/forbidden")
    assert runtime.ledger.last_position() == before
    assert _post(client, writer, receipt_id, body).status_code == 201


def test_a_claim_on_a_transformation_expires_its_receipt_when_an_input_is_superseded(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id, spans = _policy(client, headers)
    body = _transformation(spans, f"{RECOMMENDATION} {EXCLUSION} {APPEAL}")
    transformation_id = _post(client, headers, receipt_id, body).json()["transformation_id"]
    claim = {
        "claims": [{"text": EXCLUSION, "bindings": [{"transformation_id": transformation_id}]}]
    }
    committed = client.post(f"/v1/receipts/{receipt_id}/claims", json=claim, headers=headers)
    assert committed.status_code == 201, committed.text

    superseded = client.post(
        "/v1/sources/waiver-policy/versions", json={"text": "The waiver ended."}, headers=headers
    )
    assert superseded.status_code == 201, superseded.text
    status = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()["status"]
    before = runtime.ledger.last_position()
    again = _post(client, headers, receipt_id, {**body, "may_remove": []})
    unknown = _post(client, headers, "rcpt_" + "0" * 32, body)

    assert (status["status"], status["reason"]) == ("expired", "source_superseded")
    assert again.status_code == 409, again.text
    assert again.json()["type"].endswith("/receipt-expired")
    assert unknown.status_code == 404
    assert runtime.ledger.last_position() == before


def test_a_transformation_edited_in_the_database_is_neither_served_nor_judged_against(
    settings: Settings,
) -> None:
    quiet = settings.model_copy(update={"background": False})

    @contextmanager
    def started() -> Iterator[tuple[TestClient, LedgerRuntime]]:
        runtime = open_ledger(quiet)
        try:
            with TestClient(create_app(quiet, runtime), raise_server_exceptions=False) as client:
                yield client, runtime
        finally:
            runtime.close()

    with started() as (client, runtime):
        secret = runtime.api_keys.issue("app", ["ingest", "read", "claims:write"], "t")
        headers = {"Authorization": f"Bearer {secret}"}
        receipt_id, spans = _policy(client, headers)
        body = _transformation(spans, f"{RECOMMENDATION} {EXCLUSION} {APPEAL}")
        recorded = _post(client, headers, receipt_id, body)
        assert recorded.status_code == 201, recorded.text
        position = runtime.ledger.last_position()
        tamper = Tamperer(runtime)
        stored = json.loads(tamper.state(position))
        stored["body"]["payload"]["output"] = RECOMMENDATION  # the exclusion quietly gone
        tamper.set_state(position, canonical_json(stored))

    with started() as (again, restarted):
        served = again.get(f"/v1/receipts/{receipt_id}", headers=headers)
        packet = again.get(f"/v1/receipts/{receipt_id}/context", headers=headers)
        claim = {
            "claims": [
                {
                    "text": EXCLUSION,
                    "bindings": [{"transformation_id": recorded.json()["transformation_id"]}],
                }
            ]
        }
        committed = again.post(f"/v1/receipts/{receipt_id}/claims", json=claim, headers=headers)
        last = restarted.ledger.last_position()

    for refused in (served, packet, committed):
        assert refused.status_code == 500, refused.text
        assert refused.json()["type"].endswith("/ledger-integrity")
        assert refused.json()["reason"] == "bad_signature"
    assert last == position  # the refused commit wrote nothing
