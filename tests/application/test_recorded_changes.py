"""Retirements and declarations racing an opening, and a read model that names the wrong
receipt: the receipt desk and the expiry process, driven without HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import insert

from api.services import Services
from ledger.access.policy_desk import POLICY_TOPICS
from ledger.errors import ConflictingRequest
from ledger.receipts.component_desk import COMPONENT_TOPICS
from ledger.receipts.receipt_desk import ReceiptRequest
from projections.schema import receipt_parts


def _request(**extra: Any) -> ReceiptRequest:
    fields: dict[str, Any] = {
        "request": "q",
        "actor": "u",
        "purpose": "p",
        "policy_version": None,
        "route": "long_context",
        "model": {"name": "m", "version": "1"},
        "tools": [],
        "evidence": [],
        "excluded": [],
        **extra,
    }
    return ReceiptRequest(**fields)


@pytest.mark.parametrize(
    ("change", "extra", "reason"),
    [
        ("model", {}, "model_retired"),
        ("tool", {"tools": ["search@2"]}, "tool_retired"),
        (
            "assembly",
            {"context_assembly": {"name": "rag", "version": "1"}},
            "context_assembly_changed",
        ),
    ],
)
def test_a_change_committed_between_an_openings_check_and_its_commit_expires_the_receipt(
    services: Services,
    monkeypatch: pytest.MonkeyPatch,
    change: str,
    extra: dict[str, Any],
    reason: str,
) -> None:
    desk = services.receipts.components
    checked = desk.refuse_opening
    positions: list[int] = []

    def check_then_change(context: dict[str, Any]) -> None:
        checked(context)  # the opening passes its check, then the change commits
        if change == "model":
            positions.append(desk.retire("model", "m", "1", "unsafe", "t"))
        elif change == "tool":
            positions.append(desk.retire("tool", "search", "2", "bug", "t"))
        else:
            positions.append(desk.declare("rag", "2", "new order", "t"))
        services.expiry.settle(positions[0])  # the process runs before the receipt exists

    monkeypatch.setattr(desk, "refuse_opening", check_then_change)

    receipt, created = services.receipts.open(_request(**extra), "key:app")

    assert created
    expiries = receipt.expiries
    assert [(e["reason"], e["cause"]) for e in expiries] == [(reason, f"n{positions[0]}")]
    services.expiry.run_once()  # the process meets the same cause later: recorded once
    assert len(services.receipts.get(receipt.receipt_id).expiries) == 1


def test_an_opening_with_a_retired_model_is_refused_before_anything_is_written(
    services: Services,
) -> None:
    services.runtime.components.retire("model", "m", "1", "unsafe", "t")
    before = services.ledger.last_position()

    with pytest.raises(ConflictingRequest) as caught:
        services.receipts.open(_request(), "key:app")

    assert (caught.value.field, caught.value.rule) == ("model.version", "not-retired")
    assert services.ledger.last_position() == before


def test_a_read_model_row_naming_a_receipt_that_never_recorded_the_model_expires_nothing(
    services: Services,
) -> None:
    other, _ = services.receipts.open(_request(model={"name": "m", "version": "2"}), "key:app")
    services.read_side.catch_up()
    with services.read_side.db.sync.begin() as conn:  # an edited read model
        conn.execute(
            insert(receipt_parts),
            {
                "receipt_id": other.receipt_id,
                "ord": 9,
                "kind": "model",
                "name": "m",
                "version": "1",
            },
        )

    position = services.runtime.components.retire("model", "m", "1", "unsafe", "t")
    services.expiry.settle(position)

    assert services.receipts.get(other.receipt_id).expiries == []
    assert services.expiry.expired_by(position) == 0


def test_an_opening_reads_only_the_policy_and_component_events_written_since_the_last_look(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    services.runtime.components.retire("model", "old", "1", "unsafe", "t")
    for n in range(3):  # events of other kinds after the last policy and component events
        end = services.ledger.last_position()  # where the last opening's looks begin
        services.receipts.open(_request(request=f"q{n}"), "key:app")
    looked: list[tuple[tuple[str, ...], int]] = []
    follow = services.ledger.notifications

    def spy(topics: Any, after: int = 0) -> Any:
        looked.append((tuple(topics), after))
        return follow(topics, after)

    monkeypatch.setattr(services.ledger, "notifications", spy)

    services.receipts.open(_request(request="again"), "key:app")

    assert {topics for topics, _ in looked} == {COMPONENT_TOPICS, POLICY_TOPICS}
    # from where the last opening looked, never from the last policy or component event
    assert min(after for _, after in looked) >= end
