"""Opening receipts and committing claims through :class:`ReceiptDesk`, as the API does."""

from __future__ import annotations

import pytest

from api.services import Services
from ledger.errors import Conflict, InvalidInput
from ledger.eventlog.store import event_from_body
from ledger.gate import Binding, ClaimDraft
from ledger.receipts.claims import ClaimRecord
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_desk import CommitRequest, ReceiptRequest
from ledger.registry.source_desk import SourceDraft
from ledger.text.spans import Span

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice. Costs fell 3%."


def _open(services: Services, policy: str = "default") -> tuple[str, list[Span]]:
    version = services.sources.register(
        "src", SourceDraft(TEXT, "text/plain", "Src"), "derived", "t"
    )
    services.read_side.catch_up()
    request = ReceiptRequest(
        "q", "u", "p", policy, "long_context", {"name": "m", "version": "1"}, [],
        [s.span_id for s in version.spans], [],
    )  # fmt: skip
    receipt, _ = services.receipts.open(request, "t")
    return receipt.receipt_id, list(version.spans)


def _commit(text: str, span: Span, fingerprint: str = "f") -> CommitRequest:
    return CommitRequest(
        [ClaimDraft(text, bindings=(Binding(span.span_id),))], fingerprint=fingerprint
    )


def test_a_claim_that_says_what_its_span_says_is_accepted_and_committed(
    services: Services,
) -> None:
    receipt_id, spans = _open(services)

    result = services.receipts.commit(receipt_id, _commit(spans[0].text, spans[0]), "t", None)

    assert result.accepted
    assert [c["status"] for c in result.body["committed"]] == ["verified"]
    assert result.position == services.ledger.last_position()
    assert len(services.receipts.get(receipt_id).claims) == 1


def test_a_claim_whose_number_is_not_in_its_span_is_not_accepted(services: Services) -> None:
    receipt_id, spans = _open(services)

    result = services.receipts.commit(
        receipt_id, _commit("Revenue rose 9.9% in 2023.", spans[0]), "t", None
    )

    assert not result.accepted
    assert result.body["committed"] == []
    [rejected] = result.body["rejected"]
    assert rejected["status"] == "rejected"
    assert services.receipts.get(receipt_id).claims == []


def test_a_retried_commit_is_answered_from_its_idempotency_record(services: Services) -> None:
    receipt_id, spans = _open(services)
    first = services.receipts.commit(receipt_id, _commit(spans[0].text, spans[0]), "t", "k-1")
    position = services.ledger.last_position()

    again = services.receipts.commit(receipt_id, _commit(spans[0].text, spans[0]), "t", "k-1")

    assert again.replayed
    assert again.accepted == first.accepted
    assert again.body == first.body
    assert services.ledger.last_position() == position  # nothing written


def test_an_idempotency_key_reused_for_another_request_is_refused(services: Services) -> None:
    receipt_id, spans = _open(services)
    services.receipts.commit(receipt_id, _commit(spans[0].text, spans[0], "f-1"), "t", "k-1")

    with pytest.raises(InvalidInput) as caught:
        services.receipts.commit(receipt_id, _commit(spans[1].text, spans[1], "f-2"), "t", "k-1")

    assert caught.value.field == "Idempotency-Key"
    assert caught.value.rule == "same-request"
    assert caught.value.message == "this Idempotency-Key was used for a different request"


def test_no_receipt_opens_under_a_policy_the_expiry_desk_retired(services: Services) -> None:
    services.expiry_desk.retire_policy("policy-9", "withdrawn by counsel", "t")

    with pytest.raises(Conflict) as caught:
        _open(services, policy="policy-9")

    assert str(caught.value) == "policy 'policy-9' is retired; nothing is decided under it"


@pytest.mark.parametrize(
    ("status", "accepted"), [(201, True), (422, False)], ids=["accepted", "rejected"]
)
def test_an_idempotency_record_stored_with_an_http_status_is_read_as_accepted_or_not(
    status: int, accepted: bool
) -> None:
    record = {"key": "k-1", "fingerprint": "f", "status": status, "body": {}}
    body = {
        "originator_id": "00000000-0000-0000-0000-000000000001",
        "originator_version": 2,
        "recorded_at": "2026-01-01T00:00:00.000000Z",
        "actor": "t",
        "payload": {
            "mode": "atomic",
            "claims": [],
            "rendered_answer": None,
            "render_check": None,
            "idempotency": record,
        },
    }  # a version 1 body: no class_version, the answer's HTTP status in the record

    event = event_from_body(Receipt.ClaimsCommitted, body)

    assert event.idempotency == {  # type: ignore[attr-defined]
        "key": "k-1",
        "fingerprint": "f",
        "accepted": accepted,
        "body": {},
    }
    assert record["status"] == status  # the stored body itself is not rewritten


def test_every_stored_claim_reads_back_from_its_event_unchanged(services: Services) -> None:
    receipt_id, spans = _open(services)
    verbatim = ClaimDraft(spans[0].text, bindings=(Binding(spans[0].span_id),), client_ref="a")
    # Its span says 3%: contradicted (rejected), and no span of the pool repairs it.
    contradicted = ClaimDraft("Costs fell 4%.", bindings=(Binding(spans[2].span_id),))
    services.receipts.commit(
        receipt_id,
        CommitRequest([verbatim, contradicted], "independent", fingerprint="f", repair=True),
        "t",
        None,
    )
    services.receipts.commit(
        receipt_id, CommitRequest([contradicted], "independent", fingerprint="g"), "t", None
    )
    quarantined = services.receipts.get(receipt_id).rejected[-1]["claim_id"]
    services.repairs.repair(receipt_id, quarantined, "t")

    receipt = services.receipts.get(receipt_id)
    stored = receipt.claims + receipt.rejected

    assert len(stored) == 3
    assert sum("repairs" in claim for claim in stored) == 2
    for claim in stored:
        assert ClaimRecord.from_event(claim).to_event() == claim
