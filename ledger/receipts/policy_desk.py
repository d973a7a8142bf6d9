"""Publishing access policies and finding the rules a policy version decides access by."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eventsourcing.application import AggregateNotFoundError

from ledger.access.policy import DEFAULT_ACCESS_POLICY, AccessPolicy
from ledger.errors import Conflict, InvalidInput, NotFound
from ledger.eventlog.clock import format_time
from ledger.eventlog.port import EventLog
from ledger.receipts.policies import (
    Policy,
    check_policy_version,
    check_publishable,
    policy_aggregate_id,
)

MAX_DESCRIPTION = 2000


@dataclass(frozen=True)
class GoverningPolicy:
    """The rules a policy version decides access by: its own when published, else the
    default policy's (``rules_from`` says which)."""

    policy_version: str
    rules_from: str
    policy: AccessPolicy

    def to_json(self) -> dict[str, Any]:
        """What a receipt's protected access record names."""
        return {"policy_version": self.policy_version, "rules_from": self.rules_from}


class PolicyDesk:
    """Publishes access policies (signed ``provledger.policy.published`` events) and reads
    them back from verified events."""

    def __init__(self, log: EventLog) -> None:
        self.log = log

    def publish(
        self, policy_version: str, rules: object, description: str, actor: str
    ) -> tuple[Policy, int]:
        """Publish ``rules`` as ``policy_version``; a version is published once and never
        changes (409 for a second publication or a retired version)."""
        check_publishable(policy_version)
        if len(description) > MAX_DESCRIPTION:
            raise InvalidInput(
                "description", "max-length", f"description is at most {MAX_DESCRIPTION} chars"
            )
        policy = AccessPolicy.parse(policy_version, rules)
        if self._find(policy_version) is not None:
            raise Conflict(f"policy {policy_version!r} exists; publish a new version instead")
        aggregate = Policy.publish(policy, description, actor)
        try:
            recordings = self.log.commit(aggregate)
        except Conflict:
            raise Conflict(f"policy {policy_version!r} exists; publish a new version") from None
        return aggregate, recordings[-1].notification.id

    def get(self, policy_version: str) -> Policy:
        """A published or retired policy version, or NotFound."""
        check_policy_version(policy_version)
        policy = self._find(policy_version)
        if policy is None:
            raise NotFound(f"no policy {policy_version!r} was published or retired")
        return policy

    def governing(self, policy_version: str) -> GoverningPolicy:
        """The rules receipts opened under ``policy_version`` decide access by."""
        found = self._find(policy_version)
        published = None if found is None else found.access_policy
        if published is None:
            return GoverningPolicy(policy_version, "default", DEFAULT_ACCESS_POLICY)
        return GoverningPolicy(policy_version, "published", published)

    def _find(self, policy_version: str) -> Policy | None:
        try:
            policy: Policy = self.log.repository.get(policy_aggregate_id(policy_version))
        except AggregateNotFoundError:
            return None
        return policy


def policy_json(policy: Policy) -> dict[str, Any]:
    """A policy version as the API shows it."""
    return {
        "policy_version": policy.policy_version,
        "status": "retired" if policy.retired else "published",
        "published": policy.rules is not None,
        "description": policy.description,
        "rules": policy.rules,
        "retired_reason": policy.reason if policy.retired else None,
        "recorded_at": format_time(policy.created_on),
    }
