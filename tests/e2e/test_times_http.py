"""Date-times at the HTTP edge: four-digit years stored, out-of-range UTC values refused by name."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.runtime import LedgerRuntime
from tests.e2e.flows import receipt_body, register

# Wall-clock times whose UTC value falls before year 1 or after year 9999.
BEFORE_YEAR_1 = "0001-01-01T00:00:00+01:00"
AFTER_YEAR_9999 = "9999-12-31T23:00:00-05:00"


@pytest.fixture
def admin(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    headers: dict[str, str] = auth("admin", name="operator")
    return headers


def _assert_range_error(response: Any, field: str) -> None:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    [error] = response.json()["errors"]
    assert error["field"] == field
    assert error["rule"] == "range"
    assert error["message"].startswith(f"{field} must fall within years 0001-9999 in UTC")


@pytest.mark.parametrize("moment", [BEFORE_YEAR_1, AFTER_YEAR_9999])
@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/v1/sources/anything", "known_at"),
        ("/v1/sources/anything", "valid_at"),
        ("/v1/spans/sp_anything", "known_at"),
        ("/v1/receipts/anything", "known_at"),
        ("/v1/audit/checkpoint", "at"),
    ],
)
def test_a_query_time_outside_years_1_to_9999_in_utc_is_422_naming_it(
    client: TestClient, admin: dict[str, str], path: str, field: str, moment: str
) -> None:
    response = client.get(path, params={field: moment}, headers=admin)

    _assert_range_error(response, field)


@pytest.mark.parametrize("moment", [BEFORE_YEAR_1, AFTER_YEAR_9999])
def test_an_effective_from_outside_the_years_is_422_and_writes_nothing(
    client: TestClient, admin: dict[str, str], runtime: LedgerRuntime, moment: str
) -> None:
    position = runtime.ledger.last_position()
    body = {
        "source_id": "s1",
        "title": "T",
        "authority": "derived",
        "text": "Revenue rose 2.2% to $4.5 million.",
        "effective_from": moment,
    }

    response = client.post("/v1/sources", json=body, headers=admin)

    _assert_range_error(response, "effective_from")
    assert runtime.ledger.last_position() == position


@pytest.mark.parametrize("field", ["as_of", "expires_at"])
@pytest.mark.parametrize("moment", [BEFORE_YEAR_1, AFTER_YEAR_9999])
def test_a_receipt_time_outside_the_years_is_422_and_writes_nothing(
    client: TestClient, admin: dict[str, str], runtime: LedgerRuntime, field: str, moment: str
) -> None:
    [span] = register(client, admin, "s1", "Revenue rose 2.2% to $4.5 million.")
    position = runtime.ledger.last_position()
    body = receipt_body([span["span_id"]], **{field: moment})

    response = client.post("/v1/receipts", json=body, headers=admin)

    _assert_range_error(response, field)
    assert runtime.ledger.last_position() == position


def test_a_version_after_one_effective_before_year_1000_is_accepted(
    client: TestClient, admin: dict[str, str]
) -> None:
    register(client, admin, "old", "The charter was sealed.", effective_from="0999-01-01T00:00:00Z")

    response = client.post(
        "/v1/sources/old/versions",
        json={"text": "The charter was sealed twice.", "effective_from": "1999-01-01T00:00:00Z"},
        headers=admin,
    )

    assert response.status_code == 201, response.text
    versions = client.get("/v1/sources/old", headers=admin).json()["versions"]
    assert [v["effective_from"] for v in versions] == [
        "0999-01-01T00:00:00.000000Z",
        "1999-01-01T00:00:00.000000Z",
    ]


def test_the_earliest_and_latest_utc_times_are_accepted(
    client: TestClient, admin: dict[str, str]
) -> None:
    earliest = "0001-01-01T00:00:00Z"
    latest = "9999-12-31T23:59:59.999999Z"

    response = client.get("/v1/audit/checkpoint", params={"at": latest}, headers=admin)
    register(client, admin, "first", "Day one.", effective_from=earliest)
    before = client.get("/v1/sources/first", params={"valid_at": earliest}, headers=admin)

    assert response.status_code == 200, response.text
    assert before.status_code == 200, before.text
    assert before.json()["in_force_version"] == 1


@settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    moment=st.datetimes(min_value=datetime.min, max_value=datetime.max),
    minutes=st.integers(min_value=-(24 * 60 - 1), max_value=24 * 60 - 1),
)
def test_any_offset_time_in_a_query_is_answered_never_a_5xx(
    client: TestClient, admin: dict[str, str], moment: datetime, minutes: int
) -> None:
    aware = moment.replace(tzinfo=timezone(timedelta(minutes=minutes)))

    response = client.get(
        "/v1/sources/anything", params={"valid_at": aware.isoformat()}, headers=admin
    )

    offset = timedelta(minutes=minutes)
    in_range = moment - datetime.min >= offset and datetime.max - moment >= -offset
    assert response.status_code == (404 if in_range else 422), response.text
