"""Read-your-writes across API processes: a write answered by one process is visible to a read
answered by another right after, when the read sends back the write's ``Provledger-Position``.

Two apps open the same database, as two API processes would; neither runs background work, so
what the second serves moves only when a request asks it to.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.consistency import POSITION_HEADER, projected_position
from api.main import create_app
from api.services import open_ledger
from api.settings import Settings
from ledger.runtime import LedgerRuntime

TEXT = "Revenue rose 2.2% to $4.5 million in fiscal 2023. The board met twice."
PROBLEMS = "https://provledger.dev/problems/"


def _other(settings: Settings, **changes: Any) -> Iterator[TestClient]:
    quiet = settings.model_copy(update={"background": False, **changes})
    runtime = open_ledger(quiet)
    try:
        with TestClient(create_app(quiet, runtime), raise_server_exceptions=False) as client:
            yield client
    finally:
        runtime.close()


@pytest.fixture
def first(settings: Settings) -> Iterator[TestClient]:
    """An API process on the test's database, projecting only what its own routes need."""
    yield from _other(settings)


@pytest.fixture
def other(settings: Settings) -> Iterator[TestClient]:
    """A second API process on the same database, started before the writes."""
    yield from _other(settings)


@pytest.fixture
def impatient(settings: Settings) -> Iterator[TestClient]:
    """A second API process that waits for no position at all."""
    yield from _other(settings, read_wait_seconds=0.0)


@pytest.fixture
def headers(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return auth("ingest", "read", name="app")


def _register(client: TestClient, headers: dict[str, str]) -> int:
    body = {"source_id": "report", "title": "R", "authority": "derived", "text": TEXT}
    response = client.post("/v1/sources", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return int(response.headers[POSITION_HEADER])


def test_a_write_returns_the_log_position_that_covers_it(
    client: TestClient, headers: dict[str, str], runtime: LedgerRuntime
) -> None:
    position = _register(client, headers)

    assert position == runtime.ledger.last_position()
    assert POSITION_HEADER not in client.get("/v1/sources/report", headers=headers).headers


def test_a_write_on_one_process_is_read_on_another_with_its_position(
    first: TestClient, other: TestClient, headers: dict[str, str]
) -> None:
    position = _register(first, headers)  # its route projects the registry, not the rest
    services = other.app.state.services  # type: ignore[attr-defined]
    assert projected_position(services) < position

    read = other.get("/v1/sources/report", headers={**headers, POSITION_HEADER: str(position)})

    assert read.status_code == 200, read.text
    assert read.json()["source_id"] == "report"
    assert projected_position(services) >= position  # every read model has the write


def test_a_position_the_read_models_do_not_reach_in_time_is_a_503_problem(
    first: TestClient, impatient: TestClient, headers: dict[str, str]
) -> None:
    position = _register(first, headers)

    read = impatient.get("/v1/sources/report", headers={**headers, POSITION_HEADER: str(position)})

    assert read.status_code == 503, read.text
    assert read.headers["content-type"] == "application/problem+json"
    assert read.json()["type"] == PROBLEMS + "position-not-reached"
    assert read.headers["retry-after"] == "1"
    assert read.json()["detail"] == (
        f"the read models did not reach log position {position} within 0 s; retry the request"
    )


@pytest.mark.parametrize("value", ["-1", "ten", "1.5", "0x10", "9" * 20])
def test_a_position_that_is_not_a_non_negative_integer_is_refused_naming_the_header(
    client: TestClient, headers: dict[str, str], value: str
) -> None:
    read = client.get("/v1/sources/report", headers={**headers, POSITION_HEADER: value})

    assert read.status_code == 422, read.text
    error = read.json()["errors"][0]
    assert (error["field"], error["rule"]) == (POSITION_HEADER, "integer")
    assert error["message"] == f"{POSITION_HEADER} must be a non-negative integer"


def test_a_position_past_the_end_of_the_log_is_refused(
    client: TestClient, headers: dict[str, str], runtime: LedgerRuntime
) -> None:
    end = runtime.ledger.last_position()

    read = client.get("/v1/sources/report", headers={**headers, POSITION_HEADER: str(end + 10)})

    assert read.status_code == 422, read.text
    error = read.json()["errors"][0]
    assert (error["field"], error["rule"]) == (POSITION_HEADER, "within-log")
    assert error["message"] == f"{POSITION_HEADER} {end + 10} is past the end of the log ({end})"
