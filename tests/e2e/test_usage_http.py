"""Prompt-cache usage: recorded with a commit or on its own, signed, tied to the receipt's
stable-prefix hash, and counted per prefix on ``/metrics`` with a bounded label set."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from api import metrics
from api.main import create_app
from api.settings import Settings
from ledger.receipts.receipt import Receipt
from ledger.runtime import LedgerRuntime
from provledger import verify_bundle
from tests.e2e.flows import open_receipt, register

TEXT = "The plant produced 40 tonnes in 2023. It closed in 2024."
USAGE = {"input_tokens": 120, "cache_creation_input_tokens": 2048, "cache_read_input_tokens": 0}


@pytest.fixture
def quiet(settings: Settings, runtime: LedgerRuntime) -> Iterator[TestClient]:
    """The API without background polling: a scrape must bring the read model up itself."""
    configured = settings.model_copy(update={"background": False})
    with TestClient(create_app(configured, runtime), raise_server_exceptions=False) as app:
        yield app


def _samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _scrape(client: TestClient, headers: dict[str, str]) -> dict[Any, float]:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    return _samples(response.text)


def _prefix_tokens(samples: dict[Any, float], prefix: str, kind: str) -> float:
    key = frozenset({("prefix", prefix), ("kind", kind)})
    return samples.get(("provledger_prompt_cache_prefix_tokens_total", key), 0.0)


def _receipt(client: TestClient, headers: dict[str, str], source_id: str) -> tuple[str, str]:
    """A receipt over its own source; its id and the packet's stable-prefix hash."""
    spans = register(client, headers, source_id, TEXT)
    receipt_id = open_receipt(client, headers, [spans[0]["span_id"]])
    packet = client.get(f"/v1/receipts/{receipt_id}/context", headers=headers).json()
    return receipt_id, str(packet["prefix_sha256"])


def _usage_events(runtime: LedgerRuntime) -> list[Any]:
    found = runtime.ledger.recorder.select_notifications(
        start=0, limit=100, topics=[Receipt.UsageRecorded.TOPIC]
    )
    return [runtime.ledger.mapper.to_domain_event(n) for n in found]


def test_a_commit_carrying_usage_records_it_signed_against_the_stable_prefix(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id, prefix = _receipt(client, headers, "plant")
    span = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()["pool"][0]
    claim = {
        "text": "The plant produced 40 tonnes in 2023.",
        "bindings": [{"span_id": span["span_id"]}],
    }
    body = {"claims": [claim], "usage": USAGE}

    committed = client.post(f"/v1/receipts/{receipt_id}/claims", json=body, headers=headers)

    assert committed.status_code == 201, committed.text
    (event,) = _usage_events(runtime)
    assert event.usage == USAGE
    assert event.prefix_sha256 == prefix
    document = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()
    assert document["packet"]["prefix_sha256"] == prefix
    assert [{k: v for k, v in u.items() if k != "at"} for u in document["usage"]] == [
        {**USAGE, "prefix_sha256": prefix}
    ]


def test_usage_on_its_own_is_recorded_once_per_idempotency_key(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id, prefix = _receipt(client, headers, "plant")
    keyed = {**headers, "Idempotency-Key": "usage-1"}
    read = {"input_tokens": 80, "cache_read_input_tokens": 2048}

    first = client.post(f"/v1/receipts/{receipt_id}/usage", json=read, headers=keyed)
    again = client.post(f"/v1/receipts/{receipt_id}/usage", json=read, headers=keyed)
    other = client.post(f"/v1/receipts/{receipt_id}/usage", json={"input_tokens": 1}, headers=keyed)

    assert first.status_code == 201, first.text
    assert first.json() == {
        "receipt_id": receipt_id,
        "input_tokens": 80,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 2048,
        "prefix_sha256": prefix,
        "at": first.json()["at"],
    }
    assert again.json() == first.json()
    assert again.headers["Idempotency-Replayed"] == "true"
    assert other.status_code == 422
    assert other.json()["errors"][0]["rule"] == "same-request"
    assert len(_usage_events(runtime)) == 1


def test_metrics_count_read_and_write_tokens_per_stable_prefix(
    quiet: TestClient, auth: Any
) -> None:
    client = quiet
    headers = auth("ingest", "read", "claims:write", name="app")
    scraper = auth("metrics", name="scraper")
    first, prefix = _receipt(client, headers, "plant")
    pool = client.get(f"/v1/receipts/{first}", headers=headers).json()["pool"]
    second = open_receipt(client, headers, [pool[0]["span_id"]], request="another question")
    label = prefix.removeprefix("sha256:")[:16]
    write = {"input_tokens": 100, "cache_creation_input_tokens": 3000}
    read = {"input_tokens": 40, "cache_read_input_tokens": 3000}
    for receipt_id, usage in ((first, write), (second, read), (second, read)):
        response = client.post(f"/v1/receipts/{receipt_id}/usage", json=usage, headers=headers)
        assert response.status_code == 201, response.text

    samples = _scrape(client, scraper)

    # Two receipts over the same evidence share one stable prefix, whatever their query.
    assert _prefix_tokens(samples, label, "write") == 3000
    assert _prefix_tokens(samples, label, "read") == 6000
    assert _prefix_tokens(samples, label, "input") == 180
    calls = frozenset({("prefix", label)})
    assert samples[("provledger_prompt_cache_calls_total", calls)] == 3
    overall = frozenset({("kind", "read")})
    assert samples[("provledger_prompt_cache_tokens_total", overall)] == 6000


def test_prefixes_past_the_label_bound_are_summed_under_other(
    quiet: TestClient, auth: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = quiet
    monkeypatch.setattr(metrics, "PREFIX_SERIES", 2)
    headers = auth("ingest", "read", "claims:write", name="app")
    scraper = auth("metrics", name="scraper")
    written = {}
    for n, tokens in enumerate((5000, 3000, 1000, 500)):
        receipt_id, prefix = _receipt(client, headers, f"plant-{n}")
        usage = {"input_tokens": 0, "cache_creation_input_tokens": tokens}
        client.post(f"/v1/receipts/{receipt_id}/usage", json=usage, headers=headers)
        written[prefix.removeprefix("sha256:")[:16]] = tokens

    samples = _scrape(client, scraper)

    labels = {
        dict(key)["prefix"]
        for name, key in samples
        if name == "provledger_prompt_cache_prefix_tokens_total"
    }
    top = sorted(written, key=lambda label: -written[label])[:2]
    assert labels == {*top, "other"}
    assert _prefix_tokens(samples, "other", "write") == 1500
    assert sum(_prefix_tokens(samples, label, "write") for label in labels) == 9500


def test_a_claims_bundle_verifies_offline_when_its_receipt_recorded_usage(
    client: TestClient, auth: Any
) -> None:
    headers = auth("ingest", "read", "claims:write", "audit:read", name="app")
    receipt_id, _ = _receipt(client, headers, "plant")
    span = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()["pool"][0]
    claim = {
        "text": "The plant produced 40 tonnes in 2023.",
        "bindings": [{"span_id": span["span_id"]}],
    }
    body = {"claims": [claim], "usage": USAGE}
    committed = client.post(f"/v1/receipts/{receipt_id}/claims", json=body, headers=headers)
    client.post(f"/v1/receipts/{receipt_id}/usage", json=USAGE, headers=headers)
    claim_id = committed.json()["committed"][0]["claim_id"]

    bundle = client.get(f"/v1/claims/{claim_id}/bundle", headers=headers)
    keys = client.get("/v1/keys").json()

    assert bundle.status_code == 200, bundle.text
    verdict = verify_bundle(bundle.json(), keys)
    assert verdict.ok, verdict
