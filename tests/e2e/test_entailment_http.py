"""The entailment tier against a small local fake of an OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import open_receipt, register

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice in 2023."


class _FakeModel(BaseHTTPRequestHandler):
    """Answers 'no' when the claim mentions a dividend, 'partial' for 'thrice', else 'yes'."""

    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
        )
        claim = body["messages"][0]["content"].split("Claim:\n")[1]
        answer = "no" if "dividend" in claim else "partial" if "thrice" in claim else "Yes."
        reply = json.dumps({"choices": [{"message": {"role": "assistant", "content": answer}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(reply.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def fake_model() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _FakeModel.requests = []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture
def sampled_client(
    settings: Settings, runtime: LedgerRuntime, fake_model: str
) -> Iterator[TestClient]:
    configured = settings.model_copy(
        update={
            "entailment": "http",
            "entailment_url": fake_model,
            "entailment_model": "fake-1",
            "entailment_api_key": "sk-test-secret",
            "entailment_sample_rate": 1.0,
        }
    )
    with TestClient(create_app(configured, runtime), raise_server_exceptions=False) as client:
        yield client


def test_sampled_verdicts_are_events_and_doubts_reach_the_review_queue(
    sampled_client: TestClient,
    auth,
    runtime: LedgerRuntime,  # type: ignore[no-untyped-def]
) -> None:
    headers = auth("admin", name="ops")
    client = sampled_client
    spans = register(client, headers, "s", TEXT)
    receipt = open_receipt(client, headers, [s["span_id"] for s in spans])
    claims = [
        {"text": spans[0]["text"], "bindings": [{"span_id": spans[0]["span_id"]}]},
        {"text": "The board met thrice in 2023.", "bindings": [{"span_id": spans[1]["span_id"]}]},
        {"text": "A dividend was paid in 2023.", "bindings": [{"span_id": spans[1]["span_id"]}]},
    ]
    committed = client.post(
        f"/v1/receipts/{receipt}/claims",
        json={"claims": claims, "mode": "independent"},
        headers=headers,
    )
    assert committed.status_code == 201, committed.text
    accepted = committed.json()["committed"]

    client.app.state.services.entailment.run_once()  # type: ignore[attr-defined]
    client.app.state.services.entailment.run_once()  # type: ignore[attr-defined]  (a redelivery)
    client.app.state.services.read_side.receipts.catch_up()  # type: ignore[attr-defined]

    judged = [
        c
        for c in client.get(f"/v1/receipts/{receipt}", headers=headers).json()["claims"]
        if c.get("entailment")
    ]
    assert len(judged) == len(accepted)
    assert all(len(c["entailment"]) == 1 for c in judged)
    queue = client.get("/v1/review", headers=headers).json()["items"]
    expected = sorted(
        ("no" if "dividend" in c["text"] else "partial" if "thrice" in c["text"] else "yes")
        for c in accepted
    )
    assert queue, "the unsupported claim must reach the review queue"
    assert sorted(item["verdict"] for item in queue) == [v for v in expected if v != "yes"]
    assert all(r["path"] == "/v1/chat/completions" for r in _FakeModel.requests)
    assert _FakeModel.requests[0]["auth"] == "Bearer sk-test-secret"
    assert _FakeModel.requests[0]["body"]["model"] == "fake-1"


def test_the_default_tier_never_calls_a_model(client: TestClient) -> None:
    assert client.app.state.services.entailment is None  # type: ignore[attr-defined]


def test_review_needs_audit_scope(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    assert client.get("/v1/review", headers=auth("read", name="r")).status_code == 403
