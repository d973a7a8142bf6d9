"""What an API key with pins may see: one rule for every read and write of a source.

A key with pins acts for the principals its pins allow (:meth:`~ledger.access.Pins.principals`:
one per pinned purpose and destination, with every pinned role, unit and group). It may see a
source when one of them is entitled to it under the policy in force
(:meth:`~ledger.receipts.policy_desk.PolicyDesk.in_force`), by the access attributes the
source's verified events hold. It may read a receipt (and its claims) opened for a principal it
could have claimed (:func:`~ledger.receipts.entitlement.pins_may_read_receipt`).

To such a key, a source or a receipt it may not see does not exist: a refusal is the one a
missing one gets (404 with the same words, :func:`missing_source`), a list leaves it out, a
filter naming it finds nothing. A key without pins is a trusted application and sees
everything.

Time says nothing either. A decision reads no database row when it can avoid it: the verified
attributes of a source are remembered for the lease of remembered API keys
(``PROVLEDGER_KEY_LEASE_MS``), so a search that meets a source the key may not see does no more
work than one that meets none. A change of access attributes waits out that lease before it
answers (:meth:`ledger.registry.commands.SourceRegistry.change_access`), as a key revocation
does, so once it has answered no process decides on the old attributes.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ledger.access.attributes import Pins, Principal, SourceAccess
from ledger.access.policy import AccessPolicy, pins_may_see
from ledger.access.source_filter import PinnedFilter, PolicyFilter
from ledger.errors import NotFound
from ledger.receipts.entitlement import bounded_principal
from ledger.receipts.policy_desk import PolicyDesk
from ledger.retrieval.visibility import FirstRefusal, SourceFilter

__all__ = ["KeySight", "RetrievalEntitlement", "missing_source", "pins_may_see"]

REMEMBERED = 65_536
"""Sources whose verified attributes a process remembers at most (about 200 bytes each)."""


@dataclass(frozen=True)
class RetrievalEntitlement:
    """How a retrieval is decided: its source filter (the pins' sight first, then the policy
    in force for the request's principal), the policy's version and the source filter the
    request gave, less the sources the key may not see."""

    filter: SourceFilter
    policy_version: str
    source_ids: tuple[str, ...] | None


def missing_source(source_id: str) -> NotFound:
    """The refusal of a source the ledger does not hold, and of one the key may not see."""
    return NotFound(f"no source {source_id!r}")


class KeySight:
    """Decides, for a key's pins, which sources it may see (see the module)."""

    def __init__(
        self,
        policies: PolicyDesk,
        lookup: Callable[[str], SourceAccess | None],
        lease: float,
    ) -> None:
        self.policies = policies
        self.lookup = lookup
        """A source's access attributes from its verified events (None: no such source)."""
        self.lease = lease
        self._lock = threading.Lock()
        self._remembered: OrderedDict[str, tuple[float, SourceAccess]] = OrderedDict()

    def policy(self) -> AccessPolicy:
        """The rules in force."""
        return self.policies.in_force().policy

    def sees_access(self, pins: Pins | None, access: SourceAccess) -> bool:
        """Whether a key with ``pins`` may see a source with these verified attributes."""
        return pins is None or pins_may_see(pins, access, self.policy())

    def sees(self, pins: Pins | None, source_id: str) -> bool:
        """Whether a key with ``pins`` may see ``source_id`` (a source the ledger does not
        hold: no)."""
        if pins is None:
            return True
        access = self.access(source_id)
        return access is not None and pins_may_see(pins, access, self.policy())

    def require(self, pins: Pins | None, source_id: str) -> None:
        """Refuse, as a missing source is refused, a source the key may not see."""
        if pins is not None and not self.sees(pins, source_id):
            raise missing_source(source_id)

    def access(self, source_id: str) -> SourceAccess | None:
        """The source's verified attributes, remembered for the lease (None: no source)."""
        now = time.monotonic()
        with self._lock:
            known = self._remembered.get(source_id)
            if known is not None and now < known[0]:
                self._remembered.move_to_end(source_id)
                return known[1]
        access = self.lookup(source_id)
        if access is None or self.lease <= 0:
            return access
        with self._lock:
            self._remembered[source_id] = (now + self.lease, access)
            self._remembered.move_to_end(source_id)
            while len(self._remembered) > REMEMBERED:
                self._remembered.popitem(last=False)
        return access

    def remembered(self, source_id: str) -> SourceAccess | None:
        """The attributes remembered within the lease, without reading (None: not now)."""
        with self._lock:
            known = self._remembered.get(source_id)
        return known[1] if known is not None and time.monotonic() < known[0] else None

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
