"""Events written before entitlements read back as open sources and unpinned keys."""

from __future__ import annotations

from typing import Any

from ledger.access import Pins, SourceAccess
from ledger.eventlog.store import event_from_body
from ledger.keys.api_keys import ApiKey
from ledger.registry.source import Source


def _v1_body(payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "originator_id": "00000000-0000-0000-0000-000000000001",
        "originator_version": 1,
        "recorded_at": "2026-01-01T00:00:00.000000Z",
        "actor": "t",
        "payload": payload,
    }  # a version 1 body: no class_version


def test_a_version_1_registration_reads_as_a_source_open_to_every_principal() -> None:
    body = _v1_body(
        {"source_id": "s", "title": "T", "authority": "derived", "uri": None, "metadata": {}}
    )

    event = event_from_body(Source.Registered, body)

    assert event.access is None  # type: ignore[attr-defined]
    assert "access" not in body["payload"]  # the stored body itself is not rewritten
    source = Source.__new__(Source)
    Source.__init__(source, "s", "T", "derived", None, {}, event.access)  # type: ignore[attr-defined]
    assert source.access == SourceAccess()


def test_a_version_1_key_reads_as_pinning_nothing() -> None:
    body = _v1_body({"name": "k", "scopes": ["read"], "key_hash": "sha256:00"})

    event = event_from_body(ApiKey.Issued, body)

    assert event.pins is None  # type: ignore[attr-defined]
    assert Pins.from_event(event.pins) is None  # type: ignore[attr-defined]


def test_new_registrations_and_keys_are_at_class_version_2() -> None:
    assert Source.Registered.class_version == 2
    assert ApiKey.Issued.class_version == 2
    assert ApiKey.Reissued.class_version == 2
