"""Policies under which receipts are opened: published access rules, and retirement.

A policy version is a ledger aggregate. Publishing it (``provledger.policy.published``)
records its access rules (:mod:`ledger.access.policy`); a version that was never published
decides access by :data:`~ledger.access.DEFAULT_ACCESS_POLICY`. Retiring a version expires
every receipt opened under it: ``provledger.policy.retired`` for a version never published (the
first event of its aggregate), ``provledger.policy.withdrawn`` for a published one.
"""

from __future__ import annotations

import re
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from ledger.access.policy import DEFAULT_POLICY_VERSION, AccessPolicy
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
    """A policy version: its published access rules, and whether it was retired."""

    class Retired(Aggregate.Created, LedgerAggregate.Event):
        """Every receipt opened under this (never published) policy version expires; no new
        ones open."""

        TOPIC = "provledger.policy.retired"
        policy_version: str
        reason: str

        def apply(self, aggregate: Policy) -> None:
            aggregate.retired = True

    class Published(Aggregate.Created, LedgerAggregate.Event):
        """The version's access rules, in the rule language of :mod:`ledger.access.policy`."""

        TOPIC = "provledger.policy.published"
        policy_version: str
        rules: list[dict[str, Any]]
        description: str

    class Withdrawn(LedgerAggregate.Event):
        """A published version was retired: its receipts expire, no new ones open."""

        TOPIC = "provledger.policy.withdrawn"
        policy_version: str
        reason: str

        def apply(self, aggregate: Policy) -> None:
            aggregate.retired = True
            aggregate.reason = self.reason

    def __init__(
        self,
        policy_version: str,
        reason: str = "",
        rules: list[dict[str, Any]] | None = None,
        description: str = "",
    ) -> None:
        self.policy_version = policy_version
        self.reason = reason
        self.rules = rules
        self.description = description
        self.retired = False

    @classmethod
    def retire(cls, policy_version: str, reason: str, actor: str) -> Policy:
        """Retire a policy version that was never published."""
        return cls._create(
            cls.Retired,
            id=policy_aggregate_id(policy_version),
            policy_version=policy_version,
            reason=reason,
            actor=actor,
        )

    @classmethod
    def publish(cls, policy: AccessPolicy, description: str, actor: str) -> Policy:
        """Publish a version's access rules (once: a version never changes)."""
        return cls._create(
            cls.Published,
            id=policy_aggregate_id(policy.version),
            policy_version=policy.version,
            rules=policy.rules_json(),
            description=description,
            actor=actor,
        )

    def withdraw(self, reason: str, actor: str) -> None:
        """Retire this published version."""
        if self.retired:
            raise already_retired(self.policy_version)
        self.trigger_event(
            self.Withdrawn, policy_version=self.policy_version, reason=reason, actor=actor
        )

    @property
    def access_policy(self) -> AccessPolicy | None:
        """The published rules, or None for a version never published."""
        if self.rules is None:
            return None
        return AccessPolicy.parse(self.policy_version, self.rules)


def check_publishable(policy_version: str) -> str:
    """A version that can be published: the pattern, and not the built-in ``default``."""
    check_policy_version(policy_version)
    if policy_version == DEFAULT_POLICY_VERSION:
        raise InvalidInput(
            "policy_version", "not-default", "policy version 'default' is the built-in policy"
        )
    return policy_version


def already_retired(policy_version: str) -> Conflict:
    """The error for retiring twice."""
    return Conflict(f"policy {policy_version!r} is already retired")
