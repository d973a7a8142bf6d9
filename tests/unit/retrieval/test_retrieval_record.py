"""Retrievals recorded before entitlements were wired read back with no policy version."""

from __future__ import annotations

from ledger.eventlog.store import event_from_body
from ledger.retrieval.record import Retrieval


def test_a_version_1_retrieval_reads_back_with_no_policy_version() -> None:
    body = {
        "originator_id": "00000000-0000-0000-0000-000000000001",
        "originator_version": 1,
        "recorded_at": "2026-01-01T00:00:00.000000Z",
        "actor": "key:app",
        "payload": {
            "retrieval_id": "rtv_" + "0" * 32,
            "query": "revenue",
            "principal": {"purpose": "p"},
            "k": 5,
            "as_of": "2026-01-01T00:00:00.000000Z",
            "filters": None,
            "results": [],
            "exclusions": [{"code": "entitlement-group-mismatch", "count": 2}],
            "rankers": [],
        },
    }  # a version 1 body: no class_version, no policy_version

    event = event_from_body(Retrieval.Performed, body)

    assert event.policy_version is None  # type: ignore[attr-defined]
    assert "policy_version" not in body["payload"]  # the stored body is not rewritten
    assert Retrieval.Performed.class_version == 2
