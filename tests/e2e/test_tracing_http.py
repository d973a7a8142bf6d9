"""Tracing: a span per request, gate judgement, append and projection batch, each with the
request id; nothing recorded while tracing is off."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from api.main import create_app
from api.settings import Settings
from api.tracing import exporter_name, install_provider, provider_from_environment
from ledger import tracing
from ledger.errors import ConfigurationError
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import open_receipt, register

TEXT = "Revenue rose 12% to $4.2 million in fiscal 2023. Costs fell slightly."


@pytest.fixture
def exported() -> Iterator[InMemorySpanExporter]:
    """Tracing installed with an in-memory exporter; uninstalled afterwards."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    installed = install_provider(provider)
    try:
        yield exporter
    finally:
        installed.close()


@pytest.fixture
def app_client(settings: Settings, runtime: LedgerRuntime) -> Iterator[TestClient]:
    app = create_app(settings.model_copy(update={"background": False}), runtime)
    with TestClient(app) as client:
        yield client


def _commit(client: TestClient, headers: dict[str, str], request_id: str) -> None:
    spans = register(client, headers, "traced", TEXT)
    receipt_id = open_receipt(client, headers, [s["span_id"] for s in spans])
    body = {
        "claims": [
            {"text": spans[0]["text"], "bindings": [{"span_id": spans[0]["span_id"]}]},
            {"text": spans[1]["text"], "bindings": [{"span_id": spans[1]["span_id"]}]},
        ]
    }
    response = client.post(
        f"/v1/receipts/{receipt_id}/claims",
        json=body,
        headers={**headers, "X-Request-ID": request_id},
    )
    assert response.status_code == 201, response.text


def test_a_commit_records_its_request_its_gate_judgements_and_its_append_under_its_request_id(
    exported: InMemorySpanExporter, app_client: TestClient, auth
) -> None:
    _commit(app_client, auth("admin"), "req-commit-1")

    mine = [
        s for s in exported.get_finished_spans() if s.attributes.get("request_id") == "req-commit-1"
    ]
    names = [s.name for s in mine]
    assert names.count("gate.judge") == 2
    assert names.count("event_store.append") == 1
    [request] = [s for s in mine if s.name.startswith("HTTP ")]
    assert request.name == "HTTP POST /v1/receipts/{receipt_id}/claims"
    assert request.attributes["http.response.status_code"] == 201
    for child in mine:
        if child is not request:
            assert child.context.trace_id == request.context.trace_id
    judged = [s for s in mine if s.name == "gate.judge"]
    assert [s.attributes["gate.status"] for s in judged] == ["verified", "verified"]


def test_a_projection_batch_run_for_a_request_carries_its_request_id(
    exported: InMemorySpanExporter, app_client: TestClient, auth
) -> None:
    headers = {**auth("admin"), "X-Request-ID": "req-register-1"}
    register(app_client, headers, "traced", TEXT)

    batches = [s for s in exported.get_finished_spans() if s.name == "projection.batch"]
    registry = [s for s in batches if s.attributes["projection"] == "registry"]
    assert registry, [s.name for s in exported.get_finished_spans()]
    assert {s.attributes.get("request_id") for s in registry} == {"req-register-1"}
    assert registry[-1].attributes["events"] >= 1


def test_a_request_continues_the_callers_trace(
    exported: InMemorySpanExporter, app_client: TestClient
) -> None:
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    app_client.get("/healthz", headers={"traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"})

    [span] = exported.get_finished_spans()
    assert format(span.context.trace_id, "032x") == trace_id
    assert span.name == "HTTP GET /healthz"


def test_log_lines_carry_the_trace_and_span_ids_while_tracing_is_on(
    exported: InMemorySpanExporter, app_client: TestClient, json_stream: io.StringIO
) -> None:
    app_client.get("/healthz", headers={"X-Request-ID": "req-log-1"})

    [span] = exported.get_finished_spans()
    lines = [json.loads(text) for text in json_stream.getvalue().splitlines()]
    [line] = [entry for entry in lines if entry.get("request_id") == "req-log-1"]
    assert line["trace_id"] == format(span.context.trace_id, "032x")
    assert line["span_id"] == format(span.context.span_id, "016x")


def test_with_tracing_off_nothing_is_recorded_and_spans_are_the_shared_no_op(
    app_client: TestClient, auth, json_stream: io.StringIO
) -> None:
    _commit(app_client, auth("admin"), "req-off-1")

    assert tracing.installed() is None
    assert tracing.span("gate.judge", {"claim.ordinal": 0}) is tracing.UNRECORDED
    lines = [json.loads(text) for text in json_stream.getvalue().splitlines()]
    assert lines, "the requests were logged"
    assert not [entry for entry in lines if "trace_id" in entry or "span_id" in entry]


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, None),
        ({"OTEL_SERVICE_NAME": "ledger-a"}, None),
        ({"OTEL_TRACES_EXPORTER": "none"}, None),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, "otlp"),
        ({"OTEL_TRACES_EXPORTER": "console"}, "console"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, "otlp"),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"}, None),
    ],
)
def test_tracing_is_off_unless_the_otel_variables_ask_for_an_exporter(
    environ: dict[str, str], expected: str | None
) -> None:
    assert exporter_name(environ) == expected


def test_an_unknown_exporter_or_protocol_is_refused_naming_the_variable() -> None:
    with pytest.raises(ConfigurationError, match="OTEL_TRACES_EXPORTER 'zipkin'"):
        exporter_name({"OTEL_TRACES_EXPORTER": "zipkin"})
    with pytest.raises(ConfigurationError, match="http/protobuf only"):
        provider_from_environment(
            {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
        )


def test_the_service_name_defaults_to_provledger_and_otel_service_name_overrides_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # the SDK also reads the process environment: keep it out of the way
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    provider = provider_from_environment({"OTEL_TRACES_EXPORTER": "console"})
    assert provider is not None
    assert provider.resource.attributes["service.name"] == "provledger"
    provider.shutdown()
    provider = provider_from_environment(
        {"OTEL_TRACES_EXPORTER": "console", "OTEL_SERVICE_NAME": "ledger-eu"}
    )
    assert provider is not None
    assert provider.resource.attributes["service.name"] == "ledger-eu"
    provider.shutdown()


def test_an_otlp_endpoint_alone_builds_a_provider_exporting_over_http_to_it() -> None:
    provider = provider_from_environment(
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SERVICE_NAME": "ledger"}
    )
    assert provider is not None
    try:
        processors = provider._active_span_processor._span_processors
        [processor] = processors
        exporter = processor._batch_processor._exporter
        assert type(exporter).__name__ == "OTLPSpanExporter"
        assert exporter._endpoint == "http://127.0.0.1:4318/v1/traces"
    finally:
        provider.shutdown()


class _Collector(BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver on loopback that keeps what it was sent."""

    received: ClassVar[list[tuple[str, str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, self.headers["Content-Type"], body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[str, str, bytes]]]]:
    _Collector.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Collector.received
    finally:
        server.shutdown()
        server.server_close()


def test_the_otel_variables_turn_tracing_on_and_spans_reach_the_collector_over_otlp_http(
    settings: Settings,
    runtime: LedgerRuntime,
    collector: tuple[str, list[tuple[str, str, bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    endpoint, received = collector
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
    monkeypatch.setenv("OTEL_SERVICE_NAME", "ledger-under-test")
    app = create_app(settings.model_copy(update={"background": False}), runtime)
    with TestClient(app) as client:
        assert tracing.installed() is not None
        client.get("/healthz", headers={"X-Request-ID": "req-otlp-1"})
    # Leaving the app flushed the queued spans and uninstalled tracing.

    assert tracing.installed() is None
    [(path, content_type, body)] = received
    assert path == "/v1/traces"
    assert content_type == "application/x-protobuf"
    assert b"req-otlp-1" in body
    assert b"ledger-under-test" in body
    assert b"HTTP GET /healthz" in body
