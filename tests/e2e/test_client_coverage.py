"""Every operation of the OpenAPI document is a method of both clients, and each method sends
that operation: the table below maps each operation to the method and an example call; an
operation the table does not map, or a method either client lacks, fails."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from api.main import create_app
from api.settings import Settings
from provledger import AsyncClient, Client

METHODS = {"get", "post", "put", "patch", "delete"}
ENVELOPE = {"payload": "e30=", "payloadType": "application/json", "signatures": []}
PRINCIPAL = {"roles": [], "units": [], "groups": [], "purpose": "p", "destination": "d"}
ROUTING = {
    "task": "lookup",
    "corpus_tokens": 10,
    "operating_length_tokens": 100,
    "authoritative_source": True,
    "entitlement": "allowed",
}
MODEL = {"name": "m", "version": "1"}

CALLS: dict[str, tuple[str, tuple[Any, ...], dict[str, Any]]] = {
    "GET /healthz": ("health", (), {}),
    "GET /readyz": ("readiness", (), {}),
    "GET /metrics": ("metrics", (), {}),
    "GET /v1/keys": ("public_keys", (), {}),
    "GET /v1/events": ("events", (), {"after": 3}),
    "GET /v1/sources": ("sources", (), {"status": "active", "authority": "derived"}),
    "POST /v1/sources": ("register_source", ("memo-1", "Memo", "Text."), {}),
    "POST /v1/sources/{source_id}/versions": ("add_version", ("memo-1", "Text 2."), {}),
    "POST /v1/sources/{source_id}/withdraw": ("withdraw_source", ("memo-1", "retracted"), {}),
    "GET /v1/sources/{source_id}": ("get_source", ("memo-1",), {"valid_at": "2024-01-01"}),
    "GET /v1/sources/{source_id}/versions/{version}": ("get_version", ("memo-1", 1), {}),
    "GET /v1/spans/{span_id}": ("get_span", ("sp_1",), {}),
    "GET /v1/spans/{span_id}/context": ("span_context", ("sp_1",), {"window": 1}),
    "GET /v1/sources/{source_id}/versions/{version}/spans": ("spans", ("memo-1", 1), {}),
    "GET /v1/sources/{source_id}/versions/{version}/cells": ("cells", ("memo-1", 1, "t1"), {}),
    "POST /v1/spans/search": ("search_spans", ("rose 2%",), {}),
    "POST /v1/receipts": (
        "open_receipt",
        (),
        {
            "request": "q",
            "actor": "u",
            "purpose": "p",
            "model": MODEL,
            "retrieval_id": "rtv_1",
            "principal": PRINCIPAL,
            "routing": ROUTING,
            "candidates": ["sp_2"],
        },
    ),
    "GET /v1/receipts": ("receipts", (), {"actor": "u", "opened_after": "2024-01-01T00:00:00Z"}),
    "POST /v1/receipts/{receipt_id}/claims": ("commit_claims", ("rcpt_1", [{"text": "x"}]), {}),
    "POST /v1/receipts/{receipt_id}/transformations": (
        "record_transformation",
        ("rcpt_1",),
        {"method": "summary", "inputs": ["sp_1"], "output": "x", "must_keep": ["numbers"]},
    ),
    "GET /v1/receipts/{receipt_id}": ("get_receipt", ("rcpt_1",), {}),
    "GET /v1/receipts/{receipt_id}/envelope": ("envelope", ("rcpt_1",), {}),
    "GET /v1/receipts/{receipt_id}/context": ("context_packet", ("rcpt_1",), {}),
    "POST /v1/retrieve": ("retrieve", ("revenue",), {"principal": PRINCIPAL}),
    "GET /v1/claims": ("claims", (), {"receipt_id": "rcpt_1", "status": "verified"}),
    "GET /v1/claims/{claim_id}": ("get_claim", ("clm_1",), {}),
    "POST /v1/envelopes/verify": ("check_envelope", (ENVELOPE,), {}),
    "GET /v1/sources/{source_id}/versions/{version}/affected": ("affected", ("memo-1", 1), {}),
    "POST /v1/policies/{policy_version}/retire": ("retire_policy", ("access-2", "old"), {}),
    "GET /v1/review": ("review", (), {}),
    "POST /v1/sources/{source_id}/access": ("change_access", ("memo-1",), {"groups": ["g"]}),
    "POST /v1/policies": ("publish_policy", ("access-2", [{"id": "all", "effect": "allow"}]), {}),
    "GET /v1/policies/{policy_version}": ("get_policy", ("access-2",), {}),
    "GET /v1/receipts/{receipt_id}/access": ("receipt_access", ("rcpt_1",), {}),
    "POST /v1/route": ("decide_route", (), ROUTING),
    "POST /v1/receipts/{receipt_id}/claims/{claim_id}/repair": (
        "repair_claim",
        ("rcpt_1", "clm_1"),
        {},
    ),
    "POST /v1/locate": ("locate", ("x [1].", {"1": {"span_ids": ["sp_1"]}}), {}),
    "POST /v1/receipts/{receipt_id}/outcome": (
        "record_outcome",
        ("rcpt_1", "approved"),
        {"actions": [{"action_id": "a1", "kind": "refund", "target": "acct-1"}]},
    ),
    "POST /v1/models/retire": ("retire_model", ("m", "1", "withdrawn"), {}),
    "POST /v1/tools/retire": ("retire_tool", ("search", "2", "bug"), {}),
    "POST /v1/context-assemblies/declare": ("declare_context_assembly", ("ctx", "3", "new"), {}),
    "GET /v1/models/affected": ("affected_by_model", ("m", "1"), {}),
    "GET /v1/tools/affected": ("affected_by_tool", ("search", "2"), {}),
    "GET /v1/context-assemblies/affected": ("affected_by_context_assembly", ("ctx", "3"), {}),
    "GET /v1/policies/{policy_version}/affected": ("affected_by_policy", ("access-2",), {}),
    "GET /v1/api-keys/{name}/affected": ("affected_by_api_key", ("app",), {}),
    "GET /v1/expiries": ("expired_by", ("n12",), {}),
    "POST /v1/receipts/{receipt_id}/usage": (
        "record_usage",
        ("rcpt_1", 120),
        {"cache_read_input_tokens": 2048},
    ),
    "POST /v1/memory": (
        "record_memory",
        (),
        {
            "purpose": "p",
            "scope": {},
            "source": ["sp_1"],
            "text": "Kept.",
            "expires_at": "2999-01-01T00:00:00Z",
        },
    ),
    "POST /v1/memory/{memory_id}/versions": (
        "correct_memory",
        ("mem_1", "settled"),
        {"text": "Kept, corrected."},
    ),
    "POST /v1/memory/{memory_id}/revoke": ("revoke_memory", ("mem_1", "withdrawn"), {}),
    "GET /v1/memory/{memory_id}": ("get_memory", ("mem_1",), {}),
    "GET /v1/memory": ("memory_items", (), {"purpose": "p", "status": "active"}),
    "GET /v1/memory/{memory_id}/affected": ("memory_affected", ("mem_1",), {}),
    "GET /v1/audit/checkpoint": ("checkpoint", (), {}),
    "GET /v1/audit/proofs/inclusion": ("inclusion_proof", (5,), {"index": 1}),
    "GET /v1/audit/proofs/consistency": ("consistency_proof", (2, 5), {}),
    "GET /v1/claims/{claim_id}/bundle": ("bundle", ("clm_1",), {"since_size": 2}),
    "GET /v1/receipts/{receipt_id}/provenance": ("receipt_provenance", ("rcpt_1",), {}),
    "GET /v1/sources/{source_id}/provenance": (
        "source_provenance",
        ("memo-1",),
        {"format": "jsonl"},
    ),
}
"""Each operation (``METHOD path`` as the OpenAPI document writes it) -> the client method
that sends it and an example call."""

ANSWER = {  # every member a typed answer requires, so any method can read it
    "items": [],
    "next": None,
    "keys": [],
    "status": "ok",
    "source_id": "memo-1",
    "version": 1,
    "version_hash": "sha256:00",
    "span_count": 0,
    "position": 1,
    "created": True,
    "span_id": "sp_1",
    "claim_id": "clm_1",
    "receipt_id": "rcpt_1",
    "retrieval_id": "rtv_1",
    "mode": "atomic",
    "transformation_id": "tfm_1",
    "method": "summary",
    "memory_id": "mem_1",
}


@pytest.fixture(scope="module")
def operations(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    document = create_app(Settings(data_dir=tmp_path_factory.mktemp("openapi"))).openapi()
    return {
        f"{method.upper()} {path}": operation
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    }


def _matches(operation: str, request: httpx.Request) -> bool:
    method, template = operation.split(" ", 1)
    pattern = re.sub(r"\{[^/]+\}", "[^/]+", template)
    return request.method == method and re.fullmatch(pattern, request.url.path) is not None


CHANGE = {  # a retirement's or declaration's answer (its version is a string)
    "kind": "model",
    "name": "m",
    "version": "1",
    "status": "retired",
    "position": 1,
    "receipts_expired": 0,
}


def _answer(request: httpx.Request) -> httpx.Response:
    path = request.url.path
    if path in ("/metrics", "/v1/audit/checkpoint"):
        return httpx.Response(200, text="text")
    if path.endswith(("/retire", "/declare")) and not path.startswith("/v1/policies/"):
        return httpx.Response(200, json=CHANGE)
    if path.endswith("/outcome"):
        return httpx.Response(200, json={"receipt_id": "rcpt_1", "status": {"status": "open"}})
    return httpx.Response(200, json=ANSWER)


def test_every_operation_of_the_document_is_mapped_to_a_method(
    operations: dict[str, dict[str, Any]],
) -> None:
    unmapped = sorted(set(operations) - set(CALLS))
    stale = sorted(set(CALLS) - set(operations))

    assert unmapped == [], f"operations without a client method: {unmapped}"
    assert stale == [], f"mapped operations the service no longer has: {stale}"


def _recording(sent: list[httpx.Request]) -> httpx.MockTransport:
    def service(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return _answer(request)

    return httpx.MockTransport(service)


@pytest.mark.parametrize("operation", sorted(CALLS))
def test_the_blocking_client_sends_each_operation(operation: str) -> None:
    name, args, kwargs = CALLS[operation]
    sent: list[httpx.Request] = []

    with Client("http://ledger.test", "k", transport=_recording(sent)) as ledger:
        method = getattr(ledger, name)
        result = method(*args, **kwargs)
        if isinstance(result, Iterator):
            list(result)

    assert [_matches(operation, request) for request in sent] == [True], [
        f"{r.method} {r.url.path}" for r in sent
    ]
    if sent[0].method != "GET":
        json.loads(sent[0].content or b"null")  # a body, if any, is JSON


@pytest.mark.parametrize("operation", sorted(CALLS))
def test_the_async_client_sends_each_operation_awaited(operation: str) -> None:
    name, args, kwargs = CALLS[operation]
    sent: list[httpx.Request] = []

    async def run() -> None:
        async with AsyncClient("http://ledger.test", "k", transport=_recording(sent)) as ledger:
            result = getattr(ledger, name)(*args, **kwargs)
            if isinstance(result, AsyncIterator):
                [item async for item in result]
            else:
                assert inspect.isawaitable(result), f"{name} is not awaited"
                await result

    asyncio.run(run())

    assert [_matches(operation, request) for request in sent] == [True]


def test_both_clients_have_the_same_methods_with_the_same_signatures() -> None:
    def public(kind: type) -> dict[str, inspect.Signature]:
        return {
            name: inspect.signature(member)
            for name, member in vars(kind).items()
            if callable(member) and not name.startswith("_")
        }

    blocking, awaited = public(Client), public(AsyncClient)
    lifecycle = {"close", "aclose", "send", "iterate"}

    assert set(blocking) - lifecycle == set(awaited) - lifecycle
    for name in set(blocking) - lifecycle:
        assert blocking[name].parameters == awaited[name].parameters, name
