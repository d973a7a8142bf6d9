"""DSSE pre-authentication encoding and envelope verification."""

from __future__ import annotations

import base64
import copy
import stat
from pathlib import Path

import pytest

from ledger.crypto.dsse import pae, seal_envelope, verify_envelope
from ledger.crypto.hmac_keys import HmacKey, open_hmac_key
from ledger.crypto.signing import Keyring, PublicKeyRecord, SigningKey
from ledger.errors import KeyringError

KIND = "application/vnd.provledger.receipt+json"
SIGNER = SigningKey.generate()
KEYRING = Keyring([PublicKeyRecord(SIGNER.kid, SIGNER.public_key, "active", "")])
HMAC = HmacKey(b"k" * 32)


def test_pae_matches_the_dsse_specification_example() -> None:
    assert pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )


def test_a_sealed_envelope_verifies_with_either_key() -> None:
    envelope = seal_envelope(b'{"a":1}', KIND, HMAC, SIGNER)

    both = verify_envelope(envelope, KIND, HMAC, KEYRING)
    public_only = verify_envelope(envelope, KIND, None, KEYRING)
    secret_only = verify_envelope(envelope, KIND, HMAC, None)

    assert both.valid
    assert public_only.valid
    assert secret_only.valid
    assert [s["valid"] for s in public_only.signatures] == [False, True]
    assert public_only.signatures[0]["reason"] == "unknown key"


def test_an_edited_payload_fails_every_signature() -> None:
    envelope = seal_envelope(b'{"a":1}', KIND, HMAC, SIGNER)
    envelope["payload"] = base64.b64encode(b'{"a":2}').decode()

    check = verify_envelope(envelope, KIND, HMAC, KEYRING)

    assert not check.valid
    assert any("HMAC-SHA256 signature" in r and "does not match" in r for r in check.reasons)
    assert any("Ed25519 signature" in r for r in check.reasons)


def test_a_wrong_hmac_key_is_unknown_not_valid() -> None:
    envelope = seal_envelope(b"{}", KIND, HMAC, SIGNER)
    check = verify_envelope(envelope, KIND, HmacKey(b"x" * 32), None)
    assert not check.valid
    assert check.reasons == ["no signature could be verified with the keys given"]


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda e: e.update(payloadType="text/plain"), "payloadType is 'text/plain'"),
        (lambda e: e.update(payload="***"), "payload is not base64"),
        (lambda e: e.update(signatures=[]), "envelope has no signatures"),
    ],
    ids=["wrong-type", "payload-not-base64", "no-signatures"],
)
def test_malformed_envelopes_are_refused(mutate, reason: str) -> None:  # type: ignore[no-untyped-def]
    envelope = copy.deepcopy(seal_envelope(b"{}", KIND, HMAC, SIGNER))
    mutate(envelope)
    check = verify_envelope(envelope, KIND, HMAC, KEYRING)
    assert not check.valid
    assert check.reasons[0].startswith(reason)


def test_hmac_key_is_generated_owner_only_and_reloaded(tmp_path: Path) -> None:
    key = open_hmac_key(tmp_path / "keys")
    path = tmp_path / "keys" / "receipt-hmac.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert open_hmac_key(tmp_path / "keys") == key
    assert key.kid.startswith("hmac:")
    assert len(key.kid) == 21
    assert key.secret.hex() not in repr(key)


def test_a_short_hmac_key_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "short.key"
    path.write_text("abcd")
    with pytest.raises(KeyringError, match="at least 32 bytes"):
        open_hmac_key(tmp_path, path)
