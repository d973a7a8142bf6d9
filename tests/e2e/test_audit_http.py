"""The transparency log, proofs and offline citation-chain bundles, with tampering."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from api.cli import main
from ledger.crypto.canonical import canonical_json
from ledger.crypto.checkpoint import verify_note
from ledger.crypto.merkle import leaf_hash, verify_consistency, verify_inclusion
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import commit_verbatim, open_receipt, register

ORIGIN = "provledger.local/ledger"
TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice in 2023."


@pytest.fixture
def headers(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return auth("admin", name="auditor")


@pytest.fixture
def claim(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    spans = register(client, headers, "s", TEXT)
    receipt = open_receipt(client, headers, [spans[0]["span_id"]])
    return commit_verbatim(client, headers, receipt, spans[0])


def _public_key(runtime: LedgerRuntime) -> bytes:
    return runtime.ledger.signing_key.public_key


def _checkpoint(client: TestClient, headers: dict[str, str]) -> str:
    response = client.get("/v1/audit/checkpoint", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


def test_checkpoint_is_a_signed_note_over_every_event(
    client: TestClient, headers: dict[str, str], claim: dict[str, Any], runtime: LedgerRuntime
) -> None:
    note = _checkpoint(client, headers)
    checkpoint = verify_note(note, ORIGIN, _public_key(runtime), origin=ORIGIN)
    assert checkpoint.size == runtime.ledger.last_position()
    assert note.splitlines()[0] == ORIGIN
    assert note.splitlines()[3] == ""
    assert note.splitlines()[4].startswith("\u2014 " + ORIGIN + " ")


def test_inclusion_and_consistency_proofs_verify(
    client: TestClient, headers: dict[str, str], claim: dict[str, Any], runtime: LedgerRuntime
) -> None:
    first = verify_note(_checkpoint(client, headers), ORIGIN, _public_key(runtime))
    client.post(
        "/v1/sources",
        json={"source_id": "t", "title": "T", "authority": "derived", "text": "More text here."},
        headers=headers,
    )
    second = verify_note(_checkpoint(client, headers), ORIGIN, _public_key(runtime))
    assert second.size > first.size

    stored = runtime.ledger.read_log(0, 1)[0]
    by_id = client.get(
        "/v1/audit/proofs/inclusion",
        params={"notification_id": stored.id, "size": second.size},
        headers=headers,
    ).json()
    assert base64.b64decode(by_id["leaf_hash"]) == leaf_hash(stored.state)
    verify_inclusion(
        leaf_hash(stored.state),
        by_id["index"],
        second.size,
        [base64.b64decode(h) for h in by_id["proof"]],
        second.root,
    )
    proof = client.get(
        "/v1/audit/proofs/consistency",
        params={"first": first.size, "second": second.size},
        headers=headers,
    ).json()
    verify_consistency(
        first.size,
        second.size,
        [base64.b64decode(h) for h in proof["proof"]],
        first.root,
        second.root,
    )


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"size": 10_000, "index": 0}, "size"),
        ({"size": 1}, "index"),
        ({"size": 1, "index": 5}, "index"),
    ],
)
def test_impossible_proof_requests_are_422(
    client: TestClient,
    headers: dict[str, str],
    claim: dict[str, Any],
    params: dict[str, int],
    field: str,
) -> None:
    response = client.get("/v1/audit/proofs/inclusion", params=params, headers=headers)
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == field


def _save(tmp_path: Path, name: str, content: Any) -> str:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def _audit(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["audit", "verify", *args])
    return result.exit_code, result.output


@pytest.fixture
def saved(
    client: TestClient, headers: dict[str, str], claim: dict[str, Any], tmp_path: Path
) -> dict[str, Any]:
    bundle = client.get(f"/v1/claims/{claim['claim_id']}/bundle", headers=headers).json()
    keys = _save(tmp_path, "keys.json", client.get("/v1/keys").json())
    return {"bundle": bundle, "keys": keys}


def test_a_bundle_verifies_offline(saved: dict[str, Any], tmp_path: Path) -> None:
    code, output = _audit(_save(tmp_path, "b.json", saved["bundle"]), "--public-key", saved["keys"])
    assert code == 0, output
    assert output.strip().endswith("VERIFIED")
    assert "inclusion proofs verify against the checkpoint root" in output
    assert "spans are their sources' signed frozen text at their offsets" in output
    events = saved["bundle"]["events"]
    assert {e["topic"] for e in events} >= {
        "provledger.source.version_added",
        "provledger.receipt.opened",
        "provledger.receipt.claims_committed",
    }


def test_a_previous_checkpoint_demands_a_consistency_proof(
    client: TestClient,
    headers: dict[str, str],
    claim: dict[str, Any],
    saved: dict[str, Any],
    tmp_path: Path,
) -> None:
    earlier = _save(tmp_path, "earlier.txt", saved["bundle"]["checkpoint"])
    client.post(
        "/v1/sources",
        json={"source_id": "u", "title": "U", "authority": "derived", "text": "Later text."},
        headers=headers,
    )
    without = client.get(f"/v1/claims/{claim['claim_id']}/bundle", headers=headers).json()
    code, output = _audit(
        _save(tmp_path, "b1.json", without),
        "--public-key",
        saved["keys"],
        "--previous-checkpoint",
        earlier,
    )
    assert code == 1
    assert "[FAIL] consistency-proof-missing: no consistency proof from size" in output

    size = saved["bundle"]["checkpoint_size"]
    with_proof = client.get(
        f"/v1/claims/{claim['claim_id']}/bundle", params={"since_size": size}, headers=headers
    ).json()
    code, output = _audit(
        _save(tmp_path, "b2.json", with_proof),
        "--public-key",
        saved["keys"],
        "--previous-checkpoint",
        earlier,
    )
    assert code == 0, output
    assert "grew append-only" in output


def _tampered(bundle: dict[str, Any], change) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    copied = copy.deepcopy(bundle)
    change(copied)
    return copied


def _flip_proof_hash(bundle: dict[str, Any]) -> None:
    proof = next(p for p in bundle["proofs"] if p["proof"])
    raw = bytearray(base64.b64decode(proof["proof"][0]))
    raw[0] ^= 0x01
    proof["proof"][0] = base64.b64encode(bytes(raw)).decode()


def _edit_envelope(bundle: dict[str, Any]) -> None:
    payload = json.loads(base64.b64decode(bundle["envelope"]["payload"]))
    payload["claims"][0]["status"] = "verified-by-hand"
    bundle["envelope"]["payload"] = base64.b64encode(canonical_json(payload)).decode()


@pytest.mark.parametrize(
    ("change", "reason", "message"),
    [
        (
            lambda b: b["spans"][0].update(text="Revenue rose 22% to $4.5 million in 2023."),
            "span-text-mismatch",
            "text is not s v1's frozen text at [0:",
        ),
        (_edit_envelope, "envelope-invalid", "does not match the payload"),
        (_flip_proof_hash, "proof-invalid", "computed root"),
        (
            lambda b: b["sources"][0].update(frozen_text=b["sources"][0]["frozen_text"] + " "),
            "source-text-hash-mismatch",
            "not to its version hash",
        ),
        (
            lambda b: b["events"][0]["stored"]["body"].update(actor="someone"),
            "event-signature-invalid",
            "does not match the event body",
        ),
    ],
    ids=[
        "span-text-substituted",
        "envelope-payload-edited",
        "proof-hash-flipped",
        "frozen-text-edited",
        "event-edited",
    ],
)
def test_tampered_bundles_fail_naming_what_broke(
    saved: dict[str, Any],
    tmp_path: Path,
    change,  # type: ignore[no-untyped-def]
    reason: str,
    message: str,
) -> None:
    code, output = _audit(
        _save(tmp_path, "t.json", _tampered(saved["bundle"], change)), "--public-key", saved["keys"]
    )
    assert code == 1
    failed = [line for line in output.splitlines() if line.startswith("[FAIL]")]
    assert len(failed) == 1, output
    assert failed[0].startswith(f"[FAIL] {reason}: "), output
    assert message in failed[0], output
    assert output.strip().endswith(f"NOT VERIFIED ({reason})")


def test_two_checkpoints_of_one_size_with_different_roots_are_a_fork(
    saved: dict[str, Any], runtime: LedgerRuntime, tmp_path: Path
) -> None:
    from ledger.crypto.checkpoint import Checkpoint, sign_note

    size = saved["bundle"]["checkpoint_size"]
    forged = sign_note(Checkpoint(ORIGIN, size, b"\x07" * 32), ORIGIN, runtime.ledger.signing_key)
    code, output = _audit(
        _save(tmp_path, "b.json", saved["bundle"]),
        "--public-key",
        saved["keys"],
        "--previous-checkpoint",
        _save(tmp_path, "forged.txt", forged),
    )
    assert code == 1
    assert (
        f"[FAIL] checkpoint-fork: fork: two checkpoints of size {size} with different roots"
        in output
    )


def test_checkpoint_at_a_time_before_anything_is_404(
    client: TestClient, headers: dict[str, str], claim: dict[str, Any]
) -> None:
    response = client.get(
        "/v1/audit/checkpoint", params={"at": "2000-01-01T00:00:00Z"}, headers=headers
    )
    assert response.status_code == 404


def test_a_pinned_origin_refuses_a_checkpoint_of_another_log(
    saved: dict[str, Any], tmp_path: Path
) -> None:
    bundle = _save(tmp_path, "b.json", saved["bundle"])
    code, output = _audit(bundle, "--public-key", saved["keys"], "--origin", ORIGIN)
    assert code == 0, output
    code, output = _audit(bundle, "--public-key", saved["keys"], "--origin", "other.example/log")
    assert code == 1
    assert (
        "[FAIL] checkpoint-origin-mismatch: checkpoint origin is 'provledger.local/ledger', "
        "expected 'other.example/log'"
    ) in output
    assert output.strip().endswith("NOT VERIFIED (checkpoint-origin-mismatch)")
