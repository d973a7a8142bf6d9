"""The expiry process: follows the log and expires receipts whose evidence changed.

It reacts to these kinds of event, in notification order:

- a new source version (the previous version is superseded): receipts with committed claims
  bound to the superseded version expire with reason ``source_superseded``;
- a withdrawn source: receipts bound to any of its versions expire, ``source_withdrawn``;
- a source's access attributes changed: receipts bound to it expire,
  ``source_access_changed`` (the detail names the source only, never its attributes);
- committed claims bound to a version that is already superseded or withdrawn: that receipt
  expires at once, for the same reasons;
- a retired policy (never published, or published then withdrawn): every receipt opened
  under it expires, ``policy_retired``;
- a revoked API key, a retired model or tool version, a context-assembly version declared in
  force: the receipts that recorded them expire (:mod:`processes.expiry_recorded`);
- a memory item corrected or revoked, and a receipt opened with memory already corrected or
  revoked: the receipts that sealed it expire (:mod:`processes.expiry_memory`).

A write that supersedes, withdraws or changes the access of a source (and a policy's,
model's or tool's retirement, an assembly's declaration, a key's revocation) runs a pass
before it answers (:meth:`ExpiryProcess.settle`), so a receipt read
after that answer, by any process, shows the expiry: read-your-writes.

Each expiry's cause is the notification id of the event that caused it (``n<id>``), and a
receipt records a cause at most once, so delivery is at-least-once (the position is saved
after the effects) and the effect exactly-once, across restarts and across replicas. Receipts
whose ``expires_at`` passes are swept with cause ``expires_at``, and receipts whose sealed
memory version's ``expires_at`` passes with cause ``memory:<memory id>:v<version>``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import structlog
from eventsourcing.persistence import Notification
from sqlalchemy import Connection, and_, bindparam, func, select

from ledger.access.policy_version import Policy
from ledger.eventlog.clock import format_time
from ledger.receipts.expiry_desk import ExpiryDesk
from ledger.receipts.receipt import Receipt
from ledger.registry.source import Source
from processes import expiry_memory, expiry_recorded
from processes.expiry_recorded import Target
from projections.schema import (
    claim_bindings,
    receipt_claims,
    receipt_expiries,
    receipts,
    sources,
    versions,
)
from projections.service import ReadSide
from projections.tracking import advance
from projections.tracking import position as tracking_position

log = structlog.get_logger("provledger.expiry")
NAME = "expiry"
BATCH = 100


_RECEIPTS_OF_AGGREGATES = select(receipts.c.aggregate_id, receipts.c.receipt_id).where(
    receipts.c.aggregate_id.in_(bindparam("b_aggregates", expanding=True))
)
_WITHDRAWALS = select(sources.c.source_id, sources.c.withdrawn_position).where(
    sources.c.source_id.in_(bindparam("b_sources", expanding=True))
)
_VERSIONS_ADDED = select(versions.c.source_id, versions.c.version, versions.c.position).where(
    versions.c.source_id.in_(bindparam("b_sources", expanding=True))
)
_IN_CHUNK = 500


@dataclass
class _Known:
    """What the read models say about the receipts and sources a batch of commits names:
    read with three queries per batch rather than two per commit."""

    receipts: dict[str, str]  # receipt aggregate id -> receipt id
    withdrawn: dict[str, int | None]  # source id -> position of its withdrawal
    added: dict[tuple[str, int], int]  # (source id, version) -> position it was added at

    @classmethod
    def read(cls, conn: Connection, events: list[Any], batch: Sequence[Notification]) -> _Known:
        commits = [
            (n, e)
            for n, e in zip(batch, events, strict=True)
            if isinstance(e, Receipt.ClaimsCommitted)
        ]
        aggregates = sorted({str(n.originator_id) for n, _ in commits})
        source_ids = sorted(
            {
                b["source_id"]
                for _, e in commits
                for claim in e.claims
                for b in claim["bindings"]
                if b["source_id"] is not None
            }
        )
        known = cls({}, {}, {})
        for chunk in _chunks(aggregates):
            for aggregate_id, receipt_id in conn.execute(
                _RECEIPTS_OF_AGGREGATES, {"b_aggregates": chunk}
            ):
                known.receipts[str(aggregate_id)] = str(receipt_id)
        for chunk in _chunks(source_ids):
            for source_id, position in conn.execute(_WITHDRAWALS, {"b_sources": chunk}):
                known.withdrawn[str(source_id)] = position
            for source_id, version, position in conn.execute(_VERSIONS_ADDED, {"b_sources": chunk}):
                known.added[str(source_id), int(version)] = int(position)
        return known


def _chunks(values: list[str]) -> list[list[str]]:
    return [values[i : i + _IN_CHUNK] for i in range(0, len(values), _IN_CHUNK)]


class ExpiryProcess:
    """Runs the expiry rules over new events; one instance per process."""

    topics = (
        Source.VersionAdded.TOPIC,
        Source.Withdrawn.TOPIC,
        Source.AccessChanged.TOPIC,
        Receipt.ClaimsCommitted.TOPIC,
        Policy.Retired.TOPIC,
        Policy.Withdrawn.TOPIC,
        *expiry_recorded.TOPICS,
        *expiry_memory.TOPICS,
    )

    def __init__(self, read_side: ReadSide, desk: ExpiryDesk) -> None:
        self.read_side = read_side
        self.ledger = read_side.ledger
        self.desk = desk
        self.engine = read_side.db.sync
        self._lock = threading.Lock()
        self.expired = 0  # expiries this instance recorded (for logs and tests)

    def position(self) -> int:
        """The last notification id whose effects are complete."""
        return tracking_position(self.engine, NAME)

    def run_once(self) -> int:
        """Handle the events of interest written before this pass, then sweep ``expires_at``;
        returns the position."""
        with self._lock:
            end = self.ledger.last_position()  # this pass handles events up to here
            while True:
                start = self.position()
                if end <= start:
                    break
                batch = self.ledger.recorder.select_notifications(
                    start=start, limit=BATCH, stop=end, topics=self.topics, inclusive_of_start=False
                )
                full = len(batch) == BATCH
                if batch:
                    self._handle(batch)
                # Once per batch: re-handling an event after a crash finds its expiries
                # already recorded (a receipt records a cause once), so nothing repeats. A
                # short batch holds every event of interest up to ``end``: the position moves
                # there, past events of other kinds, so the next pass does not scan them again
                # (the projection runner explains why every id up to ``end`` is committed).
                self._save(start, batch[-1].id if full else end)
                if batch:
                    self.read_side.receipts.catch_up()  # show the expiries just recorded
                if not full:
                    # Events written since ``end`` are the next pass's: chasing each new
                    # commit would cost a catch-up per commit.
                    break
            before = self.expired
            self.sweep()
            if self.expired != before:
                self.read_side.receipts.catch_up()
            return self.position()

    def settle(self, position: int) -> int:
        """Record every expiry the events up to ``position`` cause (a write's own position),
        before the write answers; returns how many this pass recorded."""
        before = self.expired
        self.read_side.registry.catch_up()  # and the registry shows the write
        if self.position() < position:
            self.run_once()
        return self.expired - before

    def expired_by(self, position: int) -> int:
        """How many receipts the change at ``position`` expired (its cause ``n<position>``),
        once the receipts read model shows every expiry recorded so far."""
        self.read_side.receipts.catch_up()
        with self.engine.connect() as conn:
            return int(
                conn.execute(
                    select(func.count())
                    .select_from(receipt_expiries)
                    .where(receipt_expiries.c.cause == f"n{position}")
                ).scalar_one()
            )

    def _handle(self, batch: Sequence[Notification]) -> None:
        # The read models it reads must include these events.
        self.read_side.registry.catch_up()
        self.read_side.receipts.catch_up()
        events = [(n, self._event(n)) for n in batch]
        with self.engine.connect() as conn:
            known = _Known.read(conn, [e for _, e in events], batch)
            found = [(n, self._targets(conn, e, n, known)) for n, e in events]
        for notification, targets in found:
            self._expire(notification, targets)

    def _save(self, start: int, end: int) -> None:
        advance(self.engine, NAME, end)

    def _event(self, notification: Notification) -> Any:
        # An expiry is a signed decision: the event that causes it is verified first.
        return self.ledger.verified_event(notification)

    def _expire(self, notification: Notification, targets: list[Target]) -> None:
        cause = f"n{notification.id}"
        for target in targets:
            receipt_id, reason = target.receipt_id, target.reason
            if self.desk.expire(receipt_id, reason, cause, target.detail, holds=target.holds):
                self.expired += 1
                log.info("receipt_expired", receipt_id=receipt_id, reason=reason, cause=cause)

    def _targets(
        self, conn: Connection, event: Any, notification: Notification, known: _Known
    ) -> list[Target]:
        if isinstance(event, (Source.VersionAdded, Source.Withdrawn, Source.AccessChanged)):
            return [
                Target(rid, reason, detail)
                for rid, reason, detail in self._source_targets(conn, event, notification)
            ]
        if isinstance(event, Receipt.ClaimsCommitted):
            return [
                Target(rid, reason, detail)
                for rid, reason, detail in self._stale_bindings(event, notification, known)
            ]
        if isinstance(event, Policy.Retired | Policy.Withdrawn):
            rows = conn.execute(
                select(receipts.c.receipt_id).where(
                    receipts.c.policy_version == event.policy_version
                )
            ).scalars()
            detail = {"policy_version": event.policy_version, "reason": event.reason}
            return [Target(str(rid), "policy_retired", detail) for rid in rows]
        if isinstance(event, expiry_memory.EVENTS):
            return expiry_memory.targets(conn, event, notification)
        return expiry_recorded.targets(conn, self.ledger, event, notification)

    def _source_targets(
        self, conn: Connection, event: Any, notification: Notification
    ) -> list[tuple[str, str, dict[str, Any]]]:
        if isinstance(event, Source.VersionAdded):
            if event.version == 1:
                return []
            source_id = self._source_id(conn, str(notification.originator_id))
            detail = {
                "source_id": source_id,
                "version": event.version - 1,
                "superseded_by": event.version,
            }
            return [
                (rid, "source_superseded", detail)
                for rid in self._bound(conn, source_id, event.version - 1)
            ]
        if isinstance(event, Source.Withdrawn):
            source_id = self._source_id(conn, str(notification.originator_id))
            detail = {"source_id": source_id, "reason": event.reason}
            return [(rid, "source_withdrawn", detail) for rid in self._bound(conn, source_id)]
        source_id = self._source_id(conn, str(notification.originator_id))
        return [
            (rid, "source_access_changed", {"source_id": source_id})
            for rid in self._bound(conn, source_id)
        ]

    def _source_id(self, conn: Connection, aggregate_id: str) -> str:
        return str(
            conn.execute(
                select(sources.c.source_id).where(sources.c.aggregate_id == aggregate_id)
            ).scalar_one()
        )

    def _bound(self, conn: Connection, source_id: str, version: int | None = None) -> list[str]:
        condition = claim_bindings.c.source_id == source_id
        if version is not None:
            condition = and_(condition, claim_bindings.c.version == version)
        rows = conn.execute(
            select(receipt_claims.c.receipt_id)
            .join(claim_bindings, claim_bindings.c.claim_id == receipt_claims.c.claim_id)
            .where(condition, receipt_claims.c.committed == 1)
            .distinct()
            .order_by(receipt_claims.c.receipt_id)
        ).scalars()
        return [str(rid) for rid in rows]

    def _stale_bindings(
        self, event: Any, notification: Notification, known: _Known
    ) -> list[tuple[str, str, dict[str, Any]]]:
        """Claims committed on a version that was already superseded or withdrawn *before*
        this commit in the log (later changes have their own events)."""
        receipt_id = known.receipts[str(notification.originator_id)]
        for claim in event.claims:
            for binding in claim["bindings"]:
                source_id, version = binding["source_id"], binding["version"]
                if source_id is None:
                    continue
                detail = {"source_id": source_id, "version": version}
                withdrawn = known.withdrawn.get(source_id)
                if withdrawn is not None and withdrawn < notification.id:
                    return [(receipt_id, "source_withdrawn", detail)]
                successor = known.added.get((source_id, version + 1))
                if successor is not None and successor < notification.id:
                    return [(receipt_id, "source_superseded", detail)]
        return []

    def sweep(self, now: datetime | None = None) -> int:
        """Expire receipts whose ``expires_at``, or whose sealed memory version's, has passed;
        returns how many were new."""
        moment = format_time(now or datetime.now(UTC))
        with self.engine.connect() as conn:
            due = conn.execute(
                select(receipts.c.receipt_id, receipts.c.expires_at).where(
                    receipts.c.expires_at <= moment, receipts.c.expired_at.is_(None)
                )
            ).all()
            memory = expiry_memory.due(conn, moment)
        count = 0
        for target, cause in memory:
            if self.desk.expire(
                target.receipt_id, target.reason, cause, target.detail, holds=target.holds
            ):
                count += 1
                self.expired += 1
        for receipt_id, expires_at in due:
            if self.desk.expire(
                str(receipt_id), "expires_at_passed", "expires_at", {"expires_at": expires_at}
            ):
                count += 1
                self.expired += 1
        return count
