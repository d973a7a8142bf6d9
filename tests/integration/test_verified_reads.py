"""The verified read path: what it checks, what it remembers, and what it refuses."""

from __future__ import annotations

import pytest

from api.services import open_ledger
from api.settings import Settings
from ledger.errors import LedgerIntegrityError
from ledger.eventlog.envelope import open_state
from ledger.gate import Binding, ClaimDraft, GateConfig
from ledger.keys.api_keys import key_aggregate_id
from ledger.keys.signing_keys import KeyStore
from ledger.receipts.expiry_desk import ExpiryDesk
from ledger.receipts.receipt_desk import CommitRequest, ReceiptDesk, ReceiptRequest
from ledger.registry.source import Source, source_aggregate_id
from ledger.registry.source_desk import SourceDraft
from ledger.runtime import LedgerRuntime
from processes.expiry import ExpiryProcess
from projections.service import ReadSide
from tests.tamper import Tamperer, two_key_history

ALPHA = key_aggregate_id("alpha")
TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice."


@pytest.fixture
def populated(runtime: LedgerRuntime) -> LedgerRuntime:
    """Notifications 1-5: alpha v1, beta v1, alpha v2, beta v2, alpha v3."""
    two_key_history(runtime, 5)
    runtime.ledger.checks.forget()
    return runtime


def _refusal(runtime: LedgerRuntime, **read: int) -> LedgerIntegrityError:
    with pytest.raises(LedgerIntegrityError) as caught:
        list(runtime.ledger.events.get(ALPHA, **read))
    return caught.value


def test_an_unchanged_event_is_checked_once(populated: LedgerRuntime) -> None:
    checks = populated.ledger.checks
    before = checks.checked

    for _ in range(3):
        assert len(list(populated.ledger.events.get(ALPHA))) == 3

    assert checks.checked - before == 3


def test_an_event_changed_after_it_was_remembered_is_checked_again_and_refused(
    populated: LedgerRuntime,
) -> None:
    list(populated.ledger.events.get(ALPHA))
    Tamperer(populated).forge_signature(3, donor=1)

    failure = _refusal(populated)

    assert failure.reason == "bad_signature"
    assert failure.position == {
        "originator_id": str(ALPHA),
        "originator_version": 2,
        "notification_id": 3,
    }
    kid = populated.ledger.signing_key.kid
    assert str(failure) == (
        f"bad_signature at originator_id {ALPHA}, originator_version 2, notification_id 3: "
        f"signature by key {kid} does not match the event body"
    )


def test_an_event_deleted_from_the_middle_is_refused_even_when_its_neighbours_are_remembered(
    populated: LedgerRuntime,
) -> None:
    list(populated.ledger.events.get(ALPHA))
    Tamperer(populated).delete(3)  # alpha v2

    failure = _refusal(populated)

    assert failure.reason == "missing_event"
    assert failure.detail == "expected version 2 of the aggregate, found 3"
    assert failure.position["notification_id"] == 5


def test_a_read_after_a_snapshot_links_its_first_event_to_the_verified_predecessor(
    populated: LedgerRuntime,
) -> None:
    Tamperer(populated).forge_signature(3, donor=1)  # alpha v2, not read below

    failure = _refusal(populated, gt=2)

    assert failure.reason == "bad_signature"
    assert failure.position["originator_version"] == 2


def test_a_read_after_a_snapshot_refuses_a_missing_first_event(
    populated: LedgerRuntime,
) -> None:
    Tamperer(populated).delete(3)  # alpha v2

    failure = _refusal(populated, gt=1)

    assert failure.reason == "missing_event"
    assert failure.detail == "expected version 2 of the aggregate, found 3"


def test_an_event_moved_to_another_row_is_refused(populated: LedgerRuntime) -> None:
    tamper = Tamperer(populated)
    tamper.set_state(3, tamper.state(5))  # alpha v3's state in alpha v2's row

    failure = _refusal(populated)

    assert failure.reason == "row_mismatch"
    assert failure.position["originator_version"] == 2


def test_a_key_rotated_by_another_process_verifies_after_the_keyring_is_read_again(
    settings: Settings, runtime: LedgerRuntime
) -> None:
    runtime.api_keys.issue("alpha", ["read"], "test:suite")
    KeyStore(settings.keys_dir, settings.signing_key_file).rotate()
    rotated = open_ledger(settings)
    try:
        rotated.api_keys.revoke("alpha", "rotated", "test:suite")
    finally:
        rotated.close()

    events = list(runtime.ledger.events.get(ALPHA))

    assert [type(event).__name__ for event in events] == ["Issued", "Revoked"]
    assert rotated.ledger.signing_key.kid in runtime.ledger.checks.keyring


def test_an_event_this_process_wrote_is_not_checked_again_when_read_back(
    runtime: LedgerRuntime,
) -> None:
    before = runtime.ledger.checks.checked
    secret = runtime.api_keys.issue("alpha", ["read"], "test:suite")

    assert runtime.api_keys.authenticate(secret) is not None
    assert runtime.ledger.checks.checked == before


def test_a_withdrawal_inserted_with_a_bad_signature_expires_no_receipt(
    runtime: LedgerRuntime,
) -> None:
    read_side = ReadSide(runtime.ledger, runtime.database)
    try:
        registered = runtime.sources.register(
            "src", SourceDraft(TEXT, "text/plain", "Src"), "derived", "t"
        )
        read_side.catch_up()
        span = registered.spans[0]
        desk = ReceiptDesk(
            runtime.ledger,
            read_side.span_resolver,
            GateConfig(),
            ExpiryDesk(runtime.ledger),
            runtime.policies,
            runtime.components,
        )
        receipt, _ = desk.open(
            ReceiptRequest(
                "q",
                "u",
                "p",
                "default",
                "long_context",
                {"name": "m", "version": "1"},
                [],
                [span.span_id],
                [],
            ),
            "t",
        )
        claim = ClaimDraft(span.text, bindings=(Binding(span.span_id),))
        desk.commit(receipt.receipt_id, CommitRequest([claim], fingerprint="f"), "t", None)
        process = ExpiryProcess(read_side, ExpiryDesk(read_side.ledger))
        process.run_once()
        source = source_aggregate_id("src")
        [head] = runtime.ledger.recorder.select_events(source, desc=True, limit=1)
        Tamperer(runtime).forge(
            source,
            head.originator_version + 1,
            Source.Withdrawn.TOPIC,
            {"reason": "forged"},
            kid=runtime.ledger.signing_key.kid,
            prev=open_state(head.state).event_hash,
        )

        with pytest.raises(LedgerIntegrityError) as caught:
            process.run_once()

        assert caught.value.reason == "bad_signature"
        assert caught.value.position["originator_version"] == head.originator_version + 1
        assert process.expired == 0
        assert desk.get(receipt.receipt_id).expiries == []
    finally:
        read_side.close()


def test_an_append_after_a_forgotten_head_refuses_a_predecessor_edited_since_it_was_read(
    populated: LedgerRuntime,
) -> None:
    """The chain link a new event signs names its predecessor's hash: when the store has
    forgotten the aggregate's head and reads it back, that row is verified first, so an edit
    made between the aggregate's read and its append is never endorsed by our signature."""
    ledger = populated.ledger
    alpha = ledger.repository.get(ALPHA)  # verified: alpha v1-v3
    ledger.events._heads.clear()  # the head cache has moved on (as after 20,000 other writes)
    Tamperer(populated).edit_body(5, actor="cli:forger")  # alpha v3
    alpha.revoke("after the edit", "test:suite")

    with pytest.raises(LedgerIntegrityError) as caught:
        ledger.commit(alpha)

    assert caught.value.reason == "bad_signature"
    assert caught.value.position["originator_version"] == 3
    assert [e.originator_version for e in ledger.recorder.select_events(ALPHA)] == [1, 2, 3]
