"""Property: any one change to a real bundle is refused, unless it touches a field the format
leaves unchecked (``keys``, an event's ``notification_id``, the HMAC signature an auditor
cannot check offline); the verifier never raises on any of them."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.services import open_ledger
from api.settings import Settings
from ledger.audit.bundle.verify import verify_bundle
from ledger.crypto.canonical import canonical_json
from ledger.runtime import LedgerRuntime
from tests.integration.bundle_scenario import Scenario, build_scenario

Path = tuple[str | int, ...]
DELETE = object()
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-2, max_value=10**6),
    st.text(max_size=6),
    st.just([]),
    st.just({}),
    st.just(DELETE),
)


@pytest.fixture
def scenario(settings: Settings) -> Iterator[Scenario]:
    runtime: LedgerRuntime = open_ledger(settings)
    try:
        yield build_scenario(settings, runtime)
    finally:
        runtime.close()


def _paths(value: Any, prefix: Path = ()) -> list[Path]:
    """Every path to a value inside ``value`` (containers and leaves)."""
    found: list[Path] = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _unchecked(bundle: dict[str, Any], path: Path) -> bool:
    if path[0] == "keys":
        return True
    if path[0] == "events" and len(path) >= 3 and path[2] == "notification_id":
        return True
    if path[:2] == ("envelope", "signatures") and len(path) >= 3:
        return str(bundle["envelope"]["signatures"][path[2]]["keyid"]).startswith("hmac:")
    return False


def _get(document: Any, path: Path) -> Any:
    for step in path:
        document = document[step]
    return document


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_one_change_anywhere_is_refused_unless_the_field_is_unchecked(
    scenario: Scenario, data: st.DataObject
) -> None:
    bundle = copy.deepcopy(scenario.bundle)
    path = data.draw(st.sampled_from(_paths(bundle)), label="path")
    value = data.draw(VALUES, label="value")
    parent, last = _get(bundle, path[:-1]), path[-1]
    old = parent[last]
    if value is DELETE:
        del parent[last]
    else:
        parent[last] = value
    report = verify_bundle(bundle, scenario.keyring, scenario.previous)
    unchanged = value is not DELETE and canonical_json(value) == canonical_json(old)
    if report.ok:
        assert unchanged or _unchecked(scenario.bundle, path), (path, value)
    else:
        assert report.reason is not None
