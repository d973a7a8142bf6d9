"""``record_transformation`` of ``Client`` and ``AsyncClient`` against the app (in process, on
both backends): a transformation that keeps its boundary comes back recorded, one that drops
a must-keep item raises ``LossBoundary`` naming it, and a claim bound to the transformation
commits with its inputs as bindings."""

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
    InvalidInput,
    LossBoundary,
    Transformation,
    verify_bundle,
    verify_envelope,
)

POLICY = (
    "Advisers may recommend reversing a disputed service charge of up to $250. "
    "Customers under an active dispute are excluded."
)
KEPT = POLICY
DROPPED = "Advisers may recommend reversing a disputed service charge of up to $250."


class _AppTransport(httpx.BaseTransport):
    """Hands each request of the client's httpx client to the app's test client."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        answer = self.client.request(
            request.method, str(request.url), headers=dict(request.headers), content=request.read()
        )
        return httpx.Response(
            answer.status_code, headers=list(answer.headers.multi_items()), content=answer.content
        )


class _AsyncAppTransport(httpx.AsyncBaseTransport):
    """The same for the async client: each request is sent from a worker thread."""

    def __init__(self, client: TestClient) -> None:
        self.sync = _AppTransport(client)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        content = await request.aread()
        copy = httpx.Request(request.method, request.url, headers=request.headers, content=content)
        answer = await asyncio.to_thread(self.sync.handle_request, copy)
        return httpx.Response(
            answer.status_code, headers=list(answer.headers.multi_items()), content=answer.content
        )


@pytest.fixture
def secret(runtime: Any) -> str:
    issued: str = runtime.api_keys.issue("sdk", ["admin"], "test:suite")
    return issued


@pytest.fixture
def ledger(client: TestClient, secret: str) -> Iterator[Client]:
    with Client("http://testserver", secret, transport=_AppTransport(client)) as sdk:
        yield sdk


def _receipt(ledger: Client) -> tuple[str, list[str]]:
    spans = [span.span_id for span in ledger.register_source("waiver", "Waiver", POLICY).spans]
    receipt = ledger.open_receipt(
        request="May the charge be reversed?",
        actor="adviser-7",
        purpose="billing-review",
        route="hybrid_retrieval",
        model={"name": "m", "version": "1"},
        evidence=spans,
    )
    return receipt.receipt_id, spans


def test_record_transformation_returns_the_recorded_transformation(ledger: Client) -> None:
    receipt_id, spans = _receipt(ledger)

    recorded = ledger.record_transformation(
        receipt_id,
        method="compression",
        inputs=spans,
        output=KEPT,
        must_keep=["exceptions", "numbers"],
        may_remove=["repetition"],
    )

    assert isinstance(recorded, Transformation)
    assert recorded.transformation_id.startswith("tfm_")
    assert [item["span_id"] for item in recorded.inputs] == spans
    assert recorded.check["items"]["exceptions"]["kept"] == 1
    receipt = ledger.get_receipt(receipt_id)
    assert [t.transformation_id for t in receipt.transformations] == [recorded.transformation_id]
    claim = {
        "text": "Customers under an active dispute are excluded.",
        "bindings": [{"transformation_id": recorded.transformation_id}],
    }
    committed = ledger.commit_claims(receipt_id, [claim]).committed[0]
    assert committed.status == "verified"
    assert [b["span_id"] for b in committed.bindings] == spans
    keys = ledger.public_keys()
    bundle = ledger.bundle(committed.claim_id)  # replays the receipt's events, this one's too
    assert verify_bundle(bundle, keys).ok, verify_bundle(bundle, keys).reason
    assert verify_envelope(ledger.envelope(receipt_id), keys).valid


def test_a_dropped_must_keep_item_raises_loss_boundary_naming_it(ledger: Client) -> None:
    receipt_id, spans = _receipt(ledger)

    with pytest.raises(LossBoundary) as refused:
        ledger.record_transformation(
            receipt_id, method="summary", inputs=spans, output=DROPPED, must_keep=["exceptions"]
        )

    assert isinstance(refused.value, InvalidInput)
    assert refused.value.status == 422
    assert refused.value.slug == "loss-boundary"
    assert refused.value.dropped == [
        {
            "must_keep": "exceptions",
            "cue": "exception",
            "item": "Customers under an active dispute are excluded",
            "span_id": spans[1],
            "input": 1,
        }
    ]
    assert (refused.value.field, refused.value.rule) == ("output", "exceptions")
    assert ledger.get_receipt(receipt_id).transformations == []


def test_the_async_client_records_and_refuses_as_the_blocking_one(
    client: TestClient, ledger: Client, secret: str
) -> None:
    receipt_id, spans = _receipt(ledger)

    async def run() -> tuple[Transformation, LossBoundary]:
        transport = _AsyncAppTransport(client)
        async with AsyncClient("http://testserver", secret, transport=transport) as sdk:
            recorded = await sdk.record_transformation(
                receipt_id, method="compression", inputs=spans, output=KEPT, must_keep=["numbers"]
            )
            try:
                await sdk.record_transformation(
                    receipt_id,
                    method="summary",
                    inputs=spans,
                    output=DROPPED,
                    must_keep=["exceptions"],
                )
            except LossBoundary as refused:
                return recorded, refused
            raise AssertionError("the summary that drops the exclusion was recorded")

    recorded, refused = asyncio.run(run())

    assert recorded.must_keep == ["numbers"]
    assert refused.dropped[0]["span_id"] == spans[1]
