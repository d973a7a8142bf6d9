"""``/metrics``: Prometheus exposition behind the ``metrics`` scope, or on its own bind."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from api.main import create_app
from api.metrics import parse_metrics_addr
from api.settings import Settings
from ledger.errors import ConfigurationError
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import commit_verbatim, open_receipt, register

TEXT = "The plant produced 40 tonnes in 2023. It closed in 2024."


@pytest.fixture
def quiet(settings: Settings, runtime: LedgerRuntime) -> Iterator[TestClient]:
    """The API without background polling."""
    configured = settings.model_copy(update={"background": False})
    with TestClient(create_app(configured, runtime), raise_server_exceptions=False) as client:
        yield client


def _samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _value(text: str, name: str, **labels: str) -> float:
    return _samples(text).get((name, frozenset(labels.items())), 0.0)


def test_metrics_without_an_api_key_is_401(quiet: TestClient) -> None:
    response = quiet.get("/metrics")

    assert response.status_code == 401
    assert response.json()["type"].endswith("/unauthenticated")


def test_metrics_with_a_key_lacking_the_metrics_scope_is_403(quiet: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    response = quiet.get("/metrics", headers=auth("read", "audit:read"))

    assert response.status_code == 403
    assert "lacks the 'metrics' scope" in response.json()["detail"]


def test_metrics_labels_requests_with_the_route_template_never_the_raw_path(
    quiet: TestClient, auth
) -> None:  # type: ignore[no-untyped-def]
    scraper = auth("metrics", name="scraper")
    quiet.get("/v1/sources/no-such-source-xyz", headers=auth("read"))
    quiet.get("/v1/definitely/not/a/route")

    text = quiet.get("/metrics", headers=scraper).text

    labels = {"method": "GET", "route": "/v1/sources/{source_id}", "status": "404"}
    assert _value(text, "provledger_http_request_duration_seconds_count", **labels) >= 1
    assert _value(text, "provledger_http_requests_total", **labels) >= 1
    assert (
        _value(
            text, "provledger_http_requests_total", method="GET", route="unmatched", status="404"
        )
        >= 1
    )
    assert "no-such-source-xyz" not in text
    assert "/v1/definitely/not/a/route" not in text


def test_a_commit_moves_the_commit_outcome_and_gate_reason_counters(
    quiet: TestClient, auth
) -> None:  # type: ignore[no-untyped-def]
    scraper = auth("metrics", name="scraper")
    writer = auth("ingest", "claims:write", name="writer")
    spans = register(quiet, writer, "plant", TEXT)
    receipt_id = open_receipt(quiet, writer, [span["span_id"] for span in spans])
    before = quiet.get("/metrics", headers=scraper).text

    commit_verbatim(quiet, writer, receipt_id, spans[0])
    rejected = quiet.post(
        f"/v1/receipts/{receipt_id}/claims",
        json={
            "claims": [
                {
                    "text": "The plant produced 90 tonnes in 2023.",
                    "bindings": [{"span_id": spans[0]["span_id"]}],
                }
            ]
        },
        headers=writer,
    )
    after = quiet.get("/metrics", headers=scraper).text

    assert rejected.status_code in (200, 201, 422), rejected.text
    [claim] = rejected.json()["rejected"] or rejected.json()["quarantined"]
    failed = next(check for check in claim["checks"] if check["outcome"] == "fail")
    delta = {
        outcome: _value(after, "provledger_commits_total", outcome=outcome)
        - _value(before, "provledger_commits_total", outcome=outcome)
        for outcome in ("accepted", "rejected")
    }
    assert delta == {"accepted": 1, "rejected": 1}
    reason = {"check": failed["check"], "outcome": "fail", "reason": failed["reason"]}
    assert (
        _value(after, "provledger_gate_checks_total", **reason)
        - _value(before, "provledger_gate_checks_total", **reason)
        == 1
    )
    assert _value(after, "provledger_event_store_append_seconds_count") > _value(
        before, "provledger_event_store_append_seconds_count"
    )
    assert _value(after, "provledger_projection_lag_events", projection="receipts") >= 0
    assert _value(after, "provledger_projection_lag_seconds", projection="receipts") >= 0
    assert _value(after, "provledger_log_position") > 0


def test_the_separate_metrics_bind_answers_without_a_key(
    settings: Settings, runtime: LedgerRuntime
) -> None:
    configured = settings.model_copy(update={"background": False, "metrics_addr": "127.0.0.1:0"})
    with TestClient(create_app(configured, runtime)) as client:
        server = client.app.state.metrics_server  # type: ignore[attr-defined]
        response = httpx.get(f"http://127.0.0.1:{server.port}/metrics")

    assert response.status_code == 200
    assert "provledger_log_position" in response.text


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("9100", ("127.0.0.1", 9100)),
        (":9100", ("127.0.0.1", 9100)),
        ("0.0.0.0:9100", ("0.0.0.0", 9100)),
        ("[::1]:9100", ("::1", 9100)),
    ],
)
def test_the_metrics_address_defaults_to_the_loopback_host(
    value: str, expected: tuple[str, int]
) -> None:
    assert parse_metrics_addr(value) == expected


def test_a_metrics_address_without_a_port_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="expected \\[HOST:\\]PORT"):
        parse_metrics_addr("localhost")


def test_the_api_key_cache_counts_its_hits_and_misses(quiet: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    scraper = auth("metrics", name="scraper")
    reader = auth("read", name="reader")
    before = quiet.get("/metrics", headers=scraper).text
    for _ in range(3):
        quiet.get("/v1/sources/no-such-source", headers=reader)
    after = quiet.get("/metrics", headers=scraper).text

    def moved(result: str) -> float:
        name = "provledger_api_key_cache_total"
        return _value(after, name, result=result) - _value(before, name, result=result)

    assert moved("miss") >= 1  # the reader's first request rebuilds its key
    assert moved("hit") >= 2  # the next two are answered from the cache
