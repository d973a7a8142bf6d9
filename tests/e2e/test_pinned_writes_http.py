"""A pinned ``ingest`` key acts only on sources it may see: attackers first.

A key pinned to group ``support`` with the ``ingest`` scope tries to open ``case-4471``
(restricted to ``investigations``) by replacing its access attributes, to add a version to it,
to withdraw it and to register its id again. Each must answer as for a source the ledger does
not hold (or, registering, only that the id is taken), write nothing, and leave the source as
closed to the key as before. On a source it may see, the same key works as any ingester.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from ledger.runtime import LedgerRuntime
from tests.e2e.attacks import SECRET_TEXT, leaks, same_refusal, world


def test_a_pinned_ingest_key_cannot_open_a_source_it_may_not_see_by_changing_its_access(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    before = w.position()

    denied = client.post("/v1/sources/case-4471/access", json={}, headers=w.support)
    missing = client.post("/v1/sources/no-such/access", json={}, headers=w.support)

    assert denied.status_code == 404, denied.text
    assert same_refusal(denied, missing, "case-4471", "no-such")
    assert w.position() == before
    read = client.get("/v1/sources/case-4471/versions/1", headers=w.support)
    assert read.status_code == 404
    assert leaks(read.json(), sent=("case-4471",)) == []


def test_a_pinned_ingest_key_cannot_add_a_version_to_or_withdraw_a_source_it_may_not_see(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    before = w.position()
    calls = [
        ("post", "/v1/sources/{}/versions", {"text": "Project Falcon was cancelled."}),
        ("post", "/v1/sources/{}/versions", {"text": "X.", "title": "New title"}),
        ("post", "/v1/sources/{}/withdraw", {"reason": "gone"}),
    ]
    for method, path, body in calls:
        denied = client.request(method, path.format("case-4471"), json=body, headers=w.support)
        missing = client.request(method, path.format("no-such"), json=body, headers=w.support)

        assert denied.status_code == 404, (path, denied.text)
        assert same_refusal(denied, missing, "case-4471", "no-such"), (path, denied.text)
        assert leaks(denied.json(), sent=("case-4471",)) == []
    assert w.position() == before
    trusted = client.get("/v1/sources/case-4471", headers=w.trusted).json()
    assert (trusted["status"], trusted["current_version"]) == ("active", 1)


def test_registering_the_id_of_a_source_a_pinned_key_may_not_see_says_only_that_it_is_taken(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    before = w.position()
    body = {"source_id": "case-4471", "title": "T", "authority": "derived"}

    same_text = client.post("/v1/sources", json={**body, "text": SECRET_TEXT}, headers=w.support)
    other_text = client.post("/v1/sources", json={**body, "text": "Other."}, headers=w.support)

    assert same_text.status_code == other_text.status_code == 409
    assert same_text.json() == other_text.json()  # the text's match is not told
    assert leaks(same_text.json()) == ["case-4471"]  # only the id the caller sent
    assert w.position() == before


def test_a_pinned_ingest_key_still_writes_to_sources_it_may_see(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)

    version = client.post(
        "/v1/sources/refund-policy/versions",
        json={"text": "Refunds take 60 days."},
        headers=w.support,
    )
    access = client.post(
        "/v1/sources/refund-policy/access", json={"groups": ["support"]}, headers=w.support
    )
    own = client.post(
        "/v1/sources",
        json={"source_id": "faq", "title": "FAQ", "authority": "derived", "text": "Hi."},
        headers=w.support,
    )

    assert version.status_code == 201, version.text
    assert version.json()["version"] == 2
    assert access.status_code == 200
    assert access.json()["changed"] is True
    assert own.status_code == 201, own.text
    titled = client.get("/v1/sources/refund-policy", headers=w.support).json()
    assert titled["versions"][1]["title"] == "REFUND-POLICY"  # a new version keeps the title
