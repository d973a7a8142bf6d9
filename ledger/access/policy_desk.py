"""Publishing access policies, and which policy decides access: the one the ledger has in force.

The policy **in force** is the newest published version that is not retired, or the built-in
``default`` policy when there is none. The ledger decides it, never a request: a request may
leave ``policy_version`` out (it is then decided under the policy in force and records it) or
name the version in force; naming a published version that does not govern is 409
(:class:`~ledger.errors.PolicyNotInForce`), a retired one 409 as well, and a version that was
never published 422 (``policy_version`` / ``published``).

The desk follows the policy events (published, withdrawn, retired) in log order, each verified
as every read is (:meth:`~ledger.eventlog.port.EventLog.verified_event`), reading only the events
written since it last looked: one small query per decision.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from eventsourcing.application import AggregateNotFoundError

from ledger.access.policy import DEFAULT_ACCESS_POLICY, DEFAULT_POLICY_VERSION, AccessPolicy
from ledger.access.policy_version import (
    Policy,
    check_policy_version,
    check_publishable,
    policy_aggregate_id,
)
from ledger.errors import Conflict, InvalidInput, NotFound, PolicyNotInForce
from ledger.eventlog.clock import format_time
from ledger.eventlog.port import EventLog

POLICY_TOPICS = (Policy.Published.TOPIC, Policy.Withdrawn.TOPIC, Policy.Retired.TOPIC)

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
        self._lock = threading.Lock()
        self._seen = 0  # the last notification id of a policy event followed
        self._published: list[str] = []  # versions, in the order they were published
        self._retired: set[str] = set()
        self._rules: dict[str, AccessPolicy] = {}

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

    def publish_recorded(
        self, policy_version: str, rules: object, description: str, actor: str
    ) -> Policy:
        """:meth:`publish`, then the version as recorded (its ledger time): what
        ``POST /v1/policies`` answers."""
        self.publish(policy_version, rules, description, actor)
        return self.get(policy_version)

    def get(self, policy_version: str) -> Policy:
        """A published or retired policy version, or NotFound."""
        check_policy_version(policy_version)
        policy = self._find(policy_version)
        if policy is None:
            raise NotFound(f"no policy {policy_version!r} was published or retired")
        return policy

    def in_force(self) -> GoverningPolicy:
        """The policy access is decided by now: the newest published version not retired,
        else the built-in default policy."""
        with self._lock:
            self._follow()
            version = next((v for v in reversed(self._published) if v not in self._retired), None)
            if version is None:
                return GoverningPolicy(DEFAULT_POLICY_VERSION, "default", DEFAULT_ACCESS_POLICY)
            return GoverningPolicy(version, "published", self._rules[version])

    def for_request(self, policy_version: str | None) -> GoverningPolicy:
        """The policy in force, for a request that names ``policy_version`` (or none): 409
        when it names a published version that does not govern or a retired one, 422 when it
        names a version never published."""
        governing = self.in_force()
        if policy_version is not None and policy_version != governing.policy_version:
            check_policy_version(policy_version)
            if policy_version in self._retired:
                raise Conflict(f"policy {policy_version!r} is retired; nothing is decided under it")
            if policy_version not in self._rules:
                raise InvalidInput(
                    "policy_version",
                    "published",
                    f"no policy {policy_version!r} was published; leave policy_version out to "
                    f"be decided under the policy in force ({governing.policy_version!r})",
                )
            raise PolicyNotInForce(
                f"policy {policy_version!r} does not govern: {governing.policy_version!r} is in "
                "force; leave policy_version out or name the policy in force"
            )
        if governing.policy_version in self._retired:  # the built-in policy, retired by name
            raise Conflict(
                f"policy {governing.policy_version!r} is retired; nothing is decided under it"
            )
        return governing

    def _follow(self) -> None:
        """Read the policy events written since the last look, each verified. The look moves
        to the log end it read first, past events of other kinds (every id up to it is
        committed: the store writes in order), so a decision reads only the events written
        since the last one, not every event since the last policy event."""
        end = self.log.last_position()
        if end <= self._seen:
            return
        for notification in self.log.notifications(POLICY_TOPICS, after=self._seen):
            event = self.log.verified_event(notification)
            if isinstance(event, Policy.Published):
                self._published.append(event.policy_version)
                self._rules[event.policy_version] = AccessPolicy.parse(
                    event.policy_version, event.rules
                )
            else:
                self._retired.add(event.policy_version)
            self._seen = notification.id
        self._seen = max(self._seen, end)

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
