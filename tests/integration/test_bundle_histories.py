"""Bundles of claims with longer histories verify: a repaired claim, a quarantined claim, a
receipt expired by a new source version and a retired policy; hiding the expiry is refused."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.services import open_ledger
from api.settings import Settings
from ledger.audit.bundle.verify import (
    BundleReason,
    BundleVerificationError,
    check_bundle,
    verify_bundle,
)
from ledger.crypto.signing import Keyring
from ledger.runtime import LedgerRuntime

TEXT = "Revenue rose 0.2% to $4.5 million in 2023. Revenue rose 0.5% to $4.1 million in 2022."
"""Two sentences that say the same of different years: a claim of the first cited for the
second is contradicted there (rejected, quarantined), and repaired to the first."""
CLAIM = "Revenue rose 0.2% to $4.5 million in 2023."


@pytest.fixture
def history(settings: Settings) -> Iterator[dict[str, Any]]:
    """A misattributed claim repaired, a claim whose quote its span does not hold quarantined,
    then a new version of the source and the retired policy it was decided under expire the
    receipt."""
    runtime: LedgerRuntime = open_ledger(settings)
    headers = {"Authorization": "Bearer " + runtime.api_keys.issue("a", ["admin"], "test:suite")}
    app = create_app(settings, runtime)
    try:
        with TestClient(app, raise_server_exceptions=False) as client:
            source = {"source_id": "memo", "title": "M", "authority": "derived", "text": TEXT}
            spans = client.post("/v1/sources", json=source, headers=headers).json()["spans"]
            receipt_id = client.post(
                "/v1/receipts",
                json={
                    "request": "q",
                    "actor": "u",
                    "purpose": "p",
                    "policy_version": "default",
                    "route": "long_context",
                    "model": {"name": "m", "version": "1"},
                    "evidence": [span["span_id"] for span in spans],
                },
                headers=headers,
            ).json()["receipt_id"]
            for binding in (
                {"span_id": spans[1]["span_id"]},
                {"span_id": spans[0]["span_id"], "quote": "Revenue fell 0.2%"},
            ):
                body = {
                    "mode": "independent",
                    "claims": [{"text": CLAIM, "bindings": [binding]}],
                }
                response = client.post(
                    f"/v1/receipts/{receipt_id}/claims", json=body, headers=headers
                )
                assert response.status_code == 422, response.text
            quarantined = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()[
                "quarantined"
            ]
            repaired, misquoted = (claim["claim_id"] for claim in quarantined)
            response = client.post(
                f"/v1/receipts/{receipt_id}/claims/{repaired}/repair", json={}, headers=headers
            )
            assert response.json()["repair"]["outcome"] == "repaired", response.text
            new_version = {"text": TEXT.replace("0.2%", "0.3%")}
            client.post("/v1/sources/memo/versions", json=new_version, headers=headers)
            client.post("/v1/policies/default/retire", json={"reason": "old"}, headers=headers)
            bundles = {
                name: client.get(f"/v1/claims/{claim_id}/bundle", headers=headers).json()
                for name, claim_id in (("repaired", repaired), ("quarantined", misquoted))
            }
            keyring = Keyring.from_json(client.get("/v1/keys").json())
        yield {"bundles": bundles, "keyring": keyring}
    finally:
        runtime.close()


def _topics(bundle: dict[str, Any]) -> list[str]:
    return [event["topic"].rsplit(".", 1)[1] for event in bundle["events"]]


def test_the_bundle_of_a_repaired_claim_of_an_expired_receipt_verifies(
    history: dict[str, Any],
) -> None:
    bundle = history["bundles"]["repaired"]
    assert bundle["claim"]["status"] == "verified"
    assert "claim_repaired" in _topics(bundle)
    assert _topics(bundle).count("expired") == 2
    assert _topics(bundle).count("version_added") == 2
    report = verify_bundle(bundle, history["keyring"])
    assert report.ok, report.items


def test_the_bundle_of_a_quarantined_claim_verifies(
    history: dict[str, Any],
) -> None:
    bundle = history["bundles"]["quarantined"]
    assert bundle["claim"]["status"] == "rejected"
    assert [span["text"] for span in bundle["spans"]] == [TEXT.split(". ", maxsplit=1)[0] + "."]
    report = verify_bundle(bundle, history["keyring"])
    assert report.ok, report.items


def test_a_bundle_that_hides_the_receipts_expiry_is_refused(history: dict[str, Any]) -> None:
    bundle = copy.deepcopy(history["bundles"]["repaired"])
    last = max(
        (e for e in bundle["events"] if e["topic"] == "provledger.receipt.expired"),
        key=lambda e: e["originator_version"],
    )
    bundle["events"].remove(last)
    with pytest.raises(BundleVerificationError) as caught:
        check_bundle(bundle, history["keyring"])
    assert caught.value.reason is BundleReason.RECEIPT_STATE_MISMATCH
    assert caught.value.detail.endswith("in: status.expiries")
