"""Signing keys on disk, the keyring, rotation and the two Ed25519 verifiers."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, generate_private_key
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.crypto.signing import Keyring, SigningKey, key_id_for, verify_with_cryptography
from ledger.errors import KeyringError
from ledger.keys.signing_keys import KeyStore

_KEY = SigningKey.generate()


def test_first_start_generates_a_private_key_readable_by_its_owner_only(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys")
    signing_key, keyring = store.open()

    mode = stat.S_IMODE(store.signing_key_path.stat().st_mode)
    assert mode == 0o600
    assert list(keyring.records) == [signing_key.kid]
    assert keyring.records[signing_key.kid].status == "active"
    assert b"PRIVATE" not in store.keyring_path.read_bytes()


def test_reopening_keeps_the_same_key(tmp_path: Path) -> None:
    first, _ = KeyStore(tmp_path / "keys").open()
    second, _ = KeyStore(tmp_path / "keys").open()
    assert first.kid == second.kid


def test_rotation_retires_the_old_key_which_still_verifies(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys")
    old, _ = store.open()
    signature = old.sign(b"event")

    new, keyring = store.rotate()

    assert new.kid != old.kid
    assert keyring.records[old.kid].status == "retired"
    assert keyring.records[old.kid].retired_at
    assert keyring.records[new.kid].status == "active"
    assert Keyring.load(store.keyring_path).verify(old.kid, b"event", signature)
    assert b"PRIVATE" in store.signing_key_path.read_bytes()
    assert SigningKey.from_pem(store.signing_key_path.read_bytes()).kid == new.kid


def test_a_supplied_key_file_is_used_and_a_new_one_retires_the_old(tmp_path: Path) -> None:
    key_file = tmp_path / "secret" / "ledger.pem"
    key_file.parent.mkdir()
    first = SigningKey.generate()
    key_file.write_bytes(first.to_pem())
    keys_dir = tmp_path / "keys"

    opened, _ = KeyStore(keys_dir, key_file).open()
    assert opened.kid == first.kid
    assert not (keys_dir / "signing.pem").exists()

    second = SigningKey.generate()
    key_file.write_bytes(second.to_pem())
    _, keyring = KeyStore(keys_dir, key_file).open()
    assert keyring.records[first.kid].status == "retired"
    assert keyring.records[second.kid].status == "active"


def test_a_missing_supplied_key_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(KeyringError, match="does not exist"):
        KeyStore(tmp_path / "keys", tmp_path / "absent.pem").open()


def test_rotation_refuses_a_supplied_key(tmp_path: Path) -> None:
    key_file = tmp_path / "ledger.pem"
    key_file.write_bytes(SigningKey.generate().to_pem())
    with pytest.raises(KeyringError, match="replacing that file"):
        KeyStore(tmp_path / "keys", key_file).rotate()


def test_refuses_a_key_that_is_not_ed25519(tmp_path: Path) -> None:
    pem = generate_private_key(SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    with pytest.raises(KeyringError, match="must be an Ed25519 private key"):
        SigningKey.from_pem(pem)


def test_refuses_a_keyring_entry_whose_id_does_not_match_its_key() -> None:
    entry = _KEY.public_key
    document = {"keys": [{"kid": "0" * 16, "public_key": base64.b64encode(entry).decode()}]}
    with pytest.raises(KeyringError, match="key id does not match its public key"):
        Keyring.from_json(document)


def test_keyring_round_trips_through_json() -> None:
    keyring = Keyring.from_json(
        json.loads(
            json.dumps(
                {
                    "keys": [
                        {
                            "kid": _KEY.kid,
                            "public_key": base64.b64encode(_KEY.public_key).decode(),
                            "status": "active",
                            "created_at": "2026-01-01T00:00:00Z",
                        }
                    ]
                }
            )
        )
    )
    assert Keyring.from_json(keyring.to_json()).records == keyring.records
    assert key_id_for(_KEY.public_key) == _KEY.kid


def test_repr_never_shows_key_material() -> None:
    assert repr(_KEY) == f"SigningKey(kid={_KEY.kid!r})"


@settings(max_examples=50)
@given(message=st.binary(max_size=200), flip=st.integers(min_value=0, max_value=63))
def test_libsodium_and_openssl_verifiers_agree(message: bytes, flip: int) -> None:
    keyring = Keyring.from_json(
        {
            "keys": [
                {
                    "kid": _KEY.kid,
                    "public_key": base64.b64encode(_KEY.public_key).decode(),
                    "status": "active",
                }
            ]
        }
    )
    good = _KEY.sign(message)
    bad = bytearray(good)
    bad[flip] ^= 0x80
    for signature in (good, bytes(bad)):
        assert keyring.verify(_KEY.kid, message, signature) == verify_with_cryptography(
            _KEY.public_key, message, signature
        )
    assert keyring.verify(_KEY.kid, message, good)
    assert not keyring.verify(_KEY.kid, message, bytes(bad))
