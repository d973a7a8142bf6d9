"""The base aggregate whose events all name the actor that caused them."""

from __future__ import annotations

from typing import TypeVar

from eventsourcing.domain import Aggregate

T = TypeVar("T", bound=Aggregate)


class LedgerAggregate(Aggregate):
    """An aggregate whose every event records ``actor``: who asked for the change.

    Concrete aggregates define their created event as ``class X(Aggregate.Created,
    LedgerAggregate.Event)`` and give every event class a stable ``TOPIC``.
    """

    class Event(Aggregate.Event):
        """Base event: carries the actor into the signed body."""

        actor: str


def fork_state(aggregate: T, lists: tuple[str, ...], dicts: tuple[str, ...]) -> T:
    """A copy of ``aggregate`` with its own copies of the named list and dict attributes and
    no pending events; every other attribute is shared and must never be changed in place."""
    copy: T = object.__new__(type(aggregate))
    state = dict(vars(aggregate))
    for name in lists:
        state[name] = list(state[name])
    for name in dicts:
        state[name] = dict(state[name])
    state["_pending_events"] = []
    copy.__dict__.update(state)
    return copy
