"""`provledger envelope verify` offline: no server, no database."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from fastapi.testclient import TestClient

from api.cli import main
from api.settings import Settings
from ledger.crypto.canonical import canonical_json
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import commit_verbatim, open_receipt, register


@pytest.fixture
def saved(client: TestClient, auth, runtime: LedgerRuntime, settings: Settings, tmp_path: Path):  # type: ignore[no-untyped-def]
    """An envelope, the public keys and the HMAC key, saved as files."""
    headers = auth("ingest", "claims:write", "read", name="app")
    spans = register(client, headers, "s", "Sales rose 4% in 2023.")
    receipt = open_receipt(client, headers, [spans[0]["span_id"]])
    commit_verbatim(client, headers, receipt, spans[0])
    envelope = tmp_path / "envelope.json"
    envelope.write_text(client.get(f"/v1/receipts/{receipt}/envelope", headers=headers).text)
    keys = tmp_path / "keys.json"
    keys.write_text(client.get("/v1/keys").text)
    return {
        "envelope": envelope,
        "keys": keys,
        "hmac": settings.keys_dir / "receipt-hmac.key",
        "receipt": receipt,
        "runtime": runtime,
    }


def _verify(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["envelope", "verify", *args])
    return result.exit_code, result.output


def test_verifies_offline_with_the_public_keys(saved) -> None:  # type: ignore[no-untyped-def]
    code, output = _verify(str(saved["envelope"]), "--public-key-file", str(saved["keys"]))
    assert code == 0, output
    assert f"VALID: receipt {saved['receipt']} (open)" in output
    assert "[ok  ] Ed25519 signature" in output


def test_verifies_offline_with_the_hmac_key_and_a_pem_public_key(saved, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    raw = saved["runtime"].ledger.signing_key.public_key
    pem = tmp_path / "public.pem"
    pem.write_bytes(
        Ed25519PublicKey.from_public_bytes(raw).public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    code, output = _verify(
        str(saved["envelope"]), "--hmac-key-file", str(saved["hmac"]), "--public-key-file", str(pem)
    )
    assert code == 0, output
    assert "[ok  ] HMAC-SHA256 signature hmac:" in output


def test_an_edited_payload_fails_offline(saved) -> None:  # type: ignore[no-untyped-def]
    envelope = json.loads(saved["envelope"].read_text())
    document = json.loads(base64.b64decode(envelope["payload"]))
    document["claims"][0]["text"] = "Sales rose 40% in 2023."
    envelope["payload"] = base64.b64encode(canonical_json(document)).decode()
    saved["envelope"].write_text(json.dumps(envelope))

    code, output = _verify(
        str(saved["envelope"]),
        "--public-key-file",
        str(saved["keys"]),
        "--hmac-key-file",
        str(saved["hmac"]),
    )

    assert code == 1
    assert "[FAIL] Ed25519 signature" in output
    assert "INVALID" in output


def test_an_edited_inference_id_no_longer_matches_the_receipt_id(saved, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Even re-signed by someone holding the keys, a receipt moved to another inference breaks
    its id (``opened_by`` and ``inference_id``). A re-signed edit of the pool itself is caught by
    the claim's audit bundle, which replays the receipt from its signed events."""
    from ledger.crypto.dsse import RECEIPT_PAYLOAD_TYPE, seal_envelope

    runtime = saved["runtime"]
    envelope = json.loads(saved["envelope"].read_text())
    document = json.loads(base64.b64decode(envelope["payload"]))
    document["inference_id"] = "inf-forged"
    resealed = seal_envelope(
        canonical_json(document), RECEIPT_PAYLOAD_TYPE, runtime.hmac_key, runtime.ledger.signing_key
    )
    saved["envelope"].write_text(json.dumps(resealed))

    code, output = _verify(str(saved["envelope"]), "--public-key-file", str(saved["keys"]))

    assert code == 1
    assert "does not match its content" in output


def test_needs_at_least_one_key(saved) -> None:  # type: ignore[no-untyped-def]
    code, output = _verify(str(saved["envelope"]))
    assert code == 2
    assert "give --hmac-key-file, --keyring or both" in output
