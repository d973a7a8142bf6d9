"""The claim reads: ``GET /v1/claims`` and ``GET /v1/claims/{claim_id}``.

The list comes from the receipts read model, filtered for a pinned key
(``projections/pinned_view.py``) and checked against the verified events before it is served.
A claim itself comes from its verified receipt (``ReceiptDesk.read_claim``); the read model
only renders the spans it binds, and each rendered span is checked against the verified
events too (``ServedRows.check_views``).
"""

from __future__ import annotations

from typing import Any

from anyio.to_thread import run_sync as run_in_threadpool

from ledger.access.attributes import Pins
from ledger.errors import NotFound
from ledger.eventlog.clock import parse_time
from ledger.receipts.document import receipt_status
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.sight import KeySight
from projections.claim_queries import Coordinates, binding_views, claim_lookup
from projections.pages import page, visible_rows
from projections.pinned_view import pinned_view
from projections.receipt_queries import list_claims
from projections.registry_queries import AsOf
from projections.service import ReadSide


class ClaimReadDesk:
    """Lists claims and renders one claim with its bindings, for a key's pins."""

    def __init__(self, read_side: ReadSide, sight: KeySight, receipts: ReceiptDesk) -> None:
        self.read_side = read_side
        self.sight = sight
        self.receipts = receipts

    async def claims_page(
        self,
        key: list[int],
        limit: int,
        pins: Pins | None,
        receipt_id: str | None = None,
        source_id: str | None = None,
        status: str | None = None,
    ) -> tuple[list[dict[str, Any]], list[int] | None]:
        """A page of claims in the order they were recorded after the sort key ``key``
        (position, ordinal; [] for the start), filtered, and the sort key of its last item
        when more follow (a pinned key: only claims of receipts it may read)."""
        read_side = self.read_side
        await run_in_threadpool(read_side.receipts.catch_up)  # read-your-writes in this process
        view = await pinned_view(pins, self.sight, self.receipts)
        async with read_side.async_engine.connect() as conn:

            async def fetch(last: list[int] | None, n: int) -> list[dict[str, Any]]:
                return await list_claims(conn, last or [], n, receipt_id, source_id, status)

            if view is None:
                rows = await fetch(key, limit)
            else:
                rows = await visible_rows(
                    fetch, lambda r: [r["position"], r["ordinal"]], view.receipt_row, key, limit
                )
        items, last = page(rows, limit, lambda row: [row["position"], row["ordinal"]])
        # Refused (500 ``ledger-integrity``) unless the verified events hold every row served.
        await run_in_threadpool(read_side.served_receipts.check_claims, items, source_id)
        return items, last

    async def claim(self, claim_id: str, pins: Pins | None, as_of: AsOf) -> dict[str, Any]:
        """The claim with, per binding, its document, breadcrumb, excerpt and warnings, as it
        stood at ``as_of.known_at``; a claim of a receipt the key may not read is refused as a
        missing claim is."""
        read_side = self.read_side
        try:
            async with read_side.async_engine.connect() as conn:
                found = await claim_lookup(conn, claim_id, as_of)
        except NotFound:
            # Read-your-writes: a claim committed a moment ago may not be projected yet.
            await run_in_threadpool(read_side.receipts.catch_up)
            async with read_side.async_engine.connect() as conn:
                found = await claim_lookup(conn, claim_id, as_of)
        receipt_id = found.receipt_id
        # The claim itself comes from the verified receipt; the read model only renders spans.
        receipt, claim, committed = await run_in_threadpool(
            self.receipts.read_claim, receipt_id, claim_id, pins, as_of.known_at
        )
        views = found.views
        missing = [c for c in map(_coordinates, claim["bindings"]) if c and c not in views]
        if missing:
            # Bindings the index does not hold (the claim as it stood before a repair).
            async with read_side.async_engine.connect() as conn:
                views = {**views, **await binding_views(conn, missing, as_of)}
        used = [views[c] for c in map(_coordinates, claim["bindings"]) if c and c in views]
        await run_in_threadpool(read_side.served.check_views, used, as_of.known_at)
        bindings = _render_bindings(claim, views)
        known_at = None if as_of.known_at is None else parse_time(as_of.known_at)
        expiry = receipt_status(receipt, known_at)
        return {
            "claim_id": claim_id,
            "receipt_id": receipt_id,
            "receipt_status": expiry["status"],
            "repairs": claim.get("repairs", []),
            "client_ref": claim["client_ref"],
            "text": claim["text"],
            "type": claim["type"],
            "material": claim["material"],
            "status": claim["status"],
            "committed": committed,
            "checks": claim["checks"],
            "bindings": bindings,
            "warnings": sorted(
                {w for b in bindings for w in b["warnings"]}
                | ({claim["status"]} if claim["status"] != "verified" else set())
            ),
        }


def _render_bindings(
    claim: dict[str, Any], views: dict[Coordinates, dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each binding of the verified ``claim`` with its rendered span and its warnings."""
    bindings = []
    for binding in claim["bindings"]:
        view: dict[str, Any] = {"span_id": binding["span_id"], "role": binding["role"]}
        if binding.get("transformation_id") is not None:  # an input of a transformation
            view["transformation_id"] = binding["transformation_id"]
        coordinates = _coordinates(binding)
        if coordinates is not None:
            if coordinates not in views:
                span_id, source_id, version = coordinates
                raise NotFound(
                    f"span {span_id} of {source_id} version {version} is not in the registry"
                )
            view.update(views[coordinates])
        view["quote"] = binding["quote"]
        view["warnings"] = _warnings(view.get("status"), claim["status"])
        bindings.append(view)
    return bindings


def _coordinates(binding: dict[str, Any]) -> Coordinates | None:
    """Where a bound span sits in the registry, or None for a binding to no source."""
    if binding["source_id"] is None:
        return None
    return (binding["span_id"], binding["source_id"], binding["version"])


def _warnings(version_status: str | None, claim_status: str) -> list[str]:
    """A binding's warnings: its version superseded or withdrawn, its span not in the pool,
    its claim not verified."""
    warnings = []
    if version_status in ("superseded", "withdrawn"):
        warnings.append(version_status)
    if version_status is None:
        warnings.append("span_not_in_pool")
    if claim_status != "verified":
        warnings.append(claim_status)
    return warnings
