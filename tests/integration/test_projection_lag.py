"""Projection lag in events and in seconds: the age of the oldest event not applied yet."""

from __future__ import annotations

from datetime import timedelta

from api.services import build_services
from api.settings import Settings
from ledger.eventlog.clock import parse_time
from ledger.eventlog.envelope import open_state
from ledger.runtime import LedgerRuntime
from projections.lag import Lag, oldest_unapplied_age, projection_lag


def test_lag_in_seconds_is_the_age_of_the_first_event_the_projection_has_not_applied(
    settings: Settings, runtime: LedgerRuntime
) -> None:
    services = build_services(settings, runtime)
    try:
        for number in range(3):
            runtime.api_keys.issue(f"client-{number}", ["read"], "test:suite")
        ledger = runtime.ledger
        [first] = ledger.recorder.select_notifications(start=1, limit=1)
        recorded = parse_time(open_state(first.state).body["recorded_at"])

        age = oldest_unapplied_age(ledger, 0, now=recorded + timedelta(seconds=90))
        later = oldest_unapplied_age(ledger, 1, now=recorded + timedelta(seconds=90))
        registry = services.read_side.registry
        behind = projection_lag(ledger, registry, ledger.last_position())
        registry.catch_up()
        caught_up = projection_lag(ledger, registry, ledger.last_position())
    finally:
        services.close()

    assert age == 90.0
    assert 0.0 <= later < 90.0  # the second event was recorded after the first
    assert behind.events == 3
    assert behind.seconds > 0.0
    assert caught_up == Lag(0, 0.0)


def test_a_projection_at_the_log_end_has_no_age_to_report(
    settings: Settings, runtime: LedgerRuntime
) -> None:
    runtime.api_keys.issue("client", ["read"], "test:suite")
    end = runtime.ledger.last_position()

    assert oldest_unapplied_age(runtime.ledger, end) == 0.0
