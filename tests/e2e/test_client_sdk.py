"""The Python client against the app (in process, on both backends): the calls a client makes,
the service's problems as typed exceptions, idempotent commits, and offline verification that
agrees with the command line on genuine and tampered documents."""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from api.cli import main
from provledger import (
    ClaimsRejected,
    Client,
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    verify_bundle,
    verify_envelope,
)

TEXT = "Revenue rose 2.2% to $4.5 million. Dr. Lee approved it on Jan. 5."


class _AppTransport(httpx.BaseTransport):
    """Hands each request of the SDK's httpx client to the app's test client (no socket)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        answer = self.client.request(
            request.method, str(request.url), headers=dict(request.headers), content=request.read()
        )
        return httpx.Response(
            answer.status_code, headers=list(answer.headers.multi_items()), content=answer.content
        )


def _connect(client: TestClient, secret: str | None) -> Client:
    """The SDK client, talking to the app in this process."""
    return Client("http://testserver", secret, transport=_AppTransport(client))


@pytest.fixture
def ledger(client: TestClient, runtime: Any) -> Iterator[Client]:
    secret = runtime.api_keys.issue("sdk", ["admin"], "test:suite")
    with _connect(client, secret) as sdk:
        yield sdk


@pytest.fixture
def committed(ledger: Client) -> dict[str, Any]:
    """A source, a receipt over its spans and one committed claim, with their documents."""
    version = ledger.register_source("memo-1", "Memo", TEXT)
    spans = version.spans
    receipt = ledger.open_receipt(
        request="How did revenue move?",
        actor="user-1",
        purpose="answer",
        policy_version="default",
        route="long_context",
        model={"name": "m", "version": "1"},
        evidence=[span.span_id for span in spans],
    )
    claim = {"text": spans[0].text, "bindings": [{"span_id": spans[0].span_id}]}
    result = ledger.commit_claims(receipt.receipt_id, [claim], idempotency_key="answer-1")
    claim_id = result.committed[0].claim_id
    return {
        "receipt": receipt,
        "claim": claim,
        "claim_id": claim_id,
        "envelope": ledger.envelope(receipt.receipt_id),
        "bundle": ledger.bundle(claim_id),
        "keys": ledger.public_keys(),
    }


def test_a_whole_flow_through_the_client_verifies_offline(
    ledger: Client, committed: dict[str, Any]
) -> None:
    envelope = verify_envelope(committed["envelope"], committed["keys"])
    bundle = verify_bundle(committed["bundle"], committed["keys"])

    assert envelope.valid, envelope.reasons
    assert envelope.receipt_id == committed["receipt"].receipt_id
    assert bundle.ok, bundle.checks
    assert bundle.reason is None
    assert ledger.get_claim(committed["claim_id"]).status == "verified"
    assert (
        ledger.get_receipt(committed["receipt"].receipt_id).claims[0].claim_id
        == (committed["claim_id"])
    )
    topics = {event.topic for event in ledger.events(page_size=2)}
    assert "provledger.receipt.claims_committed" in topics


def test_a_repeated_commit_with_the_same_key_is_answered_as_the_first(
    ledger: Client, committed: dict[str, Any]
) -> None:
    receipt_id = committed["receipt"].receipt_id

    again = ledger.commit_claims(receipt_id, [committed["claim"]], idempotency_key="answer-1")

    assert again.replayed is True
    assert again.committed[0].claim_id == committed["claim_id"]
    assert len(ledger.get_receipt(receipt_id).claims) == 1


def test_the_services_problems_arrive_as_typed_exceptions(
    client: TestClient, runtime: Any, ledger: Client, committed: dict[str, Any]
) -> None:
    receipt_id = committed["receipt"].receipt_id
    span_id = committed["claim"]["bindings"][0]["span_id"]
    wrong = {"text": "Revenue rose 9% to $4.5 million.", "bindings": [{"span_id": span_id}]}

    with pytest.raises(ClaimsRejected) as rejected:
        ledger.commit_claims(receipt_id, [wrong])
    with pytest.raises(NotFound):
        ledger.get_source("no-such-source")
    with pytest.raises(Conflict) as conflict:
        ledger.register_source("memo-1", "Memo", "Other text.")
    with pytest.raises(InvalidInput) as invalid:
        ledger.get_source("memo-1", known_at="yesterday")
    reader = runtime.api_keys.issue("reader", ["read"], "test:suite")
    with _connect(client, reader) as sdk, pytest.raises(Forbidden):
        sdk.register_source("memo-2", "Memo", TEXT)

    assert rejected.value.field == "claims[0]"
    assert rejected.value.result["rejected"][0]["status"] == "rejected"
    assert conflict.value.retryable is False
    assert (invalid.value.field, invalid.value.status) == ("query.known_at", 422)


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def _flip_proof_hash(bundle: dict[str, Any]) -> None:
    proof = next(p for p in bundle["proofs"] if p["proof"])
    raw = bytearray(base64.b64decode(proof["proof"][0]))
    raw[0] ^= 0x01
    proof["proof"][0] = base64.b64encode(bytes(raw)).decode()


@pytest.mark.parametrize(
    "change",
    [
        lambda b: None,
        lambda b: b["spans"][0].update(text="Revenue rose 22% to $4.5 million."),
        _flip_proof_hash,
        lambda b: b["events"][0]["stored"]["body"].update(actor="someone"),
    ],
    ids=["genuine", "span-text-substituted", "proof-hash-flipped", "event-edited"],
)
def test_verify_bundle_gives_the_verdict_of_provledger_audit_verify(
    committed: dict[str, Any], tmp_path: Path, change: Any
) -> None:
    bundle = copy.deepcopy(committed["bundle"])
    change(bundle)
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    (tmp_path / "keys.json").write_text(json.dumps(committed["keys"]))

    verdict = verify_bundle(bundle, tmp_path / "keys.json")
    code, output = _cli(
        "audit", "verify", str(tmp_path / "bundle.json"), "--keyring", str(tmp_path / "keys.json")
    )

    assert (code == 0) is verdict.ok
    last = output.strip().splitlines()[-1]
    assert last == ("VERIFIED" if verdict.ok else f"NOT VERIFIED ({verdict.reason})")
    assert [text for ok, text in verdict.checks if ok] == [
        line.removeprefix("[ok  ] ") for line in output.splitlines() if line.startswith("[ok  ]")
    ]


def test_verify_envelope_gives_the_verdict_of_provledger_envelope_verify(
    committed: dict[str, Any], tmp_path: Path
) -> None:
    envelope = copy.deepcopy(committed["envelope"])
    payload = json.loads(base64.b64decode(envelope["payload"]))
    payload["claims"][0]["status"] = "verified-by-hand"
    envelope["payload"] = base64.b64encode(json.dumps(payload).encode()).decode()
    (tmp_path / "keys.json").write_text(json.dumps(committed["keys"]))
    for document, valid in ((committed["envelope"], True), (envelope, False)):
        (tmp_path / "envelope.json").write_text(json.dumps(document))

        verdict = verify_envelope(document, tmp_path / "keys.json")
        code, output = _cli(
            "envelope",
            "verify",
            str(tmp_path / "envelope.json"),
            "--keyring",
            str(tmp_path / "keys.json"),
        )

        assert verdict.valid is valid
        assert (code == 0) is valid, output
        printed = output.splitlines()
        for signature in verdict.signatures:
            mark = "ok  " if signature["valid"] else "FAIL"
            line = f"[{mark}] {signature['alg']} signature {signature['keyid']}: "
            assert line + signature["reason"] in printed
        assert all(f"[FAIL] {reason}" in printed for reason in verdict.reasons)
        assert bool(verdict.reasons) is not valid


def test_the_answer_path_runs_through_the_client_without_raw_http(
    ledger: Client, runtime: Any
) -> None:
    text = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice in 2023."
    ledger.register_source("report-9", "Report", text, effective_from="2024-01-01T00:00:00Z")
    principal = {
        "roles": ["analyst"],
        "units": [],
        "groups": [],
        "purpose": "answer",
        "destination": "internal",
    }
    routing = {
        "task": "question",
        "corpus_tokens": 900000,
        "operating_length_tokens": 128000,
        "authoritative_source": True,
        "entitlement": "allowed",
    }
    found = ledger.retrieve("How did revenue move in 2023?", principal=principal, k=5)
    receipt = ledger.open_receipt(
        request="How did revenue move in 2023?",
        actor="user-9",
        purpose="answer",
        model={"name": "m", "version": "1"},
        retrieval_id=found.retrieval_id,
        principal=principal,
        routing=routing,
    )
    pool = {entry["span_id"]: entry for entry in receipt.pool}
    revenue = next(r for r in found.results if r["text"].startswith("Revenue"))
    wrong = {
        "text": "Revenue rose 9% to $4.5 million in 2023.",
        "bindings": [{"span_id": revenue["span_id"]}],
    }
    right = {"text": revenue["text"], "bindings": [{"span_id": revenue["span_id"]}]}

    result = ledger.commit_claims(receipt.receipt_id, [wrong, right], mode="independent")

    assert revenue["span_id"] in pool
    assert [claim.status for claim in result.rejected] == ["rejected"]
    assert [claim.status for claim in result.committed] == ["verified"]
    listed = list(ledger.claims(receipt_id=receipt.receipt_id, page_size=1))
    assert [claim.ordinal for claim in listed] == [0, 1]
    assert [r.receipt_id for r in ledger.receipts(actor="user-9")] == [receipt.receipt_id]
    extra = ledger.get_receipt(receipt.receipt_id).model_extra or {}
    assert extra["route_decision"]["outcome"] == extra["route"]
    assert extra["principal"]["roles"] == ["analyst"]
    ledger.add_version("report-9", text + " Costs fell.")
    stood = ledger.affected("report-9", 1)
    assert [item["receipt_id"] for item in stood["items"]] == [receipt.receipt_id]
    envelope = ledger.envelope(receipt.receipt_id)
    assert verify_envelope(envelope, hmac_key=runtime.hmac_key.secret).valid
    assert ledger.check_envelope(envelope)["valid"] is True
