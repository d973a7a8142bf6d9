"""Re-attribution within the sealed pool, and locating spans behind cited chunks."""

from __future__ import annotations

import base64
import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.crypto.canonical import canonical_json
from ledger.crypto.dsse import RECEIPT_PAYLOAD_TYPE, seal_envelope
from ledger.eventlog.clock import format_time
from ledger.receipts.receipt import Receipt
from ledger.runtime import LedgerRuntime
from provledger import verify_bundle

TEXT = (
    "Revenue rose 2.2% to $4.5 million in 2023. The board met twice in 2023. Costs fell 3% in 2023."
    " Revenue rose 1.2% to $4.4 million in 2022."
)
"""The last sentence says of 2022 what the first says of 2023: the claim cited for it is
contradicted there (rejected, quarantined), and the first repairs it."""
CLAIM = "Revenue rose 2.2% to $4.5 million in 2023."


@pytest.fixture
def headers(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return auth("admin", name="ops")


@pytest.fixture
def spans(client: TestClient, headers: dict[str, str]) -> dict[str, dict[str, Any]]:
    body = {"source_id": "r", "title": "R", "authority": "derived", "text": TEXT}
    listed = client.post("/v1/sources", json=body, headers=headers).json()["spans"]
    extra = {"source_id": "other", "title": "O", "authority": "derived", "text": CLAIM}
    outside = client.post("/v1/sources", json=extra, headers=headers).json()["spans"][0]
    return {
        "revenue": listed[0],
        "board": listed[1],
        "costs": listed[2],
        "prior": listed[3],
        "outside": outside,
    }


def _receipt(client: TestClient, headers: dict[str, str], pool: list[str]) -> str:
    body = {
        "request": "q",
        "actor": "u",
        "purpose": "p",
        "policy_version": "default",
        "route": "hybrid_retrieval",
        "model": {"name": "m", "version": "1"},
        "evidence": pool,
    }
    receipt_id: str = client.post("/v1/receipts", json=body, headers=headers).json()["receipt_id"]
    return receipt_id


def _commit(client: TestClient, headers: dict[str, str], receipt: str, span_id: str, **extra: Any):  # type: ignore[no-untyped-def]
    claim = {"text": CLAIM, "bindings": [{"span_id": span_id, "role": "primary_support"}]}
    return client.post(
        f"/v1/receipts/{receipt}/claims", json={"claims": [claim], **extra}, headers=headers
    )


def _misattributed_then_board(
    client: TestClient, headers: dict[str, str], receipt: str, spans: dict[str, Any]
) -> dict[str, Any]:
    """An independent commit: claim 0 cites the year before (rejected, quarantined), claim 1
    the board's sentence (committed); the commit's answer."""
    claims = [
        {"text": CLAIM, "bindings": [{"span_id": spans["prior"]["span_id"]}]},
        {"text": spans["board"]["text"], "bindings": [{"span_id": spans["board"]["span_id"]}]},
    ]
    response = client.post(
        f"/v1/receipts/{receipt}/claims",
        json={"mode": "independent", "claims": claims},
        headers=headers,
    )
    assert response.status_code == 201, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_repair_moves_a_misattributed_claim_onto_the_right_pool_span(
    client: TestClient, headers: dict[str, str], spans: dict[str, Any], runtime: LedgerRuntime
) -> None:
    pool = [spans[k]["span_id"] for k in ("prior", "revenue", "costs")]
    receipt = _receipt(client, headers, pool)
    committed = _commit(client, headers, receipt, spans["prior"]["span_id"], mode="independent")
    [quarantined] = committed.json()["quarantined"]

    response = client.post(
        f"/v1/receipts/{receipt}/claims/{quarantined['claim_id']}/repair", headers=headers
    )

    assert response.status_code == 200, response.text
    body = response.json()
    repair = body["repair"]
    assert repair["outcome"] == "repaired"
    assert repair["previous_binding"]["span_id"] == spans["prior"]["span_id"]
    assert repair["new_binding"]["span_id"] == spans["revenue"]["span_id"]
    assert repair["ranker"]
    assert repair["ranker_version"]
    assert repair["rank"] == 1
    assert repair["attempts"][0]["status"] == "verified"
    assert body["claim"]["text"] == CLAIM  # the text never changes
    assert body["claim"]["status"] == "verified"
    view = client.get(f"/v1/receipts/{receipt}", headers=headers).json()
    assert [c["claim_id"] for c in view["claims"]] == [quarantined["claim_id"]]
    last = runtime.ledger.read_log(runtime.ledger.last_position() - 1, 1)[0]
    assert last.topic == Receipt.ClaimRepaired.TOPIC


def test_a_repaired_claim_read_as_of_before_its_repair_shows_its_old_binding(
    client: TestClient, headers: dict[str, str], spans: dict[str, Any]
) -> None:
    pool = [spans[k]["span_id"] for k in ("prior", "revenue", "costs")]
    receipt = _receipt(client, headers, pool)
    committed = _commit(client, headers, receipt, spans["prior"]["span_id"], mode="independent")
    claim_id = committed.json()["quarantined"][0]["claim_id"]
    time.sleep(0.01)
    before = format_time(datetime.now(UTC))
    time.sleep(0.01)
    client.post(f"/v1/receipts/{receipt}/claims/{claim_id}/repair", headers=headers)

    then = client.get(f"/v1/claims/{claim_id}", params={"known_at": before}, headers=headers)
    now = client.get(f"/v1/claims/{claim_id}", headers=headers)

    assert then.status_code == 200, then.text
    assert [b["span_id"] for b in then.json()["bindings"]] == [spans["prior"]["span_id"]]
    assert then.json()["bindings"][0]["text"] == spans["prior"]["text"]
    assert then.json()["repairs"] == []
    assert [b["span_id"] for b in now.json()["bindings"]] == [spans["revenue"]["span_id"]]
    assert now.json()["bindings"][0]["text"] == spans["revenue"]["text"]


def test_a_receipts_claims_read_in_their_commit_order_after_several_commits_and_a_repair(
    client: TestClient, headers: dict[str, str], spans: dict[str, Any]
) -> None:
    pool = [spans[k]["span_id"] for k in ("prior", "revenue", "costs", "board")]
    receipt = _receipt(client, headers, pool)
    first = _misattributed_then_board(client, headers, receipt, spans)
    costs = {"text": spans["costs"]["text"], "bindings": [{"span_id": spans["costs"]["span_id"]}]}
    second = client.post(
        f"/v1/receipts/{receipt}/claims", json={"claims": [costs]}, headers=headers
    ).json()
    [refused] = first["rejected"]
    assert first["quarantined"] == [refused]  # set aside for audit, and named as rejected

    repaired = client.post(
        f"/v1/receipts/{receipt}/claims/{refused['claim_id']}/repair", headers=headers
    )

    assert repaired.status_code == 200, repaired.text
    order = [refused["claim_id"], first["committed"][0]["claim_id"]]
    order.append(second["committed"][0]["claim_id"])
    document = client.get(f"/v1/receipts/{receipt}", headers=headers).json()
    assert [c["claim_id"] for c in document["claims"]] == order
    assert [c["ordinal"] for c in document["claims"]] == [0, 1, 2]
    listed = client.get("/v1/claims", params={"receipt_id": receipt}, headers=headers).json()
    assert [c["claim_id"] for c in listed["items"]] == order
    paged, after = [], None
    while True:
        params = {"receipt_id": receipt, "limit": 1, **({"after": after} if after else {})}
        one = client.get("/v1/claims", params=params, headers=headers).json()
        paged += [c["claim_id"] for c in one["items"]]
        if (after := one["next"]) is None:
            break
    assert paged == order


@pytest.mark.parametrize(
    ("sealed", "verdict"),
    [("repaired-claim-last", None), ("claim-text-edited", "receipt-state-mismatch")],
)
def test_a_bundle_sealed_with_a_repaired_claim_listed_last_still_verifies(
    client: TestClient,
    headers: dict[str, str],
    spans: dict[str, Any],
    runtime: LedgerRuntime,
    sealed: str,
    verdict: str | None,
) -> None:
    """Envelopes sealed before claims were listed by ordinal put a claim a repair committed
    after the claims committed before the repair: the order differs, every claim still must
    match its record."""
    pool = [spans[k]["span_id"] for k in ("prior", "board", "revenue")]
    receipt = _receipt(client, headers, pool)
    first = _misattributed_then_board(client, headers, receipt, spans)
    refused = first["rejected"][0]["claim_id"]
    repaired = client.post(f"/v1/receipts/{receipt}/claims/{refused}/repair", headers=headers)
    assert repaired.json()["repair"]["outcome"] == "repaired"
    bundle = client.get(f"/v1/claims/{refused}/bundle", headers=headers).json()
    document = json.loads(base64.b64decode(bundle["envelope"]["payload"]))
    assert [c["ordinal"] for c in document["claims"]] == [0, 1]
    document["claims"] = document["claims"][1:] + document["claims"][:1]  # as sealed before
    if sealed == "claim-text-edited":
        document["claims"][0]["text"] = "The board met once in 2023."
    bundle["envelope"] = seal_envelope(
        canonical_json(document),
        RECEIPT_PAYLOAD_TYPE,
        runtime.hmac_key,
        runtime.ledger.signing_key,
    )

    checked = verify_bundle(bundle, client.get("/v1/keys").json())

    assert checked.reason == verdict, checked.checks


def test_repair_never_binds_a_span_outside_the_sealed_pool(
    client: TestClient, headers: dict[str, str], spans: dict[str, Any]
) -> None:
    receipt = _receipt(client, headers, [spans["prior"]["span_id"], spans["costs"]["span_id"]])
    committed = _commit(client, headers, receipt, spans["prior"]["span_id"], mode="independent")
    claim_id = committed.json()["quarantined"][0]["claim_id"]

    body = client.post(f"/v1/receipts/{receipt}/claims/{claim_id}/repair", headers=headers).json()

    assert body["repair"]["outcome"] == "failed"
    tried = {attempt["span_id"] for attempt in body["repair"]["attempts"]}
    assert spans["outside"]["span_id"] not in tried
    assert tried <= {spans["costs"]["span_id"]}
    assert body["claim"]["bindings"][0]["span_id"] == spans["prior"]["span_id"]


def test_repair_on_commit_commits_the_repaired_claim(
    client: TestClient, headers: dict[str, str], spans: dict[str, Any]
) -> None:
    pool = [spans[k]["span_id"] for k in ("board", "revenue", "costs")]
    receipt = _receipt(client, headers, pool)

    response = _commit(client, headers, receipt, spans["board"]["span_id"], repair=True)

    assert response.status_code == 201, response.text
    [claim] = response.json()["committed"]
    assert claim["status"] == "verified"
    assert claim["bindings"][0]["span_id"] == spans["revenue"]["span_id"]
    assert claim["repairs"][0]["previous_binding"]["span_id"] == spans["board"]["span_id"]


def test_a_verified_claim_is_not_repaired(
    client: TestClient, headers: dict[str, str], spans: dict[str, Any]
) -> None:
    receipt = _receipt(client, headers, [spans["revenue"]["span_id"]])
    claim_id = _commit(client, headers, receipt, spans["revenue"]["span_id"]).json()["committed"][
        0
    ]["claim_id"]
    response = client.post(f"/v1/receipts/{receipt}/claims/{claim_id}/repair", headers=headers)
    assert response.status_code == 409


def test_locate_finds_the_span_or_says_none(
    client: TestClient, headers: dict[str, str], spans: dict[str, Any]
) -> None:
    answer = (
        "Revenue rose 2.2% to $4.5 million in 2023 [1]. The board met twice [1]. "
        "Unicorns flew over Paris [1]."
    )
    chunk = {"source_id": "r", "version": 1, "start": 0, "end": len(TEXT)}

    body = client.post(
        "/v1/locate", json={"answer": answer, "chunks": {"1": chunk}}, headers=headers
    ).json()

    found = [s["span_id"] for s in body["sentences"]]
    assert found == [spans["revenue"]["span_id"], spans["board"]["span_id"], None]
    assert body["sentences"][0]["source_id"] == "r"
    by_ids = client.post(
        "/v1/locate",
        json={
            "answer": "The board met twice [2].",
            "chunks": {"2": {"span_ids": [spans["board"]["span_id"]]}},
        },
        headers=headers,
    ).json()
    assert by_ids["sentences"][0]["span_id"] == spans["board"]["span_id"]


@pytest.mark.parametrize(
    "chunk",
    [{"span_ids": ["sp_" + "0" * 24]}, {"source_id": "r"}, {"span_ids": [], "source_id": "r"}],
)
def test_locate_refuses_bad_chunks(
    client: TestClient, headers: dict[str, str], spans: dict[str, Any], chunk: dict[str, Any]
) -> None:
    response = client.post(
        "/v1/locate", json={"answer": "x [1].", "chunks": {"1": chunk}}, headers=headers
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"].startswith("chunks.1")


def test_locate_reports_its_confidence_and_refuses_one_out_of_range(
    client: TestClient, headers: dict[str, str], spans: dict[str, Any]
) -> None:
    chunk = {"span_ids": [spans["board"]["span_id"], spans["revenue"]["span_id"]]}
    body = client.post(
        "/v1/locate",
        json={"answer": "The board met twice [1].", "chunks": {"1": chunk}, "confidence": 0.5},
        headers=headers,
    ).json()
    assert body["confidence"] == 0.5
    located = body["sentences"][0]
    assert located["span_id"] == spans["board"]["span_id"]
    assert 0.5 <= located["confidence"] <= 1

    response = client.post(
        "/v1/locate",
        json={"answer": "x [1].", "chunks": {"1": chunk}, "confidence": 1.5},
        headers=headers,
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "confidence"
