"""What a pinned API key may find through the lists and lookups, decided from verified events.

A key with pins reads only sources it may see (``ledger/receipts/sight.py``: one of its
principals entitled under the policy in force) and receipts opened for a principal it could
have claimed (``pins_may_read_receipt``): the rules of the single-resource reads, applied to
every item a list or a lookup would serve. Each decision reads the source's or the receipt's
verified events (never a read-model row), a source's within the lease the sight remembers it
for, and is remembered for the rest of the request. The policy in force is read once, when the
view is made, whatever the request then meets: a list that meets a restricted source does no
more reading than one that meets none. A key without pins is a trusted application:
:func:`pinned_view` gives ``None`` and the routes serve as they always did.
"""

from __future__ import annotations

from typing import Any

from anyio.to_thread import run_sync as run_in_threadpool

from ledger.access.attributes import Pins
from ledger.access.policy import AccessPolicy
from ledger.errors import NotFound
from ledger.receipts.entitlement import pins_may_read_receipt
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.sight import KeySight, missing_source, pins_may_see


class PinnedView:
    """One request's decisions for one pinned key."""

    def __init__(
        self,
        pins: Pins,
        sight: KeySight,
        policy: AccessPolicy,
        receipts: ReceiptDesk | None,
        hidden: frozenset[str] = frozenset(),
    ) -> None:
        self.pins = pins
        self.sight = sight
        self.policy = policy
        self.receipts = receipts
        self.hidden = hidden
        """Sources known to be hidden from the key: a search leaves them out in its query."""
        self._sources: dict[str, bool] = {}
        self._receipts: dict[str, bool] = {}

    async def sees_source(self, source_id: str) -> bool:
        """Whether a principal of the key may see ``source_id`` (its verified attributes)."""
        if source_id not in self._sources:
            access = self.sight.remembered(source_id)
            if access is None:
                access = await run_in_threadpool(self.sight.access, source_id)
            self._sources[source_id] = access is not None and pins_may_see(
                self.pins, access, self.policy
            )
        return self._sources[source_id]

    async def reads_receipt(self, receipt_id: str) -> bool:
        """Whether the key could have claimed the principal ``receipt_id`` was opened for
        (its verified events); a receipt the ledger does not hold is not served."""
        if receipt_id not in self._receipts:
            assert self.receipts is not None
            try:
                receipt = await run_in_threadpool(self.receipts.get, receipt_id)
            except NotFound:
                self._receipts[receipt_id] = False
            else:
                self._receipts[receipt_id] = pins_may_read_receipt(receipt.context, self.pins)
        return self._receipts[receipt_id]

    async def source_row(self, row: dict[str, Any]) -> bool:
        """:meth:`sees_source` of a row's ``source_id``."""
        return await self.sees_source(str(row["source_id"]))

    async def receipt_row(self, row: dict[str, Any]) -> bool:
        """:meth:`reads_receipt` of a row's ``receipt_id``."""
        return await self.reads_receipt(str(row["receipt_id"]))


async def pinned_view(
    pins: Pins | None, sight: KeySight, receipts: ReceiptDesk | None = None
) -> PinnedView | None:
    """The view of a key with ``pins`` (else ``None``: a key without pins sees everything)."""
    if pins is None:
        return None

    def decide() -> tuple[AccessPolicy, frozenset[str]]:
        policy = sight.policy()
        return policy, sight.hidden(pins, policy.version, policy)

    policy, hidden = await run_in_threadpool(decide)
    return PinnedView(pins, sight, policy, receipts, hidden)


async def pinned_read(
    sight: KeySight, pins: Pins | None, source_id: str, missing: NotFound | None = None
) -> None:
    """Refuse a pinned key's read of a source it may not see with ``missing``, the answer the
    read gives a source the ledger does not hold (default ``no source ...``): to such a key
    the source does not exist (docs/access.md)."""
    view = await pinned_view(pins, sight)
    if view is not None and not await view.sees_source(source_id):
        raise missing or missing_source(source_id)
