"""Expired receipts take no claims, and a correction's answer comes after its expiries.

Right after a new version supersedes the version a receipt's claims stand on, the receipt must
read expired (read-your-writes: the expiry is recorded before the version's answer), a commit
to it must be 409 ``receipt-expired`` and write nothing, and a verified bundle of its claim
must say, in the console and in ``provledger audit verify``, that the receipt expired and why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from fastapi.testclient import TestClient

from api.cli import main
from ledger.runtime import LedgerRuntime
from tests.e2e.console.conftest import sign_in
from tests.e2e.flows import commit_verbatim, open_receipt, register

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice."


def _committed(client: TestClient, headers: dict[str, str]) -> tuple[str, dict[str, Any]]:
    spans = register(client, headers, "memo", TEXT)
    receipt_id = open_receipt(client, headers, [s["span_id"] for s in spans])
    return receipt_id, commit_verbatim(client, headers, receipt_id, spans[0])


def test_a_receipt_read_right_after_a_supersession_answers_shows_it_expired(
    client: TestClient, auth: Any
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id, _ = _committed(client, headers)

    superseded = client.post(
        "/v1/sources/memo/versions", json={"text": "Revenue fell."}, headers=headers
    )
    assert superseded.status_code == 201, superseded.text
    status = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()["status"]

    assert status["status"] == "expired"
    assert status["reason"] == "source_superseded"
    assert status["expiries"][0]["detail"] == {
        "source_id": "memo",
        "version": 1,
        "superseded_by": 2,
    }


def test_a_commit_to_an_expired_receipt_is_409_receipt_expired_and_writes_nothing(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    receipt_id, claim = _committed(client, headers)
    client.post("/v1/sources/memo/versions", json={"text": "Revenue fell."}, headers=headers)
    before = runtime.ledger.last_position()

    body = {"claims": [{"text": "The board met twice.", "bindings": []}]}
    refused = client.post(f"/v1/receipts/{receipt_id}/claims", json=body, headers=headers)

    assert refused.status_code == 409, refused.text
    problem = refused.json()
    assert problem["type"].endswith("/receipt-expired")
    assert (
        "source_superseded: version 1 of source 'memo' was superseded by version 2"
        in (problem["detail"])
    )
    assert runtime.ledger.last_position() == before
    repair = client.post(
        f"/v1/receipts/{receipt_id}/claims/{claim['claim_id']}/repair", headers=headers
    )
    assert repair.status_code == 409  # a verified claim, and an expired receipt


def test_a_withdrawal_and_an_access_change_answer_after_the_expiries_they_cause(
    client: TestClient, auth: Any
) -> None:
    headers = auth("ingest", "read", "claims:write", name="app")
    withdrawn_receipt, _ = _committed(client, headers)
    spans = register(client, headers, "faq", "Refunds take thirty days.")
    changed_receipt = open_receipt(client, headers, [spans[0]["span_id"]], request="r2")
    commit_verbatim(client, headers, changed_receipt, spans[0])

    client.post("/v1/sources/memo/withdraw", json={"reason": "retracted"}, headers=headers)
    client.post("/v1/sources/faq/access", json={"groups": ["finance"]}, headers=headers)

    for receipt_id, reason in (
        (withdrawn_receipt, "source_withdrawn"),
        (changed_receipt, "source_access_changed"),
    ):
        status = client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()["status"]
        assert (status["status"], status["reason"]) == ("expired", reason)


def test_audit_verify_and_the_console_name_the_expiry_of_a_verified_claims_receipt(
    client: TestClient, auth: Any, runtime: LedgerRuntime, tmp_path: Path
) -> None:
    headers = auth("ingest", "read", "claims:write", "audit:read", name="app")
    _, claim = _committed(client, headers)
    client.post("/v1/sources/memo/versions", json={"text": "Revenue fell."}, headers=headers)
    bundle = client.get(f"/v1/claims/{claim['claim_id']}/bundle", headers=headers)
    assert bundle.status_code == 200, bundle.text
    (tmp_path / "b.json").write_text(json.dumps(bundle.json()))
    (tmp_path / "keys.json").write_text(json.dumps(client.get("/v1/keys").json()))

    result = CliRunner().invoke(
        main,
        ["audit", "verify", str(tmp_path / "b.json"), "--public-key", str(tmp_path / "keys.json")],
    )

    assert result.exit_code == 0, result.output
    assert "EXPIRED" in result.output
    assert "version 1 of source 'memo' was superseded by version 2" in result.output
    assert result.output.strip().endswith("VERIFIED (receipt expired)")

    csrf = sign_in(client, headers["Authorization"].split()[1])
    verified = client.post(
        f"/console/claims/{claim['claim_id']}/verify",
        data={"csrf": csrf},
        headers={"Accept": "text/html"},
    )
    assert verified.status_code == 200, verified.text
    assert "The receipt expired on" in verified.text  # right after the version's answer
    assert "source_superseded" in verified.text
    assert "MEMO version 1 was superseded on" in verified.text
