"""The signed record of one retrieval: what was asked, by whom, and exactly what left.

A receipt opened with the retrieval's id seals this record's spans, so the pool a model was
shown is provably the pool retrieval served, with the rankers and exclusion codes behind it.
"""

from __future__ import annotations

import secrets
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from ledger.eventlog.aggregate import LedgerAggregate
from ledger.eventlog.topics import aggregate_topic

_NAMESPACE = uuid5(NAMESPACE_URL, "https://provledger.dev/ns/retrieval")
RETRIEVAL_PREFIX = "rtv_"


def new_retrieval_id() -> str:
    """``rtv_`` + 32 random hex digits: two identical queries are two retrievals."""
    return RETRIEVAL_PREFIX + secrets.token_hex(16)


def retrieval_aggregate_id(retrieval_id: str) -> UUID:
    """The aggregate id of a retrieval."""
    return uuid5(_NAMESPACE, retrieval_id)


@aggregate_topic("provledger.retrieval")
class Retrieval(LedgerAggregate):
    """One retrieval, recorded once and never changed."""

    class Performed(Aggregate.Created, LedgerAggregate.Event):
        """Spans were retrieved for a query and served.

        ``results``: each served span's id, source, version, version hash, SHA-256 of its
        text and its scores, best first. ``exclusions``: ``{code, count}`` of candidates
        withheld. ``rankers``: name, version and role of every stage. ``policy_version``:
        the access policy version the principal's entitlements were decided under (version
        1 events, from before entitlements were wired, have none).
        """

        TOPIC = "provledger.retrieval.performed"
        class_version = 2
        retrieval_id: str
        query: str
        principal: dict[str, Any]
        k: int
        as_of: str
        filters: dict[str, Any] | None
        results: list[dict[str, Any]]
        exclusions: list[dict[str, Any]]
        rankers: list[dict[str, str]]
        policy_version: str | None

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            """Version 1 retrievals were decided by no access policy."""
            state.setdefault("policy_version", None)

    def __init__(
        self,
        retrieval_id: str,
        query: str,
        principal: dict[str, Any],
        k: int,
        as_of: str,
        filters: dict[str, Any] | None,
        results: list[dict[str, Any]],
        exclusions: list[dict[str, Any]],
        rankers: list[dict[str, str]],
        actor: str,
        policy_version: str | None = None,
    ) -> None:
        self.actor = actor
        """Who made the retrieval (the API key's actor)."""
        self.retrieval_id = retrieval_id
        self.query = query
        self.principal = principal
        self.k = k
        self.as_of = as_of
        self.filters = filters
        self.results = results
        self.exclusions = exclusions
        self.rankers = rankers
        self.policy_version = policy_version

    @classmethod
    def perform(cls, actor: str, **content: Any) -> Retrieval:
        """Record a retrieval made for ``actor`` (the API key's actor)."""
        retrieval_id = new_retrieval_id()
        return cls._create(
            cls.Performed,
            id=retrieval_aggregate_id(retrieval_id),
            retrieval_id=retrieval_id,
            actor=actor,
            **content,
        )

    def summary(self) -> dict[str, Any]:
        """What a receipt opened from this retrieval records of it."""
        return {
            "retrieval_id": self.retrieval_id,
            "rankers": self.rankers,
            "exclusions": self.exclusions,
        }
