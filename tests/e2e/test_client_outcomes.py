"""The Python clients' outcome, retirement and affected calls against the app (in process,
on both backends): ``Client`` and ``AsyncClient`` make the same calls, page the affected
lists, and raise the service's refusals as typed exceptions."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from provledger import (
    AsyncClient,
    Client,
    Conflict,
    Forbidden,
    InvalidInput,
    verify_bundle,
    verify_envelope,
)

TEXT = "Refunds are allowed within 30 days of the charge. Disputed charges are excluded."
ACTIONS = [
    {"action_id": "act-1", "kind": "refund", "target": "charge-881"},
    {"action_id": "act-2", "kind": "email", "target": "customer-42"},
]


def _forward(client: TestClient, request: httpx.Request, body: bytes) -> httpx.Response:
    answer = client.request(
        request.method, str(request.url), headers=dict(request.headers), content=body
    )
    return httpx.Response(
        answer.status_code, headers=list(answer.headers.multi_items()), content=answer.content
    )


class _AppTransport(httpx.BaseTransport):
    """Hands each request of the client's httpx client to the app's test client."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return _forward(self.client, request, request.read())


class _AsyncAppTransport(httpx.AsyncBaseTransport):
    """The same for the asyncio client, the test client called off the event loop."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        return await asyncio.to_thread(_forward, self.client, request, body)


@pytest.fixture
def secret(runtime: Any) -> str:
    issued: str = runtime.api_keys.issue("sdk", ["admin"], "test:suite")
    return issued


@pytest.fixture
def ledger(client: TestClient, secret: str) -> Iterator[Client]:
    with Client("http://testserver", secret, transport=_AppTransport(client)) as sdk:
        yield sdk


def _receipt(ledger: Client, source_id: str, **extra: Any) -> str:
    spans = ledger.register_source(source_id, source_id.upper(), TEXT).spans
    receipt = ledger.open_receipt(
        request="May the charge be reversed?",
        actor="user-1",
        purpose="support",
        route="long_context",
        model={"name": "m", "version": "1"},
        evidence=[spans[0].span_id],
        **extra,
    )
    claim = {"text": spans[0].text, "bindings": [{"span_id": spans[0].span_id}]}
    ledger.commit_claims(receipt.receipt_id, [claim])
    return receipt.receipt_id


def test_the_client_records_outcomes_and_follows_each_change_to_the_actions_it_touches(
    ledger: Client,
) -> None:
    receipt_id = _receipt(
        ledger, "refunds", tools=["search@2"], context_assembly={"name": "rag", "version": "1"}
    )

    first = ledger.record_outcome(receipt_id, "refund approved", actions=ACTIONS, reviewer="r-1")
    amended = ledger.record_outcome(receipt_id, "refund reversed", actions=ACTIONS[:1])

    assert first.outcome is not None
    assert first.outcome["reviewer"] == "r-1"
    assert [o["decision"] for o in amended.outcomes] == ["refund approved", "refund reversed"]
    assert [a["action_id"] for a in amended.actions] == ["act-1", "act-2"]
    listed = {
        "model": list(ledger.affected_by_model("m", "1", page_size=1)),
        "tool": list(ledger.affected_by_tool("search", "2")),
        "assembly": list(ledger.affected_by_context_assembly("rag", "1")),
        "policy": list(ledger.affected_by_policy("default")),
        "key": list(ledger.affected_by_api_key("sdk")),
    }
    for name, items in listed.items():
        assert [r.receipt_id for r in items] == [receipt_id], name
        assert [a["action_id"] for a in items[0].actions] == ["act-1", "act-2"], name
    retired = ledger.retire_model("m", "1", "unsafe")
    assert (retired.kind, retired.status, retired.receipts_expired) == ("model", "retired", 1)
    expired = list(ledger.expired_by(retired.expired["cause"]))
    assert [(r.receipt_id, r.reason, r.status) for r in expired] == [
        (receipt_id, "model_retired", "expired")
    ]
    assert ledger.retire_tool("search", "2", "bug").receipts_expired == 1
    declared = ledger.declare_context_assembly("rag", "2", "new order")
    assert (declared.status, declared.receipts_expired) == ("in_force", 1)


def test_the_clients_refusals_are_typed(ledger: Client, client: TestClient, runtime: Any) -> None:
    receipt_id = _receipt(ledger, "refunds")
    ledger.retire_model("gpt", "1", "unsafe")
    reader = runtime.api_keys.issue("reader", ["read", "claims:write"], "test:suite")

    with pytest.raises(InvalidInput) as bad:
        ledger.record_outcome(receipt_id, "x", actions=[ACTIONS[0], ACTIONS[0]])
    with pytest.raises(Conflict):
        ledger.retire_model("gpt", "1", "again")
    with (
        Client("http://testserver", reader, transport=_AppTransport(client)) as other,
        pytest.raises(Forbidden),
    ):
        other.retire_tool("search", "2", "bug")

    assert bad.value.errors[0]["field"] == "actions[1].action_id"


def test_the_async_client_makes_the_same_calls(client: TestClient, secret: str) -> None:
    with Client("http://testserver", secret, transport=_AppTransport(client)) as sync:
        receipt_id = _receipt(sync, "refunds")

    async def run() -> tuple[list[str], list[str], int, list[str]]:
        async with AsyncClient(
            "http://testserver", secret, transport=_AsyncAppTransport(client)
        ) as ledger:
            outcome = await ledger.record_outcome(receipt_id, "approved", actions=ACTIONS)
            before = [r.receipt_id async for r in ledger.affected_by_model("m", "1")]
            keys = [r.receipt_id async for r in ledger.affected_by_api_key("sdk")]
            policy = [r.receipt_id async for r in ledger.affected_by_policy("default")]
            tool = [r.receipt_id async for r in ledger.affected_by_tool("search", "1")]
            assembly = [r.receipt_id async for r in ledger.affected_by_context_assembly("a", "1")]
            assert (tool, assembly, keys, policy) == ([], [], [receipt_id], [receipt_id])
            retired = await ledger.retire_model("m", "1", "unsafe")
            expired = [r.reason async for r in ledger.expired_by(retired.expired["cause"])]
            await ledger.retire_tool("search", "1", "bug")
            await ledger.declare_context_assembly("a", "2", "new order")
            return (
                [a["action_id"] for a in outcome.actions],
                before,
                retired.receipts_expired,
                [e or "" for e in expired],
            )

    actions, before, count, reasons = asyncio.run(run())

    assert actions == ["act-1", "act-2"]
    assert before == [receipt_id]
    assert count == 1
    assert reasons == ["model_retired"]


def test_a_claim_of_a_receipt_with_an_outcome_still_verifies_offline(ledger: Client) -> None:
    receipt_id = _receipt(ledger, "refunds")
    claim_id = ledger.get_receipt(receipt_id).claims[0].claim_id
    ledger.record_outcome(receipt_id, "approved", actions=ACTIONS, reviewer="r-1")
    ledger.record_outcome(receipt_id, "reversed", actions=ACTIONS[:1])
    keys = ledger.public_keys()

    bundle = verify_bundle(ledger.bundle(claim_id), keys)
    envelope = verify_envelope(ledger.envelope(receipt_id), keys)

    assert bundle.ok, bundle.checks
    assert envelope.valid, envelope.reasons
