"""Entitlements over HTTP: attackers first, then the recorded decisions and as-of reads.

A restricted source is registered with a group and a purpose. Each attack tries to see it
(claim a group the key does not pin, edit the read model, edit the signed event) or to learn
about it from a refusal or a receipt; none may succeed, and a refused request writes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from fastapi.testclient import TestClient

from api.cli import main
from ledger.access.attributes import Pins
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import commit_verbatim, receipt_body, register
from tests.tamper import Tamperer

SECRET_TITLE = "Investigation 4471 into the Northwind account"
SECRET_TEXT = "The investigation into Northwind found a duplicated invoice of $12,400."
OPEN_TEXT = "The refund policy allows reversal within 30 days of the charge."
RESTRICTED = {"groups": ["investigations"], "purposes": ["fraud-review"]}


def _setup(client: TestClient, auth) -> tuple[dict[str, str], str, str]:  # type: ignore[no-untyped-def]
    """An ingesting key; a restricted and an open source. Returns (headers, secret span,
    open span)."""
    ingest = auth("ingest", "read", name="ingester")
    secret = register(
        client, ingest, "case-4471", SECRET_TEXT, title=SECRET_TITLE, access=RESTRICTED
    )
    public = register(client, ingest, "refund-policy", OPEN_TEXT)
    return ingest, secret[0]["span_id"], public[0]["span_id"]


def _pinned(runtime: LedgerRuntime, name: str, **pins: list[str]) -> dict[str, str]:
    secret = runtime.api_keys.issue(name, ["claims:write", "read"], "test:suite", Pins.parse(pins))
    return {"Authorization": f"Bearer {secret}"}


def _position(runtime: LedgerRuntime) -> int:
    return runtime.ledger.last_position()


def _leaks(body: Any) -> list[str]:
    text = json.dumps(body)
    return [s for s in ("case-4471", SECRET_TITLE, "Northwind", "investigations") if s in text]


def test_a_principal_claiming_a_group_its_key_does_not_pin_is_refused_and_writes_nothing(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    _, secret_span, _ = _setup(client, auth)
    app = _pinned(runtime, "support-app", groups=["support"], purposes=["fraud-review"])
    before = _position(runtime)
    body = receipt_body(
        [secret_span],
        purpose="fraud-review",
        principal={"groups": ["support", "investigations"], "purpose": "fraud-review"},
    )
    response = client.post("/v1/receipts", json=body, headers=app)
    assert response.status_code == 403
    problem = response.json()
    assert problem["type"].endswith("/principal-not-pinned")
    assert problem["errors"][0]["field"] == "principal.groups"
    assert problem["errors"][0]["rule"] == "pinned"
    assert _position(runtime) == before


def test_a_pinned_key_cannot_widen_its_purpose_either(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    _, _, open_span = _setup(client, auth)
    app = _pinned(runtime, "qa-app", purposes=["analyst-qa"])
    body = receipt_body([open_span], purpose="fraud-review")  # no principal: the purpose counts
    response = client.post("/v1/receipts", json=body, headers=app)
    assert response.status_code == 403
    assert response.json()["errors"][0]["field"] == "principal.purpose"


def test_opening_over_a_span_the_principal_may_not_see_is_refused_without_naming_the_source(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    _, secret_span, open_span = _setup(client, auth)
    # The key may act for investigations too: it may see the source, its principal may not.
    app = _pinned(
        runtime, "desk-app", groups=["support", "investigations"], purposes=["fraud-review"]
    )
    before = _position(runtime)
    body = receipt_body(
        [open_span, secret_span],
        purpose="fraud-review",
        principal={"groups": ["support"], "purpose": "fraud-review"},
    )
    response = client.post("/v1/receipts", json=body, headers=app)
    assert response.status_code == 403
    problem = response.json()
    assert problem["type"].endswith("/entitlement-denied")
    assert problem["errors"] == [
        {
            "field": "evidence[1]",
            "rule": "entitlement-group-mismatch",
            "message": "the principal may not see this span",
        }
    ]
    assert _leaks(problem) == []
    assert _position(runtime) == before


def test_a_request_without_a_principal_sees_only_open_sources(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    _, secret_span, open_span = _setup(client, auth)
    writer = auth("claims:write", "read", name="legacy-app")
    refused = client.post("/v1/receipts", json=receipt_body([secret_span]), headers=writer)
    assert refused.status_code == 403
    assert refused.json()["errors"][0]["rule"] == "entitlement-group-mismatch"
    opened = client.post("/v1/receipts", json=receipt_body([open_span]), headers=writer)
    assert opened.status_code == 201, opened.text


def test_an_access_row_edited_in_the_read_model_does_not_widen_visibility(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    _, secret_span, _ = _setup(client, auth)
    tamper = Tamperer(runtime)
    tamper.read_model("DELETE FROM registry_access WHERE source_id = %s", "case-4471")
    reader = auth("read", name="reader")
    shown = client.get("/v1/sources/case-4471", headers=reader)
    assert shown.status_code == 500  # the edited display row is not served ...
    assert shown.json()["reason"] == "read_model_mismatch"
    app = _pinned(
        runtime, "desk-app", groups=["support", "investigations"], purposes=["fraud-review"]
    )
    body = receipt_body(
        [secret_span],
        purpose="fraud-review",
        principal={"groups": ["support"], "purpose": "fraud-review"},
    )
    response = client.post("/v1/receipts", json=body, headers=app)
    assert response.status_code == 403  # ... but the gate decides from the signed events
    assert response.json()["errors"][0]["rule"] == "entitlement-group-mismatch"


def test_an_access_event_edited_in_the_store_refuses_the_opening(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    ingest, secret_span, _ = _setup(client, auth)
    changed = client.post(
        "/v1/sources/case-4471/access",
        json={"groups": ["investigations", "audit"], "purposes": ["fraud-review"]},
        headers=ingest,
    )
    assert changed.status_code == 200, changed.text
    position = changed.json()["position"]
    tamper = Tamperer(runtime)
    state = tamper.state(position)
    widened = state.replace(b'"investigations"', b'"support"')
    assert widened != state
    tamper.set_state(position, widened)
    app = _pinned(runtime, "support-app", groups=["support"], purposes=["fraud-review"])
    body = receipt_body(
        [secret_span],
        purpose="fraud-review",
        principal={"groups": ["support"], "purpose": "fraud-review"},
    )
    response = client.post("/v1/receipts", json=body, headers=app)
    assert response.status_code == 500
    assert response.json()["type"].endswith("/ledger-integrity")


def test_denied_candidates_are_recorded_as_safe_codes_and_only_audit_reads_the_decision(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    _, secret_span, open_span = _setup(client, auth)
    app = _pinned(
        runtime, "desk-app", groups=["support", "investigations"], purposes=["fraud-review"]
    )
    body = receipt_body(
        [open_span],
        purpose="fraud-review",
        principal={"groups": ["support"], "purpose": "fraud-review"},
        candidates=[open_span, secret_span],
    )
    opened = client.post("/v1/receipts", json=body, headers=app)
    assert opened.status_code == 201, opened.text
    receipt = opened.json()
    assert receipt["excluded"] == [
        {"ref": "entitlement", "reason_code": "entitlement-group-mismatch"}
    ]
    assert receipt["principal"] == {
        "roles": [],
        "units": [],
        "groups": ["support"],
        "purpose": "fraud-review",
        "destination": "",
    }
    assert _leaks(receipt) == []
    path = f"/v1/receipts/{receipt['receipt_id']}/access"
    assert client.get(path, headers=app).status_code == 403
    record = client.get(path, headers=auth("audit:read", name="auditor")).json()
    assert record["policy_version"] == "default"
    assert record["rules_from"] == "default"
    decisions = {d["ref"]: d for d in record["decisions"]}
    assert decisions["candidates[1]"]["source_id"] == "case-4471"
    assert decisions["candidates[1]"]["allowed"] is False
    assert decisions["candidates[1]"]["rule"] == "groups"
    assert decisions["evidence[0]"]["allowed"] is True
    assert decisions["evidence[0]"]["rule"] == "open"


def test_access_changes_by_signed_event_and_reads_as_of(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    ingest, secret_span, _ = _setup(client, auth)
    reader = auth("read", name="reader")
    before = client.get("/v1/sources/case-4471", headers=reader).json()
    assert before["access"]["groups"] == ["investigations"]
    changed = client.post(
        "/v1/sources/case-4471/access",
        json={"groups": ["support", "investigations"], "purposes": ["fraud-review"]},
        headers=ingest,
    )
    assert changed.json()["changed"] is True
    assert changed.json()["access"]["groups"] == ["investigations", "support"]
    again = client.post(
        "/v1/sources/case-4471/access",
        json={"groups": ["investigations", "support"], "purposes": ["fraud-review"]},
        headers=ingest,
    )
    assert again.json()["changed"] is False
    events = client.get("/v1/events", headers=auth("audit:read", name="auditor")).json()
    topics = [e["topic"] for e in events["events"]]
    assert topics.count("provledger.source.access_changed") == 1
    known_at = before["registered_at"]
    then = client.get(f"/v1/sources/case-4471?known_at={known_at}", headers=reader).json()
    assert then["access"]["groups"] == ["investigations"]
    now = client.get("/v1/sources/case-4471", headers=reader).json()
    assert now["access"]["groups"] == ["investigations", "support"]
    app = _pinned(runtime, "support-app", groups=["support"], purposes=["fraud-review"])
    body = receipt_body(
        [secret_span],
        purpose="fraud-review",
        principal={"groups": ["support"], "purpose": "fraud-review"},
    )
    assert client.post("/v1/receipts", json=body, headers=app).status_code == 201


def test_a_published_policy_decides_by_its_rules(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    _, _, open_span = _setup(client, auth)
    admin = auth("admin", name="admin")
    rules = [
        {
            "id": "no-external",
            "effect": "deny",
            "code": "entitlement-destination-mismatch",
            "when": [{"in": ["principal.destination", ["external"]]}],
        },
        {"id": "everyone", "effect": "allow"},
    ]
    published = client.post(
        "/v1/policies", json={"policy_version": "access-2", "rules": rules}, headers=admin
    )
    assert published.status_code == 201, published.text
    assert published.json()["rules"][0]["id"] == "no-external"
    again = client.post(
        "/v1/policies", json={"policy_version": "access-2", "rules": rules}, headers=admin
    )
    assert again.status_code == 409
    writer = auth("claims:write", "read", name="writer")
    external = {"purpose": "p", "destination": "external"}
    refused = client.post(
        "/v1/receipts",
        json=receipt_body([open_span], policy_version="access-2", principal=external),
        headers=writer,
    )
    assert refused.status_code == 403
    assert refused.json()["errors"][0]["rule"] == "entitlement-destination-mismatch"
    inside = client.post(
        "/v1/receipts",
        json=receipt_body([open_span], policy_version="access-2", principal={"purpose": "p"}),
        headers=writer,
    )
    assert inside.status_code == 201, inside.text


def test_publishing_malformed_rules_names_each_bad_field(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    admin = auth("admin", name="admin")
    rules = [
        {"id": "a", "effect": "deny", "code": "secret title", "when": []},
        {"id": "b", "effect": "allow", "when": [{"has": "source.title"}]},
        {"id": "default", "effect": "maybe"},
    ]
    response = client.post(
        "/v1/policies", json={"policy_version": "p-9", "rules": rules}, headers=admin
    )
    assert response.status_code == 422
    found = {(e["field"], e["rule"]) for e in response.json()["errors"]}
    assert found == {
        ("rules[0].code", "safe-code"),
        ("rules[1].when[0].has", "known-attribute"),
        ("rules[2].effect", "known-effect"),
    }
    default = client.post(
        "/v1/policies", json={"policy_version": "default", "rules": rules[:1]}, headers=admin
    )
    assert default.status_code == 422
    assert default.json()["errors"][0]["rule"] == "not-default"


def test_retiring_a_published_policy_expires_its_receipts_and_opens_no_more(
    client: TestClient, auth
) -> None:  # type: ignore[no-untyped-def]
    _, _, open_span = _setup(client, auth)
    admin = auth("admin", name="admin")
    rules = [{"id": "everyone", "effect": "allow"}]
    client.post("/v1/policies", json={"policy_version": "access-3", "rules": rules}, headers=admin)
    body = receipt_body([open_span], policy_version="access-3")
    opened = client.post("/v1/receipts", json=body, headers=admin)
    assert opened.status_code == 201, opened.text

    retired = client.post(
        "/v1/policies/access-3/retire", json={"reason": "superseded"}, headers=admin
    )

    assert retired.status_code == 201, retired.text
    assert retired.json()["receipts_expired"] == 1
    shown = client.get("/v1/policies/access-3", headers=admin).json()
    assert (shown["status"], shown["published"], shown["retired_reason"]) == (
        "retired",
        True,
        "superseded",
    )
    again = client.post(
        "/v1/receipts",
        json=receipt_body([open_span], policy_version="access-3", request="r2"),
        headers=admin,
    )
    assert again.status_code == 409
    twice = client.post("/v1/policies/access-3/retire", json={"reason": "x"}, headers=admin)
    assert twice.status_code == 409


def test_a_pinned_key_reads_in_the_registry_only_what_its_principals_may_see(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    _, secret_span, open_span = _setup(client, auth)
    support = _pinned(runtime, "support-app", groups=["support"], purposes=["fraud-review"])
    for path in (
        f"/v1/spans/{secret_span}",
        f"/v1/spans/{secret_span}/context",
        "/v1/sources/case-4471",
        "/v1/sources/case-4471/versions/1",
    ):
        refused = client.get(path, headers=support)
        assert refused.status_code == 404, path  # as a span or source the ledger lacks
        assert [w for w in _leaks(refused.json()) if w != "case-4471"] == [], path
    assert client.get(f"/v1/spans/{open_span}", headers=support).status_code == 200
    investigator = _pinned(
        runtime, "case-app", groups=["investigations"], purposes=["analyst-qa", "fraud-review"]
    )
    assert client.get(f"/v1/spans/{secret_span}", headers=investigator).status_code == 200
    trusted = auth("read", name="trusted-reader")  # a key without pins: a trusted application
    assert client.get(f"/v1/spans/{secret_span}", headers=trusted).status_code == 200


def test_a_receipt_with_a_principal_route_and_exclusions_verifies_offline_in_a_bundle(
    client: TestClient, auth, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    _, secret_span, _ = _setup(client, auth)
    headers = auth("ingest", "read", "claims:write", "audit:read", name="app")
    spans = register(client, headers, "memo", "Refunds are allowed within 30 days.")
    body = receipt_body(
        [spans[0]["span_id"]],
        principal={"groups": ["support"], "purpose": "p"},
        candidates=[secret_span],
        routing={
            "task": "question",
            "corpus_tokens": 50,
            "operating_length_tokens": 1000,
            "authoritative_source": True,
            "entitlement": "partial",
        },
    )
    del body["route"]
    opened = client.post("/v1/receipts", json=body, headers=headers)
    assert opened.status_code == 201, opened.text
    claim = commit_verbatim(client, headers, opened.json()["receipt_id"], spans[0])
    bundle = client.get(f"/v1/claims/{claim['claim_id']}/bundle", headers=headers).json()
    (tmp_path / "b.json").write_text(json.dumps(bundle))
    (tmp_path / "keys.json").write_text(json.dumps(client.get("/v1/keys").json()))

    result = CliRunner().invoke(
        main,
        ["audit", "verify", str(tmp_path / "b.json"), "--public-key", str(tmp_path / "keys.json")],
    )

    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("VERIFIED")


def test_a_pinned_key_reads_only_receipts_opened_for_a_principal_it_could_claim(
    client: TestClient, auth, runtime: LedgerRuntime
) -> None:  # type: ignore[no-untyped-def]
    _, secret_span, _ = _setup(client, auth)
    case_app = _pinned(runtime, "case-app", groups=["investigations"], purposes=["fraud-review"])
    body = receipt_body(
        [secret_span],
        purpose="fraud-review",
        principal={"groups": ["investigations"], "purpose": "fraud-review"},
    )
    opened = client.post("/v1/receipts", json=body, headers=case_app)
    assert opened.status_code == 201, opened.text
    receipt_id = opened.json()["receipt_id"]
    claim = commit_verbatim(
        client, case_app, receipt_id, {"span_id": secret_span, "text": SECRET_TEXT}
    )
    support = _pinned(runtime, "support-app", groups=["support"], purposes=["fraud-review"])
    for path in (
        f"/v1/receipts/{receipt_id}",
        f"/v1/receipts/{receipt_id}/envelope",
        f"/v1/receipts/{receipt_id}/context",
        f"/v1/claims/{claim['claim_id']}",
    ):
        refused = client.get(path, headers=support)
        assert refused.status_code == 404, path  # as a receipt or claim the ledger lacks
        assert "Northwind" not in refused.text
        assert "investigations" not in refused.text
        assert client.get(path, headers=case_app).status_code == 200, path


def test_registering_the_same_text_with_other_access_is_a_conflict(
    client: TestClient, auth
) -> None:  # type: ignore[no-untyped-def]
    ingest, _, _ = _setup(client, auth)
    body = {
        "source_id": "case-4471",
        "title": SECRET_TITLE,
        "authority": "derived",
        "text": SECRET_TEXT,
    }
    same = client.post("/v1/sources", json={**body, "access": RESTRICTED}, headers=ingest)
    assert (same.status_code, same.json()["created"]) == (200, False)
    unstated = client.post("/v1/sources", json=body, headers=ingest)
    assert unstated.status_code == 200
    widened = client.post("/v1/sources", json={**body, "access": {}}, headers=ingest)
    assert widened.status_code == 409
    assert "POST /v1/sources/case-4471/access" in widened.json()["detail"]
