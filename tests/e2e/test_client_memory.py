"""The Python clients' memory and usage calls against the app (in process, both backends):
``Client`` and ``AsyncClient`` record, correct, read, list and revoke memory, open a receipt
over it, and record usage with a commit and on its own."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from provledger import AsyncClient, Client, InvalidInput, NotFound
from tests.e2e.test_client_sdk import _AppTransport

TEXT = "Refunds are allowed within 30 days. Disputed charges are excluded."
FUTURE = "2999-01-01T00:00:00Z"


class _AsyncAppTransport(httpx.AsyncBaseTransport):
    """Hands each request of the async client to the app's test client (no socket)."""

    def __init__(self, client: TestClient) -> None:
        self.inner = _AppTransport(client)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        return self.inner.handle_request(request)


@pytest.fixture
def secret(runtime: Any) -> str:
    issued: str = runtime.api_keys.issue("sdk", ["admin"], "test:suite")
    return issued


@pytest.fixture
def ledger(client: TestClient, secret: str) -> Iterator[Client]:
    with Client("http://testserver", secret, transport=_AppTransport(client)) as sdk:
        yield sdk


def test_the_client_keeps_memory_and_expires_the_receipt_that_used_it(ledger: Client) -> None:
    spans = ledger.register_source("refunds", "Refunds", TEXT).spans
    kept = ledger.record_memory(
        purpose="dispute-review",
        scope={},
        source=[spans[1].span_id],
        text="Customer 7 disputes the charge.",
        expires_at=FUTURE,
    )
    retried = ledger.record_memory(
        purpose="dispute-review",
        scope={},
        source=[spans[1].span_id],
        text="Customer 7 disputes the charge.",
        expires_at=FUTURE,
        idempotency_key="remember-1",
    )
    again = ledger.record_memory(
        purpose="dispute-review",
        scope={},
        source=[spans[1].span_id],
        text="Customer 7 disputes the charge.",
        expires_at=FUTURE,
        idempotency_key="remember-1",
    )
    receipt = ledger.open_receipt(
        request="May the charge be reversed?",
        actor="adviser-3",
        purpose="dispute-review",
        route="long_context",
        model={"name": "m", "version": "1"},
        evidence=[spans[0].span_id],
        memory=[kept.memory_id],
    )
    claim = {"text": spans[0].text, "bindings": [{"span_id": spans[0].span_id}]}
    usage = {"input_tokens": 90, "cache_creation_input_tokens": 1500}
    ledger.commit_claims(receipt.receipt_id, [claim], usage=usage)
    read = ledger.record_usage(receipt.receipt_id, 90, cache_read_input_tokens=1500)

    corrected = ledger.correct_memory(kept.memory_id, "settled", text="The dispute was settled.")
    affected = list(ledger.memory_affected(kept.memory_id))
    revoked = ledger.revoke_memory(kept.memory_id, "no longer needed")

    assert kept.memory_id.startswith("mem_")
    assert kept.status == "active"
    assert again.memory_id == retried.memory_id != kept.memory_id
    assert read["cache_read_input_tokens"] == 1500
    assert read["prefix_sha256"].startswith("sha256:")
    assert corrected.version == 2
    assert corrected.model_extra is not None
    assert corrected.model_extra["receipts_expired"] == 1
    assert [(a.receipt_id, a.status) for a in affected] == [(receipt.receipt_id, "expired")]
    assert revoked.status == "revoked"
    assert ledger.get_memory(kept.memory_id).versions[1]["text"] == "The dispute was settled."
    listed = [item["memory_id"] for item in ledger.memory_items(status="active", page_size=1)]
    assert listed == [retried.memory_id]
    with pytest.raises(NotFound):
        ledger.get_memory("mem_none")
    with pytest.raises(InvalidInput):
        ledger.record_usage(receipt.receipt_id, -1)


def test_the_async_client_makes_the_same_calls(client: TestClient, secret: str) -> None:
    async def run() -> tuple[str, list[str], str]:
        transport = _AsyncAppTransport(client)
        async with AsyncClient("http://testserver", secret, transport=transport) as ledger:
            spans = (await ledger.register_source("refunds", "Refunds", TEXT)).spans
            kept = await ledger.record_memory(
                purpose="answer",
                scope={},
                source=[spans[0].span_id],
                text="Kept.",
                expires_at=FUTURE,
                memory_id="mem_async",
            )
            receipt = await ledger.open_receipt(
                request="q",
                actor="u",
                purpose="answer",
                route="long_context",
                model={"name": "m", "version": "1"},
                evidence=[spans[0].span_id],
                memory=[kept.memory_id],
            )
            claim = {"text": spans[0].text, "bindings": [{"span_id": spans[0].span_id}]}
            await ledger.commit_claims(receipt.receipt_id, [claim], usage={"input_tokens": 3})
            await ledger.record_usage(receipt.receipt_id, 4, cache_creation_input_tokens=9)
            await ledger.correct_memory(kept.memory_id, "fixed", text="Kept, corrected.")
            uses = [u.receipt_id async for u in ledger.memory_affected(kept.memory_id)]
            items = [i["memory_id"] async for i in ledger.memory_items(purpose="answer")]
            revoked = await ledger.revoke_memory(kept.memory_id, "done")
            got = await ledger.get_memory(kept.memory_id)
            assert uses == [receipt.receipt_id]
            assert got.status == revoked.status == "revoked"
            return kept.memory_id, items, receipt.receipt_id

    memory_id, items, _ = asyncio.run(run())

    assert items == [memory_id]
