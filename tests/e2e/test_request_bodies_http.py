"""Request bodies over HTTP: the caller is authenticated before a byte is read, bodies are
bounded while they stream, and only strict UTF-8 JSON reaches a route (SQLite and PostgreSQL)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.body_guard import body_routes
from api.main import create_app
from api.settings import Settings
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import receipt_body, register

PROBLEM = "application/problem+json"
CHUNK = 64 * 1024
SOURCE = {"source_id": "s1", "title": "T", "authority": "derived", "text": "Revenue rose 2.2%."}


@pytest.fixture
def admin(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    headers: dict[str, str] = auth("admin", name="operator")
    return {**headers, "Content-Type": "application/json"}


@pytest.fixture
def small_limits(settings: Settings, runtime: LedgerRuntime) -> Iterator[TestClient]:
    """A client whose app takes bodies of at most 4 KiB, and 64 KiB on the source routes."""
    limited = settings.model_copy(update={"max_body_bytes": 4096, "max_source_body_bytes": CHUNK})
    app = create_app(limited, runtime)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


class Upload:
    """A streamed (chunked) body, counting how many chunks the server pulled."""

    def __init__(self, chunks: int) -> None:
        self.chunks = itertools.islice(itertools.repeat(b" " * CHUNK), chunks)
        self.pulled = 0

    def post(self, client: TestClient, path: str, headers: dict[str, str]) -> dict[str, Any]:
        """Send the upload straight to the ASGI app; return the status and the problem."""
        messages: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            chunk = next(self.chunks, None)
            if chunk is None:
                return {"type": "http.request", "body": b"", "more_body": False}
            self.pulled += 1
            return {"type": "http.request", "body": chunk, "more_body": True}

        async def send(message: dict[str, Any]) -> None:
            messages.append(message)

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]
            + [(b"transfer-encoding", b"chunked")],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }

        async def call() -> None:
            await client.app(scope, receive, send)

        assert client.portal is not None
        client.portal.call(call)
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
        return {"status": messages[0]["status"], "problem": json.loads(body)}


def test_an_anonymous_upload_is_refused_before_one_byte_is_read(client: TestClient) -> None:
    upload = Upload(chunks=10_000)  # 640 MiB, never sent

    answer = upload.post(client, "/v1/sources", {"Content-Type": "application/json"})

    assert answer["status"] == 401
    assert answer["problem"]["detail"].startswith("missing Authorization header")
    assert upload.pulled == 0


def test_an_upload_with_an_unknown_key_is_refused_before_one_byte_is_read(
    client: TestClient,
) -> None:
    upload = Upload(chunks=10_000)

    answer = upload.post(client, "/v1/receipts", {"Authorization": "Bearer plk.nobody.x"})

    assert answer["status"] == 401
    assert answer["problem"]["detail"] == "unknown or revoked API key"
    assert upload.pulled == 0


@pytest.mark.parametrize(
    ("path", "limit"),
    [("/v1/receipts", 4096), ("/v1/sources", CHUNK), ("/v1/sources/s1/versions", CHUNK)],
)
def test_a_chunked_upload_stops_being_read_at_the_route_limit_with_413(
    small_limits: TestClient, admin: dict[str, str], runtime: LedgerRuntime, path: str, limit: int
) -> None:
    position = runtime.ledger.last_position()
    upload = Upload(chunks=10_000)

    answer = upload.post(small_limits, path, admin)

    assert answer["status"] == 413
    assert answer["problem"]["type"].endswith("/payload-too-large")
    assert answer["problem"]["detail"] == (
        f"the request body is over {limit} bytes; POST {path.replace('s1', '{source_id}')} "
        f"takes at most {limit} bytes"
    )
    assert upload.pulled <= limit // CHUNK + 1
    assert runtime.ledger.last_position() == position


def test_a_declared_length_over_the_limit_is_413_before_reading(
    small_limits: TestClient, admin: dict[str, str]
) -> None:
    response = small_limits.post("/v1/receipts", content=b" " * 5000, headers=admin)

    assert response.status_code == 413
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["detail"] == (
        "the request body is 5000 bytes; POST /v1/receipts takes at most 4096 bytes"
    )


def test_a_source_body_may_be_larger_than_other_bodies(
    small_limits: TestClient, admin: dict[str, str]
) -> None:
    source = {**SOURCE, "text": "Revenue rose 2.2% again. " * 400}  # ~10 KB

    response = small_limits.post("/v1/sources", json=source, headers=admin)

    assert response.status_code == 201, response.text


def test_an_anonymous_oversized_body_is_401_not_413(small_limits: TestClient) -> None:
    response = small_limits.post("/v1/receipts", content=b" " * 5000)

    assert response.status_code == 401


def test_broken_json_is_400_malformed_body_after_authentication(
    client: TestClient, admin: dict[str, str], runtime: LedgerRuntime
) -> None:
    anonymous = client.post("/v1/sources", content=b'{"source_id": ')
    response = client.post("/v1/sources", content=b'{"source_id": ', headers=admin)

    assert anonymous.status_code == 401
    assert response.status_code == 400
    assert response.headers["content-type"] == PROBLEM
    problem = response.json()
    assert problem["type"] == "https://provledger.dev/problems/malformed-body"
    assert problem["title"] == "Malformed body"
    assert problem["errors"] == [
        {
            "field": "body",
            "rule": "json",
            "message": "the request body is not JSON: Expecting value at byte 14",
        }
    ]


def test_a_duplicated_key_is_refused_and_nothing_is_written(
    client: TestClient, admin: dict[str, str], runtime: LedgerRuntime
) -> None:
    position = runtime.ledger.last_position()
    body = (
        b'{"source_id": "a", "title": "T", "authority": "derived", "text": "x.", "source_id": "b"}'
    )

    response = client.post("/v1/sources", content=body, headers=admin)

    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "field": "source_id",
            "rule": "duplicate-key",
            "message": "source_id is given more than once; each member must appear once",
        }
    ]
    assert runtime.ledger.last_position() == position


def test_deep_nesting_is_refused_as_too_deep_not_as_bad_utf8(
    client: TestClient, admin: dict[str, str]
) -> None:
    body = b'{"metadata": ' + b"[" * 1000 + b"]" * 1000 + b"}"

    response = client.post("/v1/sources", content=body, headers=admin)

    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert (error["field"], error["rule"]) == ("body", "depth")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_a_body_in_another_unicode_encoding_is_refused(
    client: TestClient, admin: dict[str, str], runtime: LedgerRuntime, encoding: str
) -> None:
    position = runtime.ledger.last_position()

    response = client.post(
        "/v1/sources", content=json.dumps(SOURCE).encode(encoding), headers=admin
    )

    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert (error["field"], error["rule"]) == ("body", "utf-8")
    assert runtime.ledger.last_position() == position


def test_a_declared_charset_other_than_utf8_is_refused(
    client: TestClient, admin: dict[str, str]
) -> None:
    headers = {**admin, "Content-Type": "application/json; charset=utf-16"}

    response = client.post("/v1/sources", content=json.dumps(SOURCE).encode(), headers=headers)

    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "field": "body",
            "rule": "utf-8",
            "message": "the request body must be UTF-8 JSON, not charset=utf-16",
        }
    ]


def test_a_lone_surrogate_anywhere_is_422_naming_the_field(
    client: TestClient, admin: dict[str, str]
) -> None:
    body = b'{"claims": [{"text": "Revenue \\udc00 rose.", "bindings": []}]}'

    response = client.post("/v1/receipts/rc_x/claims", content=body, headers=admin)

    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "field": "claims.0.text",
            "rule": "utf-8",
            "message": "claims.0.text contains a lone surrogate",
        }
    ]


def test_a_scope_is_still_checked_after_the_body_is_read(
    client: TestClient,
    auth,  # type: ignore[no-untyped-def]
) -> None:
    response = client.post("/v1/sources", json=SOURCE, headers=auth("read"))

    assert response.status_code == 403
    assert "lacks the 'ingest' scope" in response.json()["detail"]


def test_every_operation_that_takes_a_body_is_guarded(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    with_body = {
        (method.upper(), path)
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if "requestBody" in operation
    }
    guarded = {
        (method, route.path)
        for route in body_routes(client.app.router.routes)  # type: ignore[attr-defined]
        for method in route.methods
    }

    assert with_body == guarded


def test_a_nul_character_in_a_body_is_422_naming_the_field_and_writes_nothing(
    client: TestClient, admin: dict[str, str], runtime: LedgerRuntime
) -> None:
    position = runtime.ledger.last_position()
    source = {**SOURCE, "metadata": {"owner": "fin\x00ance"}}

    response = client.post("/v1/sources", json=source, headers=admin)

    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "field": "metadata.owner",
            "rule": "nul",
            "message": "metadata.owner contains U+0000, which no ledger text may hold",
        }
    ]
    assert runtime.ledger.last_position() == position


@pytest.mark.parametrize(
    ("target", "where"),
    [
        ("/v1/spans/sp_a%00b", "path"),
        ("/v1/sources/a%00b/versions/1", "path"),
        ("/v1/review?status=a%00", "query"),
    ],
)
def test_a_nul_character_in_the_request_target_is_422(
    client: TestClient, admin: dict[str, str], target: str, where: str
) -> None:
    response = client.get(target, headers=admin)

    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert (error["field"], error["rule"]) == (where, "nul")
    assert error["message"] == (
        f"the {where} contains U+0000 (%00), which no ledger id or value holds"
    )


@pytest.mark.parametrize(
    "target",
    ["/v1/sources/s1/versions/2147483648", "/v1/sources/s1/versions/2147483648/affected"],
)
def test_a_version_past_32_bits_is_422_not_a_database_error(
    client: TestClient, admin: dict[str, str], target: str
) -> None:
    response = client.get(target, headers=admin)

    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert (error["field"], error["rule"]) == ("path.version", "less_than_equal")


def test_a_value_with_no_canonical_form_is_422_with_errors(
    client: TestClient, admin: dict[str, str], runtime: LedgerRuntime
) -> None:
    [span] = register(client, admin, "s1", "Revenue rose 2.2%.")
    position = runtime.ledger.last_position()
    receipt = receipt_body([span["span_id"]], budget={"tokens": 2**60})

    response = client.post("/v1/receipts", json=receipt, headers=admin)

    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert (error["field"], error["rule"]) == ("body", "rfc8785")
    assert "exceeds safe integer domain" in error["message"]
    assert runtime.ledger.last_position() == position
