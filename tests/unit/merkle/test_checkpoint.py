"""C2SP tlog-checkpoint bodies in C2SP signed notes: format, key hashes, tampering."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.crypto.checkpoint import (
    Checkpoint,
    NoteSignature,
    key_hash,
    parse_note,
    parse_vkey,
    sign_note,
    verify_note,
    vkey,
)
from ledger.crypto.merkle import leaf_hash, root_hash
from ledger.crypto.signing import SigningKey, verify_with_cryptography
from ledger.errors import CheckpointError, LedgerError

# The example key and note of golang.org/x/mod/sumdb/note, the C2SP signed-note reference.
GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_TEXT = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
)
GO_SIGNATURE_LINE = (
    "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdng"
    "otpRZb6KE6RyyBwJnAM=\n"
)

ORIGIN = "ledger.example/log"
KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
OTHER_KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33))))
ROOT = root_hash([leaf_hash(f"entry {i}".encode()) for i in range(9)])
CHECKPOINT = Checkpoint(ORIGIN, 9, ROOT)


def _go_key() -> SigningKey:
    material = base64.b64decode(GO_SKEY.split("+", 4)[4])
    assert material[0] == 1
    return SigningKey(Ed25519PrivateKey.from_private_bytes(material[1:]))


def _signed_body(body: str, key: SigningKey = KEY, name: str = ORIGIN) -> str:
    blob = key_hash(name, key.public_key) + key.sign(body.encode())
    return f"{body}\n\u2014 {name} {base64.b64encode(blob).decode()}\n"


def test_key_hash_and_verifier_key_match_the_go_reference_key() -> None:
    key = _go_key()
    assert key_hash("PeterNeumann", key.public_key).hex() == "c74f20a3"
    assert vkey("PeterNeumann", key.public_key) == GO_VKEY
    assert parse_vkey(GO_VKEY) == ("PeterNeumann", key.public_key)


def test_a_signature_line_matches_the_go_reference_note_byte_for_byte() -> None:
    key = _go_key()
    blob = key_hash("PeterNeumann", key.public_key) + key.sign(GO_TEXT.encode())
    assert f"\u2014 PeterNeumann {base64.b64encode(blob).decode()}\n" == GO_SIGNATURE_LINE


def test_key_hash_is_sha256_of_name_newline_algorithm_byte_and_key() -> None:
    expected = hashlib.sha256(ORIGIN.encode() + b"\n\x01" + KEY.public_key).digest()[:4]
    assert key_hash(ORIGIN, KEY.public_key) == expected


def test_checkpoint_body_is_origin_size_and_base64_root_lines() -> None:
    body = Checkpoint("example.com/log", 5, bytes(range(32))).body()
    assert body == b"example.com/log\n5\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n"


def test_signed_note_is_body_blank_line_and_one_em_dash_signature_line() -> None:
    note = sign_note(CHECKPOINT, ORIGIN, KEY)
    body = CHECKPOINT.body()
    blob = key_hash(ORIGIN, KEY.public_key) + KEY.sign(body)
    signature_line = f"\u2014 {ORIGIN} {base64.b64encode(blob).decode()}\n"
    assert note == body.decode() + "\n" + signature_line
    assert note.encode().count("\u2014 ".encode()) == 1
    assert verify_with_cryptography(KEY.public_key, body, blob[4:])


def test_a_signed_checkpoint_verifies_and_round_trips() -> None:
    note = sign_note(CHECKPOINT, ORIGIN, KEY)
    assert verify_note(note, ORIGIN, KEY.public_key) == CHECKPOINT
    assert verify_note(note, ORIGIN, KEY.public_key, origin=ORIGIN) == CHECKPOINT
    checkpoint, signatures = parse_note(note)
    assert checkpoint == CHECKPOINT
    assert signatures == [
        NoteSignature(ORIGIN, key_hash(ORIGIN, KEY.public_key), KEY.sign(CHECKPOINT.body()))
    ]


def test_signatures_by_unknown_keys_are_ignored() -> None:
    note = sign_note(CHECKPOINT, ORIGIN, KEY)
    cosigned = note + sign_note(CHECKPOINT, "witness.example", OTHER_KEY).split("\n\n")[1]
    assert verify_note(cosigned, ORIGIN, KEY.public_key) == CHECKPOINT
    assert verify_note(cosigned, "witness.example", OTHER_KEY.public_key) == CHECKPOINT


def test_an_empty_tree_checkpoint_verifies() -> None:
    empty = Checkpoint(ORIGIN, 0, root_hash([]))
    assert verify_note(sign_note(empty, ORIGIN, KEY), ORIGIN, KEY.public_key) == empty


def _tamper(old: str, new: str) -> str:
    note = sign_note(CHECKPOINT, ORIGIN, KEY)
    assert old in note
    return note.replace(old, new, 1)


TAMPERED = [
    pytest.param(
        _tamper("\n9\n", "\n10\n"), "does not verify over the checkpoint body", id="edited-size"
    ),
    pytest.param(
        _tamper(
            base64.b64encode(ROOT).decode(), base64.b64encode(root_hash([leaf_hash(b"x")])).decode()
        ),
        "does not verify over the checkpoint body",
        id="edited-root",
    ),
    pytest.param(
        sign_note(CHECKPOINT, ORIGIN, OTHER_KEY),
        f"note has no signature by {ORIGIN} ({key_hash(ORIGIN, KEY.public_key).hex()}); "
        f"found: {ORIGIN} ({key_hash(ORIGIN, OTHER_KEY.public_key).hex()})",
        id="signature-by-another-key",
    ),
    pytest.param(
        _tamper("\n\n\u2014", "\n\u2014"),
        "no blank line between the checkpoint and its signatures",
        id="missing-blank-line",
    ),
    pytest.param(
        sign_note(CHECKPOINT, "someone.else/log", KEY),
        f"note has no signature by {ORIGIN} (",
        id="signature-line-for-another-key-name-only",
    ),
    pytest.param(
        _signed_body(f"{ORIGIN}\n09\n{base64.b64encode(ROOT).decode()}\n"),
        "tree size '09' is not canonical",
        id="non-canonical-size-leading-zero",
    ),
    pytest.param(
        _signed_body(f"{ORIGIN}\n+9\n{base64.b64encode(ROOT).decode()}\n"),
        "tree size '+9' is not canonical",
        id="non-canonical-size-sign",
    ),
    pytest.param(
        _signed_body(f"{ORIGIN}\n\u0669\n{base64.b64encode(ROOT).decode()}\n"),
        "is not canonical: expected ASCII decimal digits",
        id="non-canonical-size-arabic-indic-digit",
    ),
    pytest.param(
        _signed_body(f"ledger example\n9\n{base64.b64encode(ROOT).decode()}\n"),
        "origin 'ledger example' contains ' '",
        id="origin-with-a-space",
    ),
    pytest.param(
        _signed_body(f"{ORIGIN}\n9\n{base64.b64encode(ROOT).decode().rstrip('=')}\n"),
        "is not base64",
        id="root-without-padding",
    ),
    pytest.param(
        _signed_body(f"{ORIGIN}\n9\n{base64.b64encode(ROOT[:20]).decode()}\n"),
        "root hash is 20 bytes, expected 32",
        id="short-root",
    ),
    pytest.param(
        _signed_body(f"{ORIGIN}\n9\n{base64.b64encode(ROOT).decode()}\nextension\n"),
        "checkpoint has 4 lines, expected 3",
        id="extension-line",
    ),
    pytest.param(
        _tamper("\u2014 ", "-- "), "does not start with an em dash", id="hyphens-for-em-dash"
    ),
    pytest.param(
        sign_note(CHECKPOINT, ORIGIN, KEY)[:-1], "does not end with a newline", id="truncated"
    ),
    pytest.param(
        _tamper("\n9\n", "\n9\r\n"), "control character other than newline", id="carriage-return"
    ),
]


@pytest.mark.parametrize(("note", "message"), TAMPERED)
def test_tampered_note_is_rejected(note: str, message: str) -> None:
    with pytest.raises(CheckpointError) as caught:
        verify_note(note, ORIGIN, KEY.public_key)
    assert message in str(caught.value)


def test_a_checkpoint_from_another_log_is_rejected_when_the_origin_is_given() -> None:
    other = Checkpoint("other.example/log", 9, ROOT)
    note = sign_note(other, ORIGIN, KEY)
    with pytest.raises(CheckpointError, match=re.escape("origin is 'other.example/log', expected")):
        verify_note(note, ORIGIN, KEY.public_key, origin=ORIGIN)


@pytest.mark.parametrize(
    ("origin", "size", "root", "message"),
    [
        pytest.param("", 1, ROOT, "origin is empty", id="empty-origin"),
        pytest.param("a+b", 1, ROOT, "contains '+'", id="plus-in-origin"),
        pytest.param(ORIGIN, -1, ROOT, "outside 0..2**64-1", id="negative-size"),
        pytest.param(ORIGIN, 2**64, ROOT, "outside 0..2**64-1", id="size-over-64-bits"),
        pytest.param(ORIGIN, 1, ROOT[:31], "root hash must be 32 bytes", id="short-root"),
    ],
)
def test_an_invalid_checkpoint_cannot_be_made(
    origin: str, size: int, root: bytes, message: str
) -> None:
    with pytest.raises(CheckpointError, match=re.escape(message)):
        Checkpoint(origin, size, root)


def test_a_key_name_with_a_space_cannot_sign() -> None:
    with pytest.raises(CheckpointError, match="key name 'my log' contains ' '"):
        sign_note(CHECKPOINT, "my log", KEY)


def test_a_verifier_key_with_a_wrong_key_hash_is_rejected() -> None:
    with pytest.raises(CheckpointError, match="key hash is 'c74f20a4', expected c74f20a3"):
        parse_vkey(GO_VKEY.replace("c74f20a3", "c74f20a4"))


def test_a_public_key_of_the_wrong_length_is_rejected() -> None:
    note = sign_note(CHECKPOINT, ORIGIN, KEY)
    with pytest.raises(CheckpointError, match="an Ed25519 public key is 32 bytes"):
        verify_note(note, ORIGIN, KEY.public_key[:31])


def test_the_error_belongs_to_the_ledger_hierarchy() -> None:
    assert issubclass(CheckpointError, LedgerError)
