"""Which receipts a change touches, each with its outcome and downstream actions: those that
recorded a model, tool or context-assembly version, were opened under a policy or by an API
key, or were expired by one change (api/affected.py; the source-version list is in
api/routes/expiry.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from api.affected import Fetch, affected_page, expired_by, list_name
from api.deps import OutcomeDeskDep, ReadSideDep, ReceiptDeskDep, SightDep, require
from api.expiry_schemas import AffectedReceipt, ExpiredList
from api.pages import After, Limit, Page
from ledger.access.policy_version import check_policy_version
from ledger.keys.api_keys import Caller, Scope, check_name
from projections.affected_queries import (
    ReadConnection,
    receipts_opened_by,
    receipts_recording,
    receipts_under_policy,
)
from projections.pinned_view import PinnedView, pinned_view

router = APIRouter(tags=["expiry"])
Reader = Annotated[Caller, Depends(require(Scope.READ))]
Name = Annotated[str, Query(min_length=1, max_length=200, description="as receipts record it")]
Version = Annotated[str, Query(min_length=1, max_length=200, description="as receipts record it")]
Cause = Annotated[
    str,
    Query(
        pattern=r"^n[0-9]{1,19}$",
        description="n<log position> of the change (a write's answer gives it as expired.cause)",
    ),
]


def _recording(kind: str, name: str, version: str) -> Fetch:
    async def fetch(conn: ReadConnection, after: str | None, n: int) -> list[dict[str, Any]]:
        return await receipts_recording(conn, kind, name, version, after, n)

    return fetch


async def _recorded_list(
    kind: str,
    name: str,
    version: str,
    after: str | None,
    limit: int,
    read_side: ReadSideDep,
    outcomes: OutcomeDeskDep,
    view: PinnedView | None,
) -> dict[str, Any]:
    cursor = list_name(f"affected-{kind}", name, version)
    fetch = _recording(kind, name, version)
    return await affected_page(cursor, fetch, after, limit, read_side, outcomes, view)


@router.get("/v1/models/affected", response_model=Page[AffectedReceipt])
async def model_affected(
    name: Name,
    version: Version,
    read_side: ReadSideDep,
    desk: ReceiptDeskDep,
    outcomes: OutcomeDeskDep,
    sight: SightDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Receipts recording this model version (what its retirement expires), by receipt id,
    each with its status, outcome and downstream actions (a pinned key: only receipts it may
    read)."""
    view = await pinned_view(caller.pins, sight, desk)
    return await _recorded_list("model", name, version, after, limit, read_side, outcomes, view)


@router.get("/v1/tools/affected", response_model=Page[AffectedReceipt])
async def tool_affected(
    name: Name,
    version: Version,
    read_side: ReadSideDep,
    desk: ReceiptDeskDep,
    outcomes: OutcomeDeskDep,
    sight: SightDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Receipts recording this tool version, or the tool's bare name (what its retirement
    expires), by receipt id, each with its status, outcome and downstream actions (a pinned
    key: only receipts it may read)."""
    view = await pinned_view(caller.pins, sight, desk)
    return await _recorded_list("tool", name, version, after, limit, read_side, outcomes, view)


@router.get("/v1/context-assemblies/affected", response_model=Page[AffectedReceipt])
async def context_assembly_affected(
    name: Name,
    version: Version,
    read_side: ReadSideDep,
    desk: ReceiptDeskDep,
    outcomes: OutcomeDeskDep,
    sight: SightDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Receipts recording this version of a context assembly (what declaring another version
    in force expires), by receipt id, each with its status, outcome and downstream actions (a
    pinned key: only receipts it may read)."""
    view = await pinned_view(caller.pins, sight, desk)
    return await _recorded_list(
        "context_assembly", name, version, after, limit, read_side, outcomes, view
    )


@router.get("/v1/policies/{policy_version}/affected", response_model=Page[AffectedReceipt])
async def policy_affected(
    policy_version: str,
    read_side: ReadSideDep,
    desk: ReceiptDeskDep,
    outcomes: OutcomeDeskDep,
    sight: SightDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Receipts opened under this policy version (what its retirement expires), by receipt
    id, each with its status, outcome and downstream actions (a pinned key: only receipts it
    may read)."""
    check_policy_version(policy_version)

    async def fetch(conn: ReadConnection, last: str | None, n: int) -> list[dict[str, Any]]:
        return await receipts_under_policy(conn, policy_version, last, n)

    view = await pinned_view(caller.pins, sight, desk)
    name = list_name("affected-policy", policy_version)
    return await affected_page(name, fetch, after, limit, read_side, outcomes, view)


@router.get("/v1/api-keys/{name}/affected", response_model=Page[AffectedReceipt])
async def api_key_affected(
    name: str,
    read_side: ReadSideDep,
    desk: ReceiptDeskDep,
    outcomes: OutcomeDeskDep,
    sight: SightDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Receipts the API key ``name`` opened (what its revocation expires), by receipt id,
    each with its status, outcome and downstream actions (a pinned key: only receipts it may
    read)."""
    check_name(name)
    opened_by = f"key:{name}"

    async def fetch(conn: ReadConnection, last: str | None, n: int) -> list[dict[str, Any]]:
        return await receipts_opened_by(conn, opened_by, last, n)

    view = await pinned_view(caller.pins, sight, desk)
    cursor = list_name("affected-api-key", name)
    return await affected_page(cursor, fetch, after, limit, read_side, outcomes, view)


@router.get("/v1/expiries", response_model=ExpiredList)
async def expiries(
    cause: Cause,
    read_side: ReadSideDep,
    desk: ReceiptDeskDep,
    outcomes: OutcomeDeskDep,
    sight: SightDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """The receipts one change expired (``cause``: ``n<log position>``, as every expiry
    records it), by receipt id, each with the reason the change gave, its status, outcome and
    downstream actions (a pinned key: only receipts it may read)."""
    view = await pinned_view(caller.pins, sight, desk)
    return await expired_by(cause, after, limit, read_side, outcomes, view)
