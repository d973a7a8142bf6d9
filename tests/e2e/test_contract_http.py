"""Small contract deviations, each a clear 4xx naming the field and the rule: times are RFC
3339 strings only, request fields are not coerced across types, ``Allow`` names every method
of a path, a body without a ``Content-Type`` is 415, and a request the HTTP parser cannot read
is refused in problem+json like every other refusal."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient

from api.http_protocol import PROTOCOL
from tests.e2e.live_service import free_port


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/v1/receipts?opened_after=0.5", "opened_after"),
        ("/v1/receipts?opened_before=1700000000", "opened_before"),
        ("/v1/sources/memo?known_at=1", "known_at"),
        ("/v1/sources/memo?valid_at=0", "valid_at"),
        ("/v1/audit/checkpoint?at=-1", "at"),
    ],
)
def test_a_bare_number_is_no_time_in_a_query(
    client: TestClient, auth: Any, path: str, field: str
) -> None:
    response = client.get(path, headers=auth("read", "audit:read"))

    assert response.status_code == 422, response.text
    [error] = response.json()["errors"]
    assert error["field"] == f"query.{field}"
    assert "RFC 3339" in error["message"]


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/spans/search", {"quote": "Revenue", "as_of": 0}, "as_of"),
        (
            "/v1/retrieve",
            {
                "query": "revenue",
                "principal": {
                    "roles": [],
                    "units": [],
                    "groups": [],
                    "purpose": "p",
                    "destination": "",
                },
                "as_of": 1.5,
            },
            "as_of",
        ),
    ],
)
def test_a_bare_number_is_no_time_in_a_body(
    client: TestClient, auth: Any, path: str, body: dict[str, Any], field: str
) -> None:
    response = client.post(path, json=body, headers=auth("read", "retrieve"))

    assert response.status_code == 422, response.text
    assert [e["field"] for e in response.json()["errors"]] == [field]


def test_an_rfc_3339_time_still_reads(client: TestClient, auth: Any) -> None:
    headers = auth("read")
    for value in ("2026-01-31T09:30:00Z", "2026-01-31T09:30:00.123456+02:00"):
        response = client.get("/v1/receipts", params={"opened_after": value}, headers=headers)
        assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        (
            "/v1/route",
            {
                "task": "lookup",
                "corpus_tokens": 300,
                "operating_length_tokens": 32000,
                "authoritative_source": True,
                "entitlement": "allowed",
                "compression_drops_exception": 0,
            },
            "compression_drops_exception",
        ),
        ("/v1/locate", {"answer": "x", "chunks": {}, "confidence": False}, "confidence"),
        ("/v1/locate", {"answer": "x", "chunks": {}, "threshold": "0.5"}, "threshold"),
    ],
)
def test_request_fields_are_not_coerced_across_types(
    client: TestClient, auth: Any, path: str, body: dict[str, Any], field: str
) -> None:
    response = client.post(path, json=body, headers=auth("read"))

    assert response.status_code == 422, response.text
    assert [e["field"] for e in response.json()["errors"]] == [field]


def test_allow_names_every_method_of_a_path(client: TestClient, auth: Any) -> None:
    response = client.options("/v1/receipts", headers=auth("read"))

    assert response.status_code == 405
    assert response.headers["content-type"] == "application/problem+json"
    assert {m.strip() for m in response.headers["allow"].split(",")} >= {"GET", "POST"}


def test_a_json_body_without_a_content_type_is_415(client: TestClient, auth: Any) -> None:
    response = client.post(
        "/v1/spans/search",
        content=json.dumps({"quote": "Revenue"}).encode(),
        headers={**auth("read"), "Content-Type": ""},
    )

    assert response.status_code == 415, response.text
    assert response.json()["errors"][0]["field"] == "Content-Type"


@pytest.fixture
def bare_server() -> Iterator[int]:
    """uvicorn with the service's protocol in front of an app that answers 200."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    port = free_port()
    config = uvicorn.Config(app, port=port, http=PROTOCOL, log_config=None, lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(400):  # bounded wait for the socket
        if server.started:
            break
        time.sleep(0.01)
    yield port
    server.should_exit = True
    thread.join(timeout=10)


def test_a_request_line_too_long_to_parse_is_refused_in_problem_json(bare_server: int) -> None:
    with socket.create_connection(("127.0.0.1", bare_server), timeout=10) as sock:
        sock.sendall(b"GET /v1/sources/" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk

    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert b"content-type: application/problem+json" in head.lower()
    problem = json.loads(body)
    assert problem["status"] == 400
    assert problem["errors"][0]["field"] == "request"
