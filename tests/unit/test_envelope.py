"""The signed event envelope: sealing, parsing and its canonical stored form."""

from __future__ import annotations

import json

import pytest

from ledger.crypto.canonical import canonical_json
from ledger.crypto.signing import SigningKey, verify_with_cryptography
from ledger.errors import MalformedEvent
from ledger.eventlog.envelope import format_hash, open_state, parse_hash, seal

KEY = SigningKey.generate()


def _sealed(prev: bytes | None = None):  # type: ignore[no-untyped-def]
    return seal(
        KEY,
        originator_id="00000000-0000-4000-8000-000000000001",
        originator_version=2 if prev else 1,
        topic="provledger.test.happened",
        recorded_at="2026-11-29T12:00:00.000001Z",
        actor="key:app",
        payload={"text": "Zoë said “hello”", "n": 3},
        prev=prev,
    )


def test_stored_state_parses_back_to_the_same_signed_event() -> None:
    sealed = _sealed(prev=b"\x01" * 32)

    reopened = open_state(sealed.to_state())

    assert reopened == sealed
    assert reopened.prev_hash == b"\x01" * 32
    assert reopened.event_hash == sealed.event_hash


def test_stored_state_is_rfc8785_canonical() -> None:
    state = _sealed().to_state()
    assert canonical_json(json.loads(state)) == state


def test_signature_covers_the_canonical_body() -> None:
    sealed = _sealed()
    assert verify_with_cryptography(KEY.public_key, canonical_json(sealed.body), sealed.signature)


@pytest.mark.parametrize(
    ("state", "message"),
    [
        (b"\xff\xfe", "not JSON"),
        (b"[]", "not a JSON object"),
        (b'{"body":{}}', "no well-formed body"),
    ],
)
def test_refuses_state_that_is_not_an_envelope(state: bytes, message: str) -> None:
    with pytest.raises(MalformedEvent, match=message):
        open_state(state)


def test_refuses_an_unknown_format_version() -> None:
    document = json.loads(_sealed().to_state())
    document["body"]["format"] = "provledger.event/v9"
    with pytest.raises(MalformedEvent, match="unknown event format"):
        open_state(canonical_json(document))


def test_refuses_a_signature_that_is_not_base64() -> None:
    document = json.loads(_sealed().to_state())
    document["signature"]["sig"] = "***"
    with pytest.raises(MalformedEvent, match="not base64"):
        open_state(canonical_json(document))


def test_hash_text_round_trips_and_rejects_junk() -> None:
    digest = bytes(range(32))
    assert parse_hash(format_hash(digest)) == digest
    with pytest.raises(MalformedEvent, match="not a sha256 hash"):
        parse_hash("md5:abc")


@pytest.mark.parametrize("junk", [False, 7, None, ["sha256:"]])
def test_a_hash_that_is_not_text_is_malformed_not_a_crash(junk: object) -> None:
    with pytest.raises(MalformedEvent, match="not a sha256 hash"):
        parse_hash(junk)  # type: ignore[arg-type]
