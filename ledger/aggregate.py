"""The base aggregate whose events all name the actor that caused them."""

from __future__ import annotations

from eventsourcing.domain import Aggregate


class LedgerAggregate(Aggregate):
    """An aggregate whose every event records ``actor``: who asked for the change.

    Concrete aggregates define their created event as ``class X(Aggregate.Created,
    LedgerAggregate.Event)`` and give every event class a stable ``TOPIC``.
    """

    class Event(Aggregate.Event):
        """Base event: carries the actor into the signed body."""

        actor: str
