"""To a pinned key, a source it may not see is a source the ledger does not hold: attackers
first.

A key pinned to group ``support`` probes ``case-4471`` (restricted to ``investigations``) and
a source that does not exist through every read that names a source, a span or a receipt,
and compares the answers: same status, same body but for the id it sent. Time is measured by
``benchmarks/denied_timing.py`` (a benchmark, not a test).
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from ledger.runtime import LedgerRuntime
from tests.e2e.attacks import SECRET_TEXT, SUPPORT, leaks, same_refusal, world
from tests.e2e.flows import commit_verbatim, open_receipt, receipt_body

MISSING_SPAN = "sp_" + "0" * 24


def test_every_read_of_a_denied_source_answers_as_for_a_missing_one(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    span_id = w.secret_span["span_id"]
    paths = [
        ("/v1/sources/{}", "case-4471", "no-such"),
        ("/v1/sources/{}?known_at=2999-01-01T00:00:00Z", "case-4471", "no-such"),
        ("/v1/sources/{}/versions/1", "case-4471", "no-such"),
        ("/v1/sources/{}/versions/1/spans", "case-4471", "no-such"),
        ("/v1/sources/{}/versions/1/cells", "case-4471", "no-such"),
        ("/v1/sources/{}/versions/1/affected", "case-4471", "no-such"),
        ("/v1/spans/{}", span_id, MISSING_SPAN),
        ("/v1/spans/{}/context", span_id, MISSING_SPAN),
    ]
    for path, denied_id, missing_id in paths:
        denied = client.get(path.format(denied_id), headers=w.support)
        missing = client.get(path.format(missing_id), headers=w.support)

        assert denied.status_code == 404, (path, denied.text)
        assert same_refusal(denied, missing, denied_id, missing_id), (path, denied.text)


def test_a_retrieval_filtered_to_a_denied_source_answers_as_one_filtered_to_a_missing_one(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)

    def retrieve(source_id: str) -> dict[str, Any]:
        body = {
            "query": "Project Falcon acquire Acme Robotics",
            "principal": {**SUPPORT, "destination": ""},
            "filters": {"source_ids": [source_id]},
        }
        response = client.post("/v1/retrieve", json=body, headers=w.support)
        assert response.status_code == 200, response.text
        found: dict[str, Any] = response.json()
        return found

    denied, missing = retrieve("case-4471"), retrieve("no-such")

    assert (denied["results"], denied["exclusions"]) == ([], [])
    assert (missing["results"], missing["exclusions"]) == ([], [])
    unfiltered = client.post(
        "/v1/retrieve",
        json={"query": "Project Falcon acquire Acme", "principal": {**SUPPORT, "destination": ""}},
        headers=w.support,
    ).json()
    assert [e["code"] for e in unfiltered["exclusions"]] in ([], ["lexical-gate"])
    assert leaks(unfiltered) == []


def test_locating_in_a_denied_source_answers_as_locating_in_a_missing_one(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    answer = "Project Falcon will acquire Acme Robotics [1]."

    def locate(chunk: dict[str, Any]) -> Any:
        body = {"answer": answer, "chunks": {"1": chunk}}
        return client.post("/v1/locate", json=body, headers=w.support)

    for start, end in ((0, 1000), (0, 20), (30, 31)):
        denied = locate({"source_id": "case-4471", "version": 1, "start": start, "end": end})
        missing = locate({"source_id": "no-such", "version": 1, "start": start, "end": end})
        assert denied.status_code == missing.status_code == 200, denied.text
        assert denied.json() == missing.json()  # no span boundary shows through
    denied = locate({"span_ids": [w.secret_span["span_id"]]})
    missing = locate({"span_ids": [MISSING_SPAN]})
    assert denied.status_code == 422, denied.text
    assert same_refusal(denied, missing, w.secret_span["span_id"], MISSING_SPAN)


def test_another_principals_receipt_and_its_claims_answer_as_missing_ones(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    investigator = {**SUPPORT, "groups": ["investigations"]}
    receipt_id = open_receipt(
        client,
        w.trusted,
        [w.secret_span["span_id"]],
        principal=investigator,
        purpose="fraud-review",
    )
    claim_id = commit_verbatim(client, w.trusted, receipt_id, w.secret_span)["claim_id"]
    other_receipt, other_claim = "rcpt_" + "0" * 32, "clm_" + "0" * 24
    for path, denied_id, missing_id in (
        ("/v1/receipts/{}", receipt_id, other_receipt),
        ("/v1/receipts/{}?known_at=2999-01-01T00:00:00Z", receipt_id, other_receipt),
        ("/v1/receipts/{}/envelope", receipt_id, other_receipt),
        ("/v1/receipts/{}/context", receipt_id, other_receipt),
        ("/v1/claims/{}", claim_id, other_claim),
    ):
        denied = client.get(path.format(denied_id), headers=w.support)
        missing = client.get(path.format(missing_id), headers=w.support)

        assert denied.status_code == 404, (path, denied.text)
        assert same_refusal(denied, missing, denied_id, missing_id), (path, denied.text)
        assert leaks(denied.json()) == [], path


def test_a_denied_span_in_a_receipt_request_answers_as_an_unknown_span(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    before = w.position()
    for field in ("evidence", "candidates"):
        bodies = []
        for span_id in (w.secret_span["span_id"], MISSING_SPAN):
            extra = {"candidates": [span_id]} if field == "candidates" else {}
            evidence = [span_id] if field == "evidence" else [w.open_span["span_id"]]
            body = receipt_body(evidence, principal=SUPPORT, purpose="fraud-review", **extra)
            bodies.append(client.post("/v1/receipts", json=body, headers=w.support))
        denied, missing = bodies

        assert denied.status_code == 422, (field, denied.text)
        assert same_refusal(denied, missing, w.secret_span["span_id"], MISSING_SPAN), field
    assert w.position() == before
    assert SECRET_TEXT  # the text nobody above was told
