"""An HTTP client over the app, sharing the parametrised ledger runtime."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
import structlog
from fastapi.testclient import TestClient

from api.main import create_app
from api.observability import configure_logging
from api.settings import Settings
from ledger.runtime import LedgerRuntime
from tests.loop_client import LoopClient


@pytest.fixture
def client(settings: Settings, runtime: LedgerRuntime) -> Iterator[TestClient]:
    """The app over the test's runtime, each request sent into its loop in one hop."""
    with LoopClient(create_app(settings, runtime), raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def auth(runtime: LedgerRuntime):  # type: ignore[no-untyped-def]
    """Issue a key with the given scopes and return its Authorization header."""

    def issue(*scopes: str, name: str = "client") -> dict[str, str]:
        secret = runtime.api_keys.issue(name, list(scopes), "test:suite")
        return {"Authorization": f"Bearer {secret}"}

    return issue


@pytest.fixture
def json_stream() -> Iterator[io.StringIO]:
    """Logging configured for JSON into a buffer; the defaults are restored afterwards."""
    stream = io.StringIO()
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    configure_logging("INFO", json=True, stream=stream, cache=False)
    try:
        yield stream
    finally:
        root.handlers[:] = before[0]
        root.setLevel(before[1])
        structlog.reset_defaults()
