"""What an API key with pins may see: one rule for every read and write of a source.

A key with pins acts for the principals its pins allow (:meth:`~ledger.access.Pins.principals`:
one per pinned purpose and destination, with every pinned role, unit and group). It may see a
source when one of them is entitled to it under the policy in force
(:meth:`~ledger.access.policy_desk.PolicyDesk.in_force`), by the access attributes the
source's verified events hold. It may read a receipt (and its claims) opened for a principal it
could have claimed (:func:`~ledger.receipts.entitlement.pins_may_read_receipt`).

To such a key, a source or a receipt it may not see does not exist: a refusal is the one a
missing one gets (404 with the same words, :func:`missing_source`), a list leaves it out, a
filter naming it finds nothing. A key without pins is a trusted application and sees
everything.

Time says nothing either. Each request first looks, with one small query, for access
changes written since the last look (and, with another, for policy events), whatever it then
meets; the verified attributes of a source are then remembered until the log shows a change of
them, so a search that meets a source the key may not see reads no more rows than one that
meets none. A change is seen by every process at its next request: read-your-writes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from uuid import UUID

from ledger.access.attributes import Pins, Principal, SourceAccess
from ledger.access.policy import AccessPolicy, pins_may_see
from ledger.access.policy_desk import PolicyDesk
from ledger.access.source_filter import PinnedFilter, PolicyFilter
from ledger.errors import NotFound
from ledger.eventlog.port import EventLog
from ledger.receipts.entitlement import bounded_principal
from ledger.registry.source import Source, source_aggregate_id
from ledger.retrieval.visibility import FirstRefusal, RetrievalEntitlement, SourceFilter

__all__ = ["KeySight", "RetrievalEntitlement", "missing_source", "pins_may_see"]

REMEMBERED = 65_536
"""Sources whose verified attributes a process remembers at most (about 200 bytes each)."""
ACCESS_TOPICS = (Source.AccessChanged.TOPIC,)
HIDDEN_IN_QUERY = 500
"""Sources a key may not see that a search leaves out in its query at most (past that, its
rows are left out as they are read)."""


def missing_source(source_id: str) -> NotFound:
    """The refusal of a source the ledger does not hold, and of one the key may not see."""
    return NotFound(f"no source {source_id!r}")


class KeySight:
    """Decides, for a key's pins, which sources it may see (see the module)."""

    def __init__(
        self,
        policies: PolicyDesk,
        log: EventLog,
        lookup: Callable[[str], SourceAccess | None],
    ) -> None:
        self.policies = policies
        self.log = log
        self.lookup = lookup
        """A source's access attributes from its verified events (None: no such source)."""
        self._lock = threading.Lock()
        self._remembered: OrderedDict[UUID, tuple[str, SourceAccess]] = OrderedDict()
        self._changed: dict[UUID, int] = {}  # source aggregate -> its last access change seen
        self._seen = 0  # the last notification id of an access change followed
        self._generation = 0  # moves whenever what is remembered changes
        self._hidden: dict[tuple[Pins, str], tuple[int, frozenset[str]]] = {}

    def policy(self) -> AccessPolicy:
        """The rules in force, once the access changes written since the last look are
        followed (one small query each, whatever the request then meets)."""
        self._follow()
        return self.policies.in_force().policy

    def sees(self, pins: Pins | None, source_id: str) -> bool:
        """Whether a key with ``pins`` may see ``source_id`` (a source the ledger does not
        hold: no)."""
        if pins is None:
            return True
        policy = self.policy()
        access = self.access(source_id)
        return access is not None and pins_may_see(pins, access, policy)

    def seer(self, pins: Pins | None) -> Callable[[str], bool]:
        """For one request of a key with ``pins``: whether it may see a source, the policy in
        force read once, now (a key without pins sees every source)."""
        if pins is None:
            return lambda source_id: True
        policy = self.policy()

        def sees(source_id: str) -> bool:
            access = self.access(source_id)
            return access is not None and pins_may_see(pins, access, policy)

        return sees

    def access(self, source_id: str) -> SourceAccess | None:
        """The source's verified attributes (None: no such source), remembered until the log
        shows a change of them."""
        known = self.remembered(source_id)
        if known is not None:
            return known
        aggregate = source_aggregate_id(source_id)
        with self._lock:
            seen = self._seen
        access = self.lookup(source_id)
        if access is None:
            return None
        with self._lock:
            # A change followed while the source was read may be newer than what was read.
            if self._changed.get(aggregate, 0) <= seen:
                self._remembered[aggregate] = (source_id, access)
                self._remembered.move_to_end(aggregate)
                self._generation += 1
                while len(self._remembered) > REMEMBERED:
                    self._remembered.popitem(last=False)
        return access

    def remembered(self, source_id: str) -> SourceAccess | None:
        """The attributes remembered for ``source_id``, without reading (None: not known)."""
        with self._lock:
            known = self._remembered.get(source_aggregate_id(source_id))
        return None if known is None else known[1]

    def hidden(self, pins: Pins, policy_version: str, policy: AccessPolicy) -> frozenset[str]:
        """The remembered sources a key with ``pins`` may not see under ``policy`` (at most
        :data:`HIDDEN_IN_QUERY`; empty past that): a search leaves them out in its query, so
        it reads no row of theirs, whatever it looks for."""
        key = (pins, policy_version)
        with self._lock:
            cached = self._hidden.get(key)
            if cached is not None and cached[0] == self._generation:
                return cached[1]
            generation, known = self._generation, list(self._remembered.values())
        hidden = frozenset(
            source_id for source_id, access in known if not pins_may_see(pins, access, policy)
        )
        if len(hidden) > HIDDEN_IN_QUERY:
            hidden = frozenset()
        with self._lock:
            if len(self._hidden) > 1024:
                self._hidden.clear()
            self._hidden[key] = (generation, hidden)
        return hidden

    def _follow(self) -> None:
        """Forget the attributes of every source whose access changed since the last look
        (the change is read again, verified, when next needed)."""
        with self._lock:
            after = self._seen
        changes = self.log.notifications(ACCESS_TOPICS, after=after)
        with self._lock:
            for notification in changes:
                aggregate = UUID(str(notification.originator_id))
                if self._remembered.pop(aggregate, None) is not None:
                    self._generation += 1
                self._changed[aggregate] = notification.id
                self._seen = max(self._seen, notification.id)

    def for_retrieval(
        self,
        pins: Pins | None,
        principal: Principal,
        policy_version: str | None,
        source_ids: Sequence[str] | None,
        source_access: Callable[[str], SourceAccess],
    ) -> RetrievalEntitlement:
        """Decide a retrieval's entitlements: the principal bounded by ``pins`` (403
        ``principal-not-pinned`` before anything is read), the policy in force (the request
        may name it, ``PolicyDesk.for_request``), ``source_access`` reading each candidate's
        verified attributes. A source the key may not see is dropped from ``source_ids`` and
        withheld from the candidates without being counted, as if the ledger did not hold it."""
        entitled = bounded_principal(principal, pins)
        self._follow()
        governing = self.policies.for_request(policy_version)
        decided: SourceFilter = PolicyFilter(governing.policy, entitled, source_access)
        if pins is None:
            return RetrievalEntitlement(
                decided, governing.policy_version, None if source_ids is None else tuple(source_ids)
            )
        pinned = PinnedFilter(pins, governing.policy, self.access)
        return RetrievalEntitlement(
            FirstRefusal((pinned, decided)),
            governing.policy_version,
            None if source_ids is None else tuple(s for s in source_ids if pinned.sees(s)),
        )
