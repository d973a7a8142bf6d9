"""``/readyz``: 503 with every failing check named; ``/healthz`` stays a liveness probe."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from ledger.eventlog.application import Ledger
from ledger.runtime import LedgerRuntime


class PollFailed(RuntimeError):
    """What the broken projection raises on every poll."""


def _broken_select(ledger: Ledger, start: int, stop: int) -> Sequence[Any]:
    raise PollFailed("the projection cannot read its batch")


def test_a_projection_that_fails_on_every_poll_makes_readyz_503_naming_it(
    settings: Settings, runtime: LedgerRuntime
) -> None:
    configured = settings.model_copy(update={"background": False})
    with TestClient(create_app(configured, runtime)) as client:
        read_side = client.app.state.services.read_side  # type: ignore[attr-defined]
        runtime.api_keys.issue("client", ["read"], "test:suite")  # one event to project
        read_side.receipts.projection.select = _broken_select
        for _ in range(2):  # two polls, both failing
            with pytest.raises(PollFailed):
                read_side.receipts.catch_up()
        ready = client.get("/readyz")
        alive = client.get("/healthz")

    assert ready.status_code == 503
    body = ready.json()
    assert body["type"].endswith("/not-ready")
    assert body["failing"] == ["projection:receipts"]
    assert body["checks"]["projection:receipts"]["ok"] is False
    assert (
        "PollFailed: the projection cannot read its batch"
        in (body["checks"]["projection:receipts"]["detail"])
    )
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["signing_key"]["ok"] is True
    assert "projection:receipts" in body["detail"]
    assert alive.status_code == 200


def test_a_projection_that_recovers_makes_readyz_ready_again(
    settings: Settings, runtime: LedgerRuntime
) -> None:
    configured = settings.model_copy(update={"background": False})
    with TestClient(create_app(configured, runtime)) as client:
        read_side = client.app.state.services.read_side  # type: ignore[attr-defined]
        runtime.api_keys.issue("client", ["read"], "test:suite")
        working = read_side.receipts.projection.select
        read_side.receipts.projection.select = _broken_select
        with pytest.raises(PollFailed):
            read_side.receipts.catch_up()
        read_side.receipts.projection.select = working
        read_side.receipts.catch_up()
        ready = client.get("/readyz")

    assert ready.status_code == 200
    assert ready.json()["status"] == "ready"


def test_a_projection_behind_its_lag_bound_makes_readyz_503_naming_it(
    settings: Settings, runtime: LedgerRuntime
) -> None:
    configured = settings.model_copy(update={"background": False, "projection_max_lag": 1})
    with TestClient(create_app(configured, runtime)) as client:
        for number in range(3):  # three events nobody projects (no background polling)
            runtime.api_keys.issue(f"client-{number}", ["read"], "test:suite")
        ready = client.get("/readyz")

    assert ready.status_code == 503
    body = ready.json()
    assert "projection:registry" in body["failing"]
    registry = body["checks"]["projection:registry"]
    assert registry["lag"] == 3
    assert registry["lag_seconds"] > 0
    assert "behind the log by 3 events, the oldest recorded" in registry["detail"]
    assert registry["detail"].endswith("(bound 1 events)")


def test_readyz_reports_each_projections_lag_in_events_and_seconds_zero_when_caught_up(
    settings: Settings, runtime: LedgerRuntime
) -> None:
    configured = settings.model_copy(update={"background": False})
    with TestClient(create_app(configured, runtime)) as client:
        runtime.api_keys.issue("client", ["read"], "test:suite")
        client.app.state.services.read_side.catch_up()  # type: ignore[attr-defined]
        ready = client.get("/readyz")

    assert ready.status_code == 200
    checks = ready.json()["checks"]
    for name in ("registry", "receipts", "transparency"):
        assert checks[f"projection:{name}"] == {"ok": True, "lag": 0, "lag_seconds": 0.0}


def test_readyz_is_503_naming_the_database_when_the_event_store_does_not_answer(
    settings: Settings, runtime: LedgerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    configured = settings.model_copy(update={"background": False})
    with TestClient(create_app(configured, runtime)) as client:

        def down() -> int:
            raise ConnectionError("connection refused")

        monkeypatch.setattr(runtime.ledger, "last_position", down)
        ready = client.get("/readyz")
        alive = client.get("/healthz")

    assert ready.status_code == 503
    body = ready.json()
    assert "database" in body["failing"]
    assert body["checks"]["database"]["detail"] == "ConnectionError: connection refused"
    assert alive.status_code == 200


def test_the_gate_tables_are_loaded_before_the_service_reports_ready(
    settings: Settings, runtime: LedgerRuntime
) -> None:
    from ledger.gate.lexicon.opposites import opposable, opposites

    opposites.cache_clear()
    opposable.cache_clear()
    configured = settings.model_copy(update={"background": False})
    with TestClient(create_app(configured, runtime)) as client:
        assert client.get("/readyz").status_code == 200
        # loaded by the start-up, not by a claim: the first commit does not pay for it
        assert opposites.cache_info().currsize == 1
        assert opposable.cache_info().currsize == 1
