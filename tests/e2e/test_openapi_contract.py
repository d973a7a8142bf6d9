"""The OpenAPI document is a contract a client can rely on: the bearer scheme with each
operation's scope, a schema for every success body, problem+json for every error, Markdown
descriptions, and documentation pages that work with no network. Real responses of a whole
flow are checked against the document with the same checks as the schema fuzz test."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from ledger.keys.api_keys import Scope
from tests.e2e.flows import receipt_body, register
from tests.e2e.test_schema_fuzz import CONFORMANCE

PUBLIC = {("get", "/healthz"), ("get", "/readyz"), ("get", "/v1/keys")}
"""Operations anyone may call: liveness, readiness and the public keys that verify the log."""
PROBLEM = "application/problem+json"
METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    app = create_app(Settings(data_dir=tmp_path_factory.mktemp("openapi")))
    return app.openapi()


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def test_document_declares_the_bearer_scheme(document: dict[str, Any]) -> None:
    schemes = document["components"]["securitySchemes"]
    assert list(schemes) == ["bearer"]
    assert schemes["bearer"]["type"] == "http"
    assert schemes["bearer"]["scheme"] == "bearer"
    assert "Authorization: Bearer" in schemes["bearer"]["description"]


def test_every_operation_but_the_public_ones_needs_a_named_scope(
    document: dict[str, Any],
) -> None:
    known = {scope.value for scope in Scope}
    for method, path, operation in _operations(document):
        if (method, path) in PUBLIC:
            assert operation["security"] == [], (method, path)
            continue
        [requirement] = operation["security"]
        assert list(requirement) == ["bearer"], (method, path)
        assert requirement["bearer"], (method, path)
        assert set(requirement["bearer"]) <= known, (method, path)
        assert f"`{requirement['bearer'][0]}` scope" in operation["description"], (method, path)


def test_every_operation_documents_a_success_body(document: dict[str, Any]) -> None:
    for method, path, operation in _operations(document):
        successes = {s: r for s, r in operation["responses"].items() if s.startswith("2")}
        assert successes, (method, path)
        for status, response in successes.items():
            assert response["content"], (method, path, status)
            for media, content in response["content"].items():
                assert content.get("schema"), (method, path, status, media)


def test_every_error_response_is_problem_json_with_the_problem_schema(
    document: dict[str, Any],
) -> None:
    problem = document["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "detail"} <= set(problem["required"])
    assert "HTTPValidationError" not in document["components"]["schemas"]
    for method, path, operation in _operations(document):
        errors = {s: r for s, r in operation["responses"].items() if int(s) >= 400}
        assert {"422", "500"} <= set(errors), (method, path)
        if (method, path) not in PUBLIC:
            assert {"401", "403"} <= set(errors), (method, path)
        if "requestBody" in operation:
            assert {"400", "413", "415"} <= set(errors), (method, path)
        for response in errors.values():
            assert list(response["content"]) == ["application/problem+json"], (method, path)
            ref = response["content"]["application/problem+json"]["schema"]["$ref"]
            if ref != "#/components/schemas/Problem":  # a problem type with members of its own
                extended = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
                assert set(problem["properties"]) < set(extended["properties"]), ref


def test_descriptions_are_markdown_without_restructuredtext_literals(
    document: dict[str, Any],
) -> None:
    text = json.dumps(document)
    assert "``" not in text
    assert not re.search(r":(func|class|meth):`", text)


def test_each_operation_enforces_the_scope_it_documents(
    client: TestClient, auth: Any, document: dict[str, Any]
) -> None:
    keys = {scope.value: auth(scope.value, name=f"only-{scope.name.lower()}") for scope in Scope}
    for method, path, operation in _operations(document):
        if (method, path) in PUBLIC:
            continue
        [needed] = operation["security"][0]["bearer"]
        other = Scope.READ.value if needed != Scope.READ.value else Scope.INGEST.value
        url = re.sub(r"\{[^}]+\}", "1", path)
        body = {"json": {}} if "requestBody" in operation else {}
        refused = client.request(method, url, headers=keys[other], **body)
        assert refused.status_code == 403, (method, path, refused.text)
        allowed = client.request(method, url, headers=keys[needed], **body)
        assert allowed.status_code not in (401, 403), (method, path, allowed.text)


def test_a_whole_flow_answers_only_what_the_document_declares(
    client: TestClient, auth: Any, document: dict[str, Any]
) -> None:
    schema = schemathesis.openapi.from_dict(client.get("/openapi.json").json())
    headers = auth("admin", name="flow")
    checked: list[str] = []

    def call(method: str, template: str, status: int, **kwargs: Any) -> Any:
        path_parameters = kwargs.pop("path", {})
        url = template.format(**path_parameters)
        response = client.request(method, url, headers=headers, **kwargs)
        assert response.status_code == status, (method, url, response.text)
        case = schema[template][method.upper()].Case(path_parameters=path_parameters)
        case.validate_response(response, checks=CONFORMANCE)
        checked.append(f"{method} {template} {status}")
        media = response.headers["content-type"].split(";")[0]
        return response.json() if media in ("application/json", PROBLEM) else response.text

    text = "Revenue rose 2.2% to $4.5 million. Dr. Lee approved it on Jan. 5."
    table = {"table_id": "t1", "title": "", "columns": ["Region", "2019"], "rows": [["EU", "1"]]}
    body = {"source_id": "memo", "title": "Memo", "authority": "derived", "text": text}
    spans = call("post", "/v1/sources", 201, json={**body, "tables": [table]})["spans"]
    call("post", "/v1/sources", 200, json={**body, "tables": [table]})
    memo = {"source_id": "memo"}
    call("post", "/v1/sources/{source_id}/versions", 201, path=memo, json={"text": text + " X."})
    register(client, headers, "other", "Costs fell 3% in 2019.")
    call("get", "/v1/sources/{source_id}", 200, path=memo)
    call("get", "/v1/sources/{source_id}", 404, path={"source_id": "nope"})
    version = {"source_id": "memo", "version": 2}
    current = call("get", "/v1/sources/{source_id}/versions/{version}", 200, path=version)
    span_id = current["spans"][0]["span_id"]
    call("get", "/v1/spans/{span_id}", 200, path={"span_id": spans[-1]["span_id"]})
    call("get", "/v1/spans/{span_id}/context", 200, path={"span_id": span_id})
    evidence = [span["span_id"] for span in current["spans"]]
    receipt = call("post", "/v1/receipts", 201, json=receipt_body(evidence))
    receipt_id = {"receipt_id": receipt["receipt_id"]}
    claims = {"claims": [{"text": current["spans"][0]["text"], "bindings": [{"span_id": span_id}]}]}
    committed = call("post", "/v1/receipts/{receipt_id}/claims", 201, path=receipt_id, json=claims)
    wrong = {"claims": [{"text": "Revenue rose 9%.", "bindings": [{"span_id": span_id}]}]}
    rejected = call("post", "/v1/receipts/{receipt_id}/claims", 422, path=receipt_id, json=wrong)
    assert rejected["type"].endswith("/claims-rejected")
    kept = {
        "method": "compression",
        "inputs": [span_id],
        "output": current["spans"][0]["text"],
        "must_keep": ["numbers"],
    }
    transformations = "/v1/receipts/{receipt_id}/transformations"
    call("post", transformations, 201, path=receipt_id, json=kept)
    call("post", transformations, 200, path=receipt_id, json=kept)
    lossy = {**kept, "output": "Revenue rose."}
    dropped = call("post", transformations, 422, path=receipt_id, json=lossy)
    assert dropped["type"].endswith("/loss-boundary")
    claim_id = {"claim_id": committed["committed"][0]["claim_id"]}
    call("get", "/v1/receipts/{receipt_id}", 200, path=receipt_id)
    call(
        "get",
        "/v1/receipts/{receipt_id}",
        200,
        path=receipt_id,
        params={"known_at": "2999-01-01T00:00:00Z"},
    )
    envelope = call("get", "/v1/receipts/{receipt_id}/envelope", 200, path=receipt_id)
    call("post", "/v1/envelopes/verify", 200, json=envelope)
    call("get", "/v1/claims/{claim_id}", 200, path=claim_id)
    call("get", "/v1/claims/{claim_id}/bundle", 200, path=claim_id)
    usage = {"input_tokens": 10, "cache_creation_input_tokens": 2048}
    call("post", "/v1/receipts/{receipt_id}/usage", 201, path=receipt_id, json=usage)
    kept = {
        "memory_id": "mem_flow",
        "purpose": "p",
        "scope": {},
        "source": [span_id, claim_id["claim_id"]],
        "text": "Revenue rose.",
        "expires_at": "2999-01-01T00:00:00Z",
    }
    call("post", "/v1/memory", 201, json=kept)
    call("post", "/v1/memory", 200, json=kept)
    item = {"memory_id": "mem_flow"}
    call("get", "/v1/memory/{memory_id}", 200, path=item)
    call("get", "/v1/memory/{memory_id}", 404, path={"memory_id": "mem_none"})
    call("get", "/v1/memory", 200, params={"status": "active"})
    # A model of its own: the model retirement below expires only the first receipt.
    remembering = receipt_body(evidence, memory=["mem_flow"], model={"name": "mm", "version": "1"})
    call("post", "/v1/receipts", 201, json=remembering)
    fix = {"reason": "r", "text": "Revenue rose 2.2%."}
    call("post", "/v1/memory/{memory_id}/versions", 200, path=item, json=fix)
    call("get", "/v1/memory/{memory_id}/affected", 200, path=item)
    call("post", "/v1/memory/{memory_id}/revoke", 200, path=item, json={"reason": "r"})
    call("post", "/v1/memory/{memory_id}/revoke", 409, path=item, json={"reason": "other"})
    call(
        "post",
        "/v1/receipts/{receipt_id}/claims/{claim_id}/repair",
        409,
        path={**receipt_id, **claim_id},
    )
    chunks = {"1": {"span_ids": evidence}}
    call("post", "/v1/locate", 200, json={"answer": "Revenue rose 2.2% [1].", "chunks": chunks})
    call("get", "/v1/sources/{source_id}/versions/{version}/affected", 200, path=version)
    call("get", "/v1/review", 200)
    call("get", "/v1/events", 200, params={"limit": 3})
    call("get", "/v1/audit/checkpoint", 200)
    call("get", "/v1/audit/proofs/inclusion", 200, params={"size": 2, "index": 0})
    call("get", "/v1/audit/proofs/consistency", 200, params={"first": 1, "second": 2})
    call("get", "/v1/receipts/{receipt_id}/provenance", 200, path=receipt_id)
    call("get", "/v1/sources/{source_id}/provenance", 200, path=memo, params={"format": "jsonl"})
    call("post", "/v1/sources/{source_id}/withdraw", 200, path=memo, json={"reason": "old"})
    call("post", "/v1/sources/{source_id}/withdraw", 409, path=memo, json={"reason": "again"})
    call(
        "post",
        "/v1/policies/{policy_version}/retire",
        201,
        path={"policy_version": "1"},
        json={"reason": "x"},
    )
    call("get", "/v1/keys", 200)
    call("get", "/v1/sources", 200, params={"limit": 1})
    call("get", "/v1/receipts", 200, params={"actor": "app"})
    call("get", "/v1/claims", 200, params={"status": "verified"})
    first = {"source_id": "memo", "version": 1}
    ranged = {"start": 0, "end": 10}
    call("get", "/v1/sources/{source_id}/versions/{version}/spans", 200, path=first, params=ranged)
    call("get", "/v1/sources/{source_id}/versions/{version}/cells", 200, path=first)
    call("post", "/v1/spans/search", 200, json={"quote": "Revenue rose 2.2%"})
    other = {"source_id": "other"}
    call("post", "/v1/sources/{source_id}/access", 200, path=other, json={"groups": ["finance"]})
    policy = {"policy_version": "access-2", "rules": [{"id": "everyone", "effect": "allow"}]}
    call("post", "/v1/policies", 201, json=policy)
    call("get", "/v1/policies/{policy_version}", 200, path={"policy_version": "access-2"})
    route = {
        "task": "lookup",
        "corpus_tokens": 300,
        "operating_length_tokens": 32000,
        "authoritative_source": True,
        "entitlement": "allowed",
    }
    call("post", "/v1/route", 200, json=route)
    call("get", "/v1/receipts/{receipt_id}/context", 200, path=receipt_id)
    call("get", "/v1/receipts/{receipt_id}/access", 404, path=receipt_id)
    who = {"roles": ["analyst"], "units": [], "groups": [], "purpose": "qa", "destination": "app"}
    call("post", "/v1/retrieve", 200, json={"query": "costs 2019", "principal": who, "k": 3})
    outcome = {
        "decision": "answered",
        "actions": [{"action_id": "a1", "kind": "email", "target": "user-1"}],
        "reviewer": "rev-1",
    }
    call("post", "/v1/receipts/{receipt_id}/outcome", 201, path=receipt_id, json=outcome)
    call("post", "/v1/receipts/{receipt_id}/outcome", 200, path=receipt_id, json=outcome)
    model = {"name": "m", "version": "1"}
    call("get", "/v1/models/affected", 200, params=model)
    call("get", "/v1/tools/affected", 200, params={"name": "search", "version": "2"})
    call("get", "/v1/context-assemblies/affected", 200, params={"name": "a", "version": "1"})
    call("get", "/v1/policies/{policy_version}/affected", 200, path={"policy_version": "default"})
    call("get", "/v1/api-keys/{name}/affected", 200, path={"name": "flow"})
    retired = call("post", "/v1/models/retire", 201, json={**model, "reason": "unsafe"})
    assert retired["expired"]["items"][0]["actions"][0]["action_id"] == "a1"
    call("get", "/v1/expiries", 200, params={"cause": retired["expired"]["cause"]})
    call("post", "/v1/models/retire", 409, json={**model, "reason": "again"})
    tool = {"name": "search", "version": "2", "reason": "replaced"}
    call("post", "/v1/tools/retire", 201, json=tool)
    assembly = {"name": "assembler", "version": "3", "reason": "new budget split"}
    call("post", "/v1/context-assemblies/declare", 201, json=assembly)
    call("get", "/healthz", 200)
    call("get", "/readyz", 200)
    call("get", "/metrics", 200)
    called = {tuple(line.split()[:2]) for line in checked}
    every = {(method, path) for method, path, _ in _operations(document)}
    assert every - called == set(), "operations this flow does not check yet"


def test_a_body_declared_as_anything_but_json_is_415(client: TestClient, auth: Any) -> None:
    response = client.post(
        "/v1/locate",
        content=b"answer=x",
        headers={**auth("read"), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 415
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"].endswith("/unsupported-media-type")
    assert problem["errors"] == [
        {
            "field": "Content-Type",
            "rule": "media-type",
            "message": "the request body must be application/json, not "
            "application/x-www-form-urlencoded",
        }
    ]


def test_swagger_ui_and_redoc_load_only_assets_the_package_serves(client: TestClient) -> None:
    for page in ("/docs", "/redoc"):
        html = client.get(page).text
        assert not re.search(r"(src|href)=['\"]https?://", html), page
        assets = re.findall(r"(?:src|href)=['\"](/static/[^'\"]+)['\"]", html)
        assert assets, page
        for asset in assets:
            response = client.get(asset)
            assert response.status_code == 200, asset
            assert len(response.content) > 100, asset
    static = Path(__file__).parents[2] / "api" / "static"
    assert (static / "swagger-ui" / "LICENSE").is_file()
    assert (static / "redoc" / "LICENSE").is_file()
