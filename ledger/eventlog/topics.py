"""Explicit, stable topics for aggregates and events.

Stored events name their class by topic. ``eventsourcing`` defaults to ``module:qualname``,
which a rename or a move would orphan, so every ledger event class declares ``TOPIC`` and every
aggregate is registered with :func:`aggregate_topic`. Topics are part of the storage format:
never change one; add a new event class (or a ``class_version`` upcast) instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from eventsourcing.domain import CanMutateAggregate
from eventsourcing.utils import get_topic, register_topic

_A = TypeVar("_A", bound=type[Any])

_AGGREGATE_TOPICS: dict[str, str] = {}
"""Maps an aggregate class's ``module:qualname`` to its stable topic."""


def aggregate_topic(topic: str) -> Callable[[_A], _A]:
    """Class decorator: register an aggregate and its event classes under explicit topics.

    The aggregate gets ``topic``; each event class defined on it must carry its own ``TOPIC``.
    The library's own explicit-topic mode is not used because it also demands topics for the
    base event classes it generates; this keeps the rule to the classes we trigger.
    """

    def register(cls: _A) -> _A:
        register_topic(topic, cls)
        _AGGREGATE_TOPICS[get_topic(cls)] = topic
        for obj in vars(cls).values():
            if isinstance(obj, type) and issubclass(obj, CanMutateAggregate):
                explicit = getattr(obj, "TOPIC", None)
                if explicit:
                    register_topic(explicit, obj)
        return cls

    return register


def stable_aggregate_topic(library_topic: str) -> str:
    """Translate an aggregate's ``module:qualname`` topic to its stable topic."""
    try:
        return _AGGREGATE_TOPICS[library_topic]
    except KeyError:
        raise LookupError(f"aggregate {library_topic} has no registered stable topic") from None


def event_topic(event_class: type[Any]) -> str:
    """Return the explicit topic of an event class, refusing classes that have none."""
    topic = getattr(event_class, "TOPIC", None)
    if not isinstance(topic, str) or ":" in topic:
        raise LookupError(f"event class {event_class.__qualname__} declares no stable TOPIC")
    return topic
