"""Request logs: one line per event, at the level the status deserves; a 500 logged once."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog
from fastapi.testclient import TestClient
from structlog.testing import capture_logs

from api.main import create_app
from api.settings import Settings
from ledger.runtime import LedgerRuntime


class Boom(RuntimeError):
    """A bug in a route."""


def _boom() -> None:
    raise Boom("a route went wrong")


@pytest.fixture
def app_client(settings: Settings, runtime: LedgerRuntime) -> Iterator[TestClient]:
    app = create_app(settings.model_copy(update={"background": False}), runtime)
    app.add_api_route("/boom", _boom)
    # The server's view: an exception escaping the app would surface here.
    with TestClient(app, raise_server_exceptions=True) as client:
        yield client


def test_a_500_is_logged_once_at_error_with_its_request_id_and_traceback(
    app_client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with capture_logs() as logs, caplog.at_level(logging.DEBUG):
        response = app_client.get("/boom", headers={"X-Request-ID": "req-500"})

    assert response.status_code == 500
    assert response.headers["x-request-id"] == "req-500"
    assert response.json()["type"].endswith("/internal")
    errors = [entry for entry in logs if entry["log_level"] in ("error", "critical")]
    assert len(errors) == 1, errors
    [error] = errors
    assert error["event"] == "request"
    assert error["request_id"] == "req-500"
    assert error["status"] == 500
    assert error["error"] == "Boom"
    assert isinstance(error["exc_info"], Boom)
    assert "Exception in ASGI application" not in caplog.text  # no second, plain traceback


@pytest.mark.parametrize(
    ("path", "status", "level"),
    [
        ("/healthz", 200, "info"),
        ("/v1/events", 401, "warning"),
        ("/v1/nothing-here", 404, "warning"),
        ("/boom", 500, "error"),
    ],
)
def test_request_lines_are_logged_at_the_level_their_status_deserves(
    app_client: TestClient, path: str, status: int, level: str
) -> None:
    with capture_logs() as logs:
        response = app_client.get(path)

    assert response.status_code == status
    [line] = [entry for entry in logs if entry["event"] == "request"]
    assert line["log_level"] == level
    assert line["status"] == status
    assert line["path"] == path
    assert line["request_id"] == response.headers["x-request-id"]


def test_the_servers_own_lines_are_json_too(json_stream: io.StringIO) -> None:
    logging.getLogger("uvicorn.error").info("Started server process [%d]", 42)
    logging.getLogger("uvicorn.error").debug("below the level")

    [line] = [json.loads(text) for text in json_stream.getvalue().splitlines()]
    assert line["event"] == "Started server process [42]"
    assert line["level"] == "info"
    assert line["logger"] == "uvicorn.error"
    assert "timestamp" in line


def test_application_lines_are_one_json_object_each_with_the_bound_request_id(
    json_stream: io.StringIO,
) -> None:
    structlog.contextvars.bind_contextvars(request_id="req-1")
    try:
        structlog.get_logger("provledger.test").warning("something", count=2)
        try:
            raise Boom("with a traceback")
        except Boom:
            structlog.get_logger("provledger.test").exception("failed")
    finally:
        structlog.contextvars.clear_contextvars()

    first, second = [json.loads(text) for text in json_stream.getvalue().splitlines()]
    assert first == {
        "event": "something",
        "count": 2,
        "request_id": "req-1",
        "level": "warning",
        "logger": "provledger.test",
        "timestamp": first["timestamp"],
    }
    assert second["level"] == "error"
    assert "Boom: with a traceback" in second["exception"]
