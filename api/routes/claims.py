"""A committed claim rendered for a reader."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from api.deps import AsOfDep, ReadSideDep, ReceiptDeskDep, SightDep, require
from api.errors import Problem
from api.openapi import answers
from api.pages import After, Limit, Page, decode_cursor, encode_cursor
from api.schemas import ClaimView
from ledger.errors import NotFound
from ledger.eventlog.clock import parse_time
from ledger.keys.api_keys import Caller, Scope
from ledger.receipts.document import receipt_status
from projections.claim_queries import Coordinates, binding_views, claim_lookup
from projections.pages import page, visible_rows
from projections.pinned_view import pinned_view
from projections.receipt_queries import list_claims

router = APIRouter(tags=["claims"])
Reader = Annotated[Caller, Depends(require(Scope.READ))]


class ClaimSummary(BaseModel):
    """A claim as ``GET /v1/claims`` lists it (from the read model; the claim itself, with its
    text, checks and rendered bindings, is ``GET /v1/claims/{claim_id}``)."""

    claim_id: str
    receipt_id: str
    ordinal: int
    status: str = Field(description="verified, unverified or rejected")
    committed: bool = Field(description="false for a quarantined or rejected claim")
    client_ref: str | None
    type: str
    recorded_at: str
    position: int


@router.get(
    "/v1/claims",
    response_model=Page[ClaimSummary],
    responses={
        401: {"model": Problem, "description": "no or unknown API key"},
        403: {"model": Problem, "description": "the key lacks the read scope"},
        422: {"model": Problem, "description": "invalid input (errors names field and rule)"},
    },
)
async def list_claims_route(
    read_side: ReadSideDep,
    desk: ReceiptDeskDep,
    sight: SightDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
    receipt_id: Annotated[str | None, Query(max_length=40)] = None,
    source_id: Annotated[str | None, Query(max_length=128)] = None,
    status: Annotated[Literal["verified", "unverified", "rejected"] | None, Query()] = None,
) -> dict[str, Any]:
    """Claims in the order they were recorded, filtered, a page at a time (a pinned key: only
    claims of receipts it may read, docs/access.md)."""
    key = decode_cursor("claims", after, (int, int))
    await run_in_threadpool(read_side.receipts.catch_up)  # read-your-writes in this process
    view = await pinned_view(caller.pins, sight, desk)
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
    return {"items": items, "next": None if last is None else encode_cursor("claims", last)}


@router.get("/v1/claims/{claim_id}", response_model=None, responses=answers(ClaimView, 404))
async def get_claim(
    claim_id: str, desk: ReceiptDeskDep, read_side: ReadSideDep, caller: Reader, as_of: AsOfDep
) -> dict[str, Any]:
    """The claim with, per binding, its document, breadcrumb, excerpt and warnings, as it
    stood at ``known_at`` (committed, repaired, its receipt expired or not)."""
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
        desk.read_claim, receipt_id, claim_id, caller.pins, as_of.known_at
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
    expiry = receipt_status(receipt, None if as_of.known_at is None else parse_time(as_of.known_at))
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
    warnings = []
    if version_status in ("superseded", "withdrawn"):
        warnings.append(version_status)
    if version_status is None:
        warnings.append("span_not_in_pool")
    if claim_status != "verified":
        warnings.append(claim_status)
    return warnings
