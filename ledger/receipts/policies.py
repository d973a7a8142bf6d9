"""Policies under which receipts are opened; retiring one expires its receipts."""

from __future__ import annotations

import re
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from ledger.errors import Conflict, InvalidInput
from ledger.eventlog.aggregate import LedgerAggregate
from ledger.eventlog.topics import aggregate_topic

_NAMESPACE = uuid5(NAMESPACE_URL, "https://provledger.dev/ns/policy")
POLICY_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def policy_aggregate_id(policy_version: str) -> UUID:
    """The aggregate id of a policy version."""
    return uuid5(_NAMESPACE, policy_version)


def check_policy_version(policy_version: str) -> str:
    """Validate a policy version as it appears in a path."""
    if not POLICY_PATTERN.match(policy_version):
        raise InvalidInput(
            "policy_version",
            "pattern",
            f"policy_version must match {POLICY_PATTERN.pattern}",
        )
    return policy_version


@aggregate_topic("provledger.policy")
class Policy(LedgerAggregate):
    """A retired policy version (only retirements are recorded)."""

    class Retired(Aggregate.Created, LedgerAggregate.Event):
        """Every receipt opened under this policy version expires; no new ones open."""

        TOPIC = "provledger.policy.retired"
        policy_version: str
        reason: str

    def __init__(self, policy_version: str, reason: str) -> None:
        self.policy_version = policy_version
        self.reason = reason

    @classmethod
    def retire(cls, policy_version: str, reason: str, actor: str) -> Policy:
        """Retire a policy version."""
        return cls._create(
            cls.Retired,
            id=policy_aggregate_id(policy_version),
            policy_version=policy_version,
            reason=reason,
            actor=actor,
        )


def already_retired(policy_version: str) -> Conflict:
    """The error for retiring twice."""
    return Conflict(f"policy {policy_version!r} is already retired")
