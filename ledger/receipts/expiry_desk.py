"""Expiry and correction commands: expire a receipt for a cause, retire a policy.

Expiry is idempotent per cause (see :meth:`ledger.receipts.receipt.Receipt.expire`): a process that
delivers the same cause twice, after a crash or from two replicas, records it once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eventsourcing.application import AggregateNotFoundError

from ledger.access.policy_version import (
    Policy,
    already_retired,
    check_policy_version,
    policy_aggregate_id,
)
from ledger.errors import ConcurrentWrite, Conflict, InvalidInput, NotFound
from ledger.eventlog.port import EventLog
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_ids import receipt_aggregate_id

PROCESS_ACTOR = "process:expiry"
ATTEMPTS = 10


class ExpiryDesk:
    """Expires receipts and retires policies (``ledger.receipts.expiry_desk``)."""

    def __init__(self, ledger: EventLog) -> None:
        self.ledger = ledger

    def expire(
        self,
        receipt_id: str,
        reason: str,
        cause: str,
        detail: dict[str, Any],
        actor: str = PROCESS_ACTOR,
        holds: Callable[[Receipt], bool] | None = None,
    ) -> bool:
        """Append an expiry for ``cause`` unless the receipt already has one; True if new.
        With ``holds``, only when the receipt, read from its verified events, passes it (what
        the caller found in a read model is checked against what the receipt records)."""
        for _ in range(ATTEMPTS):
            try:
                receipt: Receipt = self.ledger.repository.get(receipt_aggregate_id(receipt_id))
            except AggregateNotFoundError:
                raise NotFound(f"no receipt {receipt_id!r}") from None
            if holds is not None and not holds(receipt):
                return False
            if not receipt.expire(reason, cause, detail, actor):
                return False
            try:
                self.ledger.commit(receipt)
            except Conflict:
                continue  # a concurrent write to the receipt: re-read and decide again
            return True
        raise ConcurrentWrite(f"receipt {receipt_id} is being written by others; retry")

    def is_retired(self, policy_version: str) -> bool:
        """Tell whether a policy version was retired."""
        try:
            policy: Policy = self.ledger.repository.get(policy_aggregate_id(policy_version))
        except AggregateNotFoundError:
            return False
        return policy.retired

    def retire_policy(self, policy_version: str, reason: str, actor: str) -> tuple[Policy, int]:
        """Record the retirement; the expiry process then expires the policy's receipts.
        Returns the policy and the retirement's log position."""
        check_policy_version(policy_version)
        if not reason.strip() or len(reason) > 2000:
            raise InvalidInput("reason", "length", "reason must be 1 to 2000 characters")
        try:
            policy: Policy = self.ledger.repository.get(policy_aggregate_id(policy_version))
        except AggregateNotFoundError:
            policy = Policy.retire(policy_version, reason.strip(), actor)
        else:
            policy.withdraw(reason.strip(), actor)  # a published version (or: already retired)
        try:
            recordings = self.ledger.commit(policy)
        except Conflict:
            raise already_retired(policy_version) from None
        return policy, recordings[-1].notification.id
