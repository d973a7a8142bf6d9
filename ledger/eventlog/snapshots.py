"""Recently read aggregates kept in memory as snapshots, brought up to date from the store.

A snapshot is never changed once kept: a read folds the events stored after it onto a fork
(a copy that commands may change) and returns the fork. Each read still asks the store for
newer events, so writes by other processes are seen as before; what it saves is decoding
and folding the whole history on every read.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, Protocol, Self, TypeVar
from uuid import UUID

from eventsourcing.application import Application

from ledger.eventlog.application import project


class Forkable(Protocol):
    """An aggregate that can copy itself for a command without sharing what events change."""

    @property
    def id(self) -> UUID: ...

    @property
    def version(self) -> int: ...

    def fork(self) -> Self: ...


A = TypeVar("A", bound=Forkable)


class Snapshots(Generic[A]):
    """Up to ``size`` aggregates of one kind, least recently read dropped first."""

    def __init__(self, application: Application[UUID], size: int = 256) -> None:
        self.application = application
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[UUID, A] = OrderedDict()

    def get(self, aggregate_id: UUID) -> A:
        """The aggregate as stored now, as a fork the caller owns; raises the library's
        ``AggregateNotFoundError`` for an unknown id."""
        with self._lock:
            snapshot = self._items.get(aggregate_id)
            if snapshot is not None:
                self._items.move_to_end(aggregate_id)
        if snapshot is None:
            aggregate: A = self.application.repository.get(aggregate_id)
            self.keep(aggregate)
            return aggregate
        newer = list(self.application.events.get(aggregate_id, gt=snapshot.version))
        aggregate = project(snapshot.fork(), newer)
        if newer:
            self.keep(aggregate)
        return aggregate

    def keep(self, aggregate: A) -> None:
        """Remember ``aggregate`` as stored (call only after its events were saved)."""
        snapshot = aggregate.fork()
        with self._lock:
            current = self._items.get(snapshot.id)
            if current is None or current.version < snapshot.version:
                self._items[snapshot.id] = snapshot
            self._items.move_to_end(snapshot.id)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
