"""`verify` against a log edited behind the ledger's back: each tampering is named."""

from __future__ import annotations

import base64
import json

import pytest

from ledger.audit.log_verify import FailureReason, verify_log
from ledger.crypto.canonical import canonical_json
from ledger.crypto.signing import Keyring, SigningKey
from ledger.eventlog.envelope import open_state
from ledger.runtime import LedgerRuntime
from tests.tamper import Tamperer, two_key_history


@pytest.fixture
def populated(runtime: LedgerRuntime) -> LedgerRuntime:
    """Notifications 1-5: alpha v1, beta v1, alpha v2, beta v2, alpha v3."""
    two_key_history(runtime, 5)
    return runtime


def _verify(runtime: LedgerRuntime, keyring: Keyring | None = None):  # type: ignore[no-untyped-def]
    return verify_log(runtime.ledger.recorder, keyring or runtime.keyring)


def _rewrite(runtime: LedgerRuntime, notification_id: int, change) -> None:  # type: ignore[no-untyped-def]
    tamper = Tamperer(runtime)
    document = json.loads(tamper.state(notification_id))
    change(document)
    tamper.set_state(notification_id, canonical_json(document))


def test_an_intact_log_verifies(populated: LedgerRuntime) -> None:
    report = _verify(populated)
    assert report.ok
    assert report.events == 5
    assert report.aggregates == 2
    assert report.keys_used == {populated.ledger.signing_key.kid: 5}


def test_detects_a_flipped_byte_in_stored_state(populated: LedgerRuntime) -> None:
    tamper = Tamperer(populated)
    state = bytearray(tamper.state(3))
    offset = state.index(b'"reason":"one"') + len(b'"reason":"')
    state[offset] ^= 0x01  # 'o' -> 'n'
    tamper.set_state(3, bytes(state))

    failure = _verify(populated).failure

    assert failure is not None
    assert (failure.notification_id, failure.reason) == (3, FailureReason.BAD_SIGNATURE)
    assert failure.originator_version == 2


def test_detects_a_deleted_event(populated: LedgerRuntime) -> None:
    Tamperer(populated).delete(3)  # alpha v2

    failure = _verify(populated).failure

    assert failure is not None
    assert (failure.notification_id, failure.reason) == (5, FailureReason.MISSING_EVENT)
    assert "expected version 2" in failure.detail


def test_detects_two_events_payloads_swapped(populated: LedgerRuntime) -> None:
    tamper = Tamperer(populated)
    first, second = json.loads(tamper.state(3)), json.loads(tamper.state(4))
    first["body"]["payload"], second["body"]["payload"] = (
        second["body"]["payload"],
        first["body"]["payload"],
    )
    tamper.set_state(3, canonical_json(first))
    tamper.set_state(4, canonical_json(second))

    failure = _verify(populated).failure

    assert failure is not None
    assert (failure.notification_id, failure.reason) == (3, FailureReason.BAD_SIGNATURE)


def test_detects_an_event_resigned_with_a_foreign_key(populated: LedgerRuntime) -> None:
    intruder = SigningKey.generate()

    def resign(document: dict) -> None:  # type: ignore[type-arg]
        body_bytes = canonical_json(document["body"])
        document["signature"]["kid"] = intruder.kid
        document["signature"]["sig"] = base64.b64encode(intruder.sign(body_bytes)).decode()

    _rewrite(populated, 2, resign)

    failure = _verify(populated).failure

    assert failure is not None
    assert (failure.notification_id, failure.reason) == (2, FailureReason.UNKNOWN_KEY)
    assert intruder.kid in failure.detail


def test_detects_a_foreign_signature_under_the_ledgers_key_id(populated: LedgerRuntime) -> None:
    intruder = SigningKey.generate()

    def resign(document: dict) -> None:  # type: ignore[type-arg]
        document["body"]["actor"] = "key:intruder"
        body_bytes = canonical_json(document["body"])
        document["signature"]["sig"] = base64.b64encode(intruder.sign(body_bytes)).decode()

    _rewrite(populated, 4, resign)

    failure = _verify(populated).failure

    assert failure is not None
    assert (failure.notification_id, failure.reason) == (4, FailureReason.BAD_SIGNATURE)


def test_detects_an_altered_chain_link(populated: LedgerRuntime) -> None:
    def relink(document: dict) -> None:  # type: ignore[type-arg]
        document["body"]["prev"] = "sha256:" + "0" * 64

    _rewrite(populated, 5, relink)

    failure = _verify(populated).failure

    assert failure is not None
    assert (failure.notification_id, failure.reason) == (5, FailureReason.BROKEN_CHAIN)
    assert "sha256:" + "0" * 64 in failure.detail


def test_detects_a_body_moved_to_another_row(populated: LedgerRuntime) -> None:
    tamper = Tamperer(populated)
    tamper.set_state(4, tamper.state(3))

    failure = _verify(populated).failure

    assert failure is not None
    assert (failure.notification_id, failure.reason) == (4, FailureReason.ROW_MISMATCH)


def test_detects_state_that_is_not_an_envelope(populated: LedgerRuntime) -> None:
    Tamperer(populated).set_state(1, b"not json")

    failure = _verify(populated).failure

    assert failure is not None
    assert (failure.notification_id, failure.reason) == (1, FailureReason.MALFORMED_EVENT)


def test_an_untrusted_keyring_rejects_a_genuine_log(populated: LedgerRuntime) -> None:
    stranger = SigningKey.generate()
    keyring = Keyring.from_json(
        {
            "keys": [
                {
                    "kid": stranger.kid,
                    "public_key": base64.b64encode(stranger.public_key).decode(),
                    "status": "active",
                }
            ]
        }
    )

    failure = _verify(populated, keyring).failure

    assert failure is not None
    assert (failure.notification_id, failure.reason) == (1, FailureReason.UNKNOWN_KEY)


def test_sealed_state_is_itself_canonical(populated: LedgerRuntime) -> None:
    for notification in populated.ledger.read_log(0, 10):
        assert canonical_json(json.loads(notification.state)) == notification.state
        assert open_state(notification.state).to_state() == notification.state


def test_a_body_re_encoded_in_place_fails_its_signature(populated: LedgerRuntime) -> None:
    tamper = Tamperer(populated)
    state = tamper.state(3)
    tamper.set_state(3, state.replace(b'{"body":{', b'{"body":{ ', 1))

    failure = _verify(populated).failure

    assert failure is not None
    assert (failure.notification_id, failure.reason) == (3, FailureReason.BAD_SIGNATURE)


def test_the_report_counts_only_the_events_before_a_bad_signature(
    populated: LedgerRuntime, signature_mode: str
) -> None:
    Tamperer(populated).forge_signature(4)

    report = _verify(populated)

    assert report.failure is not None
    assert (report.failure.notification_id, report.failure.reason) == (
        4,
        FailureReason.BAD_SIGNATURE,
    )
    assert report.events == 3
    assert report.last_notification_id == 3
    assert report.keys_used == {populated.ledger.signing_key.kid: 3}


def test_a_bad_signature_is_named_before_a_later_gap(
    populated: LedgerRuntime, signature_mode: str
) -> None:
    Tamperer(populated).forge_signature(2)
    Tamperer(populated).delete(3)  # alpha v2: alpha v3 (notification 5) is then out of order

    report = _verify(populated)

    assert report.failure is not None
    assert (report.failure.notification_id, report.failure.reason) == (
        2,
        FailureReason.BAD_SIGNATURE,
    )
    assert report.events == 1


def test_an_intact_log_verifies_with_workers_too(
    populated: LedgerRuntime, signature_mode: str
) -> None:
    report = _verify(populated)
    assert report.ok
    assert (report.events, report.last_notification_id) == (5, 5)
