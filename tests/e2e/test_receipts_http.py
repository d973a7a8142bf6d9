"""Receipts, the commit gate over HTTP and envelopes, on SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import json
import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.runtime import LedgerRuntime

TEXT = (
    "# Results\n\n"
    "Revenue rose 2.2% to $4.5 million in fiscal 2023. "
    "The board did not approve a dividend. "
    "Dr. Lee signed the report on Jan. 5, 2024.\n"
)


@pytest.fixture
def headers(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return auth("ingest", "read", "claims:write", "audit:read", name="app")


@pytest.fixture
def spans(client: TestClient, headers: dict[str, str]) -> dict[str, str]:
    body = {
        "source_id": "report-2023",
        "title": "Annual report",
        "text": TEXT,
        "media_type": "text/markdown",
        "authority": "source_of_record",
        "effective_from": "2024-01-01T00:00:00Z",
    }
    response = client.post("/v1/sources", json=body, headers=headers)
    assert response.status_code == 201, response.text
    by_text = {s["text"]: s["span_id"] for s in response.json()["spans"]}
    return {
        "revenue": by_text["Revenue rose 2.2% to $4.5 million in fiscal 2023."],
        "dividend": by_text["The board did not approve a dividend."],
        "signed": by_text["Dr. Lee signed the report on Jan. 5, 2024."],
    }


def _open(client: TestClient, headers: dict[str, str], evidence: list[str], **extra: Any):  # type: ignore[no-untyped-def]
    body = {
        "request": "How did revenue develop in 2023?",
        "actor": "user-42",
        "purpose": "analyst-qa",
        "policy_version": "default",
        "route": "hybrid_retrieval",
        "model": {"name": "m", "version": "1"},
        "tools": ["search"],
        "evidence": evidence,
        "excluded": [{"ref": "doc-9", "reason_code": "access_denied"}],
        "as_of": "2024-03-01T00:00:00Z",
        **extra,
    }
    return client.post("/v1/receipts", json=body, headers=headers)


@pytest.fixture
def receipt(client: TestClient, headers: dict[str, str], spans: dict[str, str]) -> str:
    response = _open(client, headers, [spans["revenue"], spans["dividend"]])
    assert response.status_code == 201, response.text
    receipt_id: str = response.json()["receipt_id"]
    return receipt_id


def _claim(text: str, span_id: str, **extra: Any) -> dict[str, Any]:
    return {"text": text, "bindings": [{"span_id": span_id, "role": "primary_support"}], **extra}


def _commit(client: TestClient, headers: dict[str, str], receipt_id: str, claims, **extra):  # type: ignore[no-untyped-def]
    return client.post(
        f"/v1/receipts/{receipt_id}/claims", json={"claims": claims, **extra}, headers=headers
    )


def test_opening_seals_the_pool_with_hashes_and_a_new_id_per_inference(
    client: TestClient, headers: dict[str, str], spans: dict[str, str]
) -> None:
    response = _open(client, headers, [spans["revenue"]])

    assert response.status_code == 201
    body = response.json()
    assert body["receipt_id"].startswith("rcpt_")
    assert len(body["receipt_id"]) == 37
    [entry] = body["pool"]
    assert entry["span_id"] == spans["revenue"]
    assert entry["version"] == 1
    assert entry["version_hash"].startswith("sha256:")
    assert entry["text_sha256"].startswith("sha256:")
    assert body["status"]["status"] == "open"
    again = _open(client, headers, [spans["revenue"]])
    assert again.status_code == 201
    assert again.json()["receipt_id"] != body["receipt_id"]


def test_opening_with_bad_evidence_names_each_bad_id(
    client: TestClient, headers: dict[str, str], spans: dict[str, str], runtime: LedgerRuntime
) -> None:
    position = runtime.ledger.last_position()
    ghost = "sp_" + "0" * 24

    response = _open(client, headers, [spans["revenue"], ghost, "not-a-span"])

    assert response.status_code == 422
    fields = {e["field"]: e for e in response.json()["errors"]}
    assert ghost in fields["evidence[1]"]["message"]
    assert "evidence[2]" in fields
    assert runtime.ledger.last_position() == position


def test_evidence_not_in_force_at_as_of_is_refused(
    client: TestClient, headers: dict[str, str], spans: dict[str, str]
) -> None:
    response = _open(client, headers, [spans["revenue"]], as_of="2023-06-01T00:00:00Z")
    assert response.status_code == 422
    assert "was not in force" in response.json()["errors"][0]["message"]


def test_a_verbatim_quoted_claim_is_verified_and_readable(
    client: TestClient, headers: dict[str, str], receipt: str, spans: dict[str, str]
) -> None:
    claim = _claim(
        "Revenue rose 2.2% to $4.5 million in fiscal 2023.",
        spans["revenue"],
        client_ref="c1",
    )
    claim["bindings"][0]["quote"] = "Revenue rose 2.2% to $4.5 million"

    response = _commit(client, headers, receipt, [claim])

    assert response.status_code == 201, response.text
    [committed] = response.json()["committed"]
    assert committed["status"] == "verified"
    assert committed["claim_id"].startswith("clm_")
    view = client.get(f"/v1/claims/{committed['claim_id']}", headers=headers).json()
    [binding] = view["bindings"]
    assert binding["title"] == "Annual report"
    assert binding["heading_path"] == ["Results"]
    start, end = binding["highlight"]
    assert binding["excerpt"][start:end] == binding["text"]
    assert view["warnings"] == []


def test_a_claim_that_contradicts_its_span_is_rejected_and_nothing_commits(
    client: TestClient,
    headers: dict[str, str],
    receipt: str,
    spans: dict[str, str],
    runtime: LedgerRuntime,
) -> None:
    good = _claim("Revenue rose 2.2% to $4.5 million in fiscal 2023.", spans["revenue"])
    bad = _claim("The board approved a dividend.", spans["dividend"])
    position = runtime.ledger.last_position()

    response = _commit(client, headers, receipt, [good, bad])

    assert response.status_code == 422
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["committed"] == []
    assert {e["field"] for e in body["errors"]} == {"claims[1]"}
    assert runtime.ledger.last_position() == position + 1  # the rejection itself is recorded
    receipt_view = client.get(f"/v1/receipts/{receipt}", headers=headers).json()
    assert receipt_view["claims"] == []
    assert [c["status"] for c in receipt_view["quarantined"]] == ["verified", "rejected"]


def test_a_gate_refusal_is_its_own_problem_type_with_every_claims_verdict(
    client: TestClient, headers: dict[str, str], receipt: str, spans: dict[str, str]
) -> None:
    good = _claim("Revenue rose 2.2% to $4.5 million in fiscal 2023.", spans["revenue"])
    bad = _claim("The board approved a dividend.", spans["dividend"], client_ref="c2")

    body = _commit(client, headers, receipt, [good, bad]).json()

    assert body["type"] == "https://provledger.dev/problems/claims-rejected"
    assert body["title"] == "Claims rejected"
    first, second = body["claims"]
    assert (first["index"], first["status"], first["reasons"]) == (0, "verified", [])
    assert (second["index"], second["client_ref"], second["status"]) == (1, "c2", "rejected")
    assert second["claim_id"] == body["rejected"][1]["claim_id"]
    assert second["reasons"] == [
        c["reason"] for c in body["rejected"][1]["checks"] if c["outcome"] == "fail"
    ]
    [binding] = second["bindings"]
    assert binding["span_id"] == spans["dividend"]
    assert {"check": "existence", "outcome": "pass"}.items() <= next(
        r for r in binding["results"] if r["check"] == "existence"
    ).items()


def test_a_malformed_commit_keeps_the_invalid_input_problem_type(
    client: TestClient, headers: dict[str, str], receipt: str
) -> None:
    response = _commit(client, headers, receipt, [{"text": "", "bindings": []}])

    assert response.status_code == 422
    assert response.json()["type"] == "https://provledger.dev/problems/invalid-input"


def test_independent_mode_commits_good_claims_and_quarantines_rejected_ones(
    client: TestClient, headers: dict[str, str], receipt: str, spans: dict[str, str]
) -> None:
    good = _claim("Revenue rose 2.2% to $4.5 million in fiscal 2023.", spans["revenue"])
    wrong_number = _claim("Revenue rose 22% to $4.5 million in fiscal 2023.", spans["revenue"])

    response = _commit(client, headers, receipt, [good, wrong_number], mode="independent")

    assert response.status_code == 201
    body = response.json()
    assert [c["status"] for c in body["committed"]] == ["verified"]
    assert [c["status"] for c in body["quarantined"]] == ["rejected"]
    reasons = {c["reason"] for c in body["quarantined"][0]["checks"] if c["outcome"] == "fail"}
    assert "anchor_missing" in reasons


def test_binding_a_span_outside_the_sealed_pool_is_refused_before_the_gate_reads_it(
    client: TestClient, headers: dict[str, str], receipt: str, spans: dict[str, str]
) -> None:
    claim = _claim("Dr. Lee signed the report on Jan. 5, 2024.", spans["signed"])
    response = _commit(client, headers, receipt, [claim])
    assert response.status_code == 422
    problem = response.json()
    assert problem["type"].endswith("/invalid-input")  # judged by no check: nothing recorded
    assert problem["errors"][0]["field"] == "claims[0].bindings[0].span_id"
    assert problem["errors"][0]["rule"] == "in-pool"


def test_an_unbound_material_claim_commits_as_unverified(
    client: TestClient, headers: dict[str, str], receipt: str
) -> None:
    response = _commit(client, headers, receipt, [{"text": "Margins improved."}])
    assert response.status_code == 201
    assert response.json()["committed"][0]["status"] == "unverified"


def test_a_retry_with_the_same_idempotency_key_replays_the_first_answer(
    client: TestClient,
    headers: dict[str, str],
    receipt: str,
    spans: dict[str, str],
    runtime: LedgerRuntime,
) -> None:
    claims = [_claim("Revenue rose 2.2% to $4.5 million in fiscal 2023.", spans["revenue"])]
    keyed = {**headers, "Idempotency-Key": "req-1"}
    first = client.post(f"/v1/receipts/{receipt}/claims", json={"claims": claims}, headers=keyed)
    position = runtime.ledger.last_position()

    again = client.post(f"/v1/receipts/{receipt}/claims", json={"claims": claims}, headers=keyed)

    assert again.status_code == first.status_code == 201
    assert again.json() == first.json()
    assert again.headers["idempotency-replayed"] == "true"
    assert runtime.ledger.last_position() == position
    other = client.post(
        f"/v1/receipts/{receipt}/claims",
        json={"claims": [{"text": "Something else."}]},
        headers=keyed,
    )
    assert other.status_code == 422
    assert other.json()["errors"][0]["rule"] == "same-request"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"claims": []}, "claims"),
        ({"claims": [{"text": "x", "type": "opinion"}]}, "claims.0.type"),
        (
            {"claims": [{"text": "x", "bindings": [{"span_id": "sp_1", "role": "x"}]}]},
            "claims.0.bindings.0.role",
        ),
        (
            {"claims": [{"text": "x", "bindings": [{"span_id": "nope"}]}]},
            "claims[0].bindings[0].span_id",
        ),
        ({"claims": [{"text": "  "}]}, "claims[0].text"),
        ({"mode": "eventual", "claims": [{"text": "x"}]}, "mode"),
    ],
)
def test_malformed_commits_leave_no_trace(
    client: TestClient,
    headers: dict[str, str],
    receipt: str,
    runtime: LedgerRuntime,
    body: dict[str, Any],
    field: str,
) -> None:
    position = runtime.ledger.last_position()
    response = client.post(f"/v1/receipts/{receipt}/claims", json=body, headers=headers)
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["field"] == field
    assert runtime.ledger.last_position() == position


def test_concurrent_commits_to_one_receipt_keep_every_claim(
    client: TestClient, headers: dict[str, str], receipt: str, spans: dict[str, str]
) -> None:
    statuses: list[int] = []

    def commit(index: int) -> None:
        claim = {"text": f"Note {index} on revenue.", "material": False}
        statuses.append(_commit(client, headers, receipt, [claim]).status_code)

    threads = [threading.Thread(target=commit, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert statuses == [201] * 6
    claims = client.get(f"/v1/receipts/{receipt}", headers=headers).json()["claims"]
    assert sorted(c["ordinal"] for c in claims) == list(range(6))
    assert len({c["claim_id"] for c in claims}) == 6


def test_rendered_answer_markers_must_resolve(
    client: TestClient, headers: dict[str, str], receipt: str, spans: dict[str, str]
) -> None:
    claim = _claim("Revenue rose 2.2% to $4.5 million in fiscal 2023.", spans["revenue"])
    ok = _commit(
        client, headers, receipt, [claim], rendered_answer=f"Revenue grew [{spans['revenue']}]."
    )
    assert ok.status_code == 201
    assert ok.json()["render_check"]["outcome"] == "pass"
    bad = _commit(client, headers, receipt, [claim], rendered_answer="Revenue grew [1].")
    assert bad.status_code == 422
    assert bad.json()["errors"][-1] == {
        "field": "rendered_answer",
        "rule": "marker_not_a_span",
        "message": "numeric markers [1] do not name a span; cite as [sp_...]",
    }


def test_envelope_verifies_and_an_edit_is_detected(
    client: TestClient, headers: dict[str, str], receipt: str, spans: dict[str, str]
) -> None:
    _commit(
        client,
        headers,
        receipt,
        [_claim("Revenue rose 2.2% to $4.5 million in fiscal 2023.", spans["revenue"])],
    )
    envelope = client.get(f"/v1/receipts/{receipt}/envelope", headers=headers).json()
    assert envelope["payloadType"] == "application/vnd.provledger.receipt+json"
    assert envelope["signatures"][0]["keyid"].startswith("hmac:")

    verdict = client.post("/v1/envelopes/verify", json=envelope, headers=headers).json()
    assert verdict["valid"] is True
    assert verdict["receipt_id"] == receipt

    payload = json.loads(base64.b64decode(envelope["payload"]))
    payload["claims"][0]["status"] = "verified-by-hand"
    from ledger.crypto.canonical import canonical_json

    envelope["payload"] = base64.b64encode(canonical_json(payload)).decode()
    tampered = client.post("/v1/envelopes/verify", json=envelope, headers=headers).json()
    assert tampered["valid"] is False
    assert any("does not match the payload" in r for r in tampered["reasons"])


def test_envelope_verification_needs_audit_scope(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    reader = auth("read", name="reader")
    assert client.post("/v1/envelopes/verify", json={}, headers=reader).status_code == 403
