"""Which receipts a change touches, each with its outcome and downstream actions: those that
recorded a model, tool or context-assembly version, were opened under a policy or by an API
key, or were expired by one change (``AffectedReadDesk``; the source-version list is in
api/routes/expiry.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from api.affected import expiries_name, list_name, page_json
from api.deps import AffectedReadDeskDep, require
from api.expiry_schemas import AffectedReceipt, ExpiredList
from api.pages import After, Limit, Page, decode_cursor
from ledger.access.policy_version import check_policy_version
from ledger.keys.api_keys import Caller, Scope, check_name

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


def _after(name: str, after: str | None) -> str | None:
    """The receipt id a cursor of list ``name`` names (None: from the start)."""
    key = decode_cursor(name, after, (str,))
    return key[0] if key else None


async def _recording(
    kind: str,
    name: str,
    version: str,
    desk: AffectedReadDeskDep,
    caller: Caller,
    limit: int,
    after: str | None,
) -> dict[str, Any]:
    """The receipts recording ``version`` of the ``kind`` named ``name``, a page of them."""
    cursor = list_name(f"affected-{kind}", name, version)
    start = _after(cursor, after)
    return page_json(cursor, await desk.recording(kind, name, version, start, limit, caller.pins))


@router.get("/v1/models/affected", response_model=Page[AffectedReceipt])
async def model_affected(
    name: Name,
    version: Version,
    desk: AffectedReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Receipts recording this model version (what its retirement expires), by receipt id,
    each with its status, outcome and downstream actions (a pinned key: only receipts it may
    read)."""
    return await _recording("model", name, version, desk, caller, limit, after)


@router.get("/v1/tools/affected", response_model=Page[AffectedReceipt])
async def tool_affected(
    name: Name,
    version: Version,
    desk: AffectedReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Receipts recording this tool version, or the tool's bare name (what its retirement
    expires), by receipt id, each with its status, outcome and downstream actions (a pinned
    key: only receipts it may read)."""
    return await _recording("tool", name, version, desk, caller, limit, after)


@router.get("/v1/context-assemblies/affected", response_model=Page[AffectedReceipt])
async def context_assembly_affected(
    name: Name,
    version: Version,
    desk: AffectedReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Receipts recording this version of a context assembly (what declaring another version
    in force expires), by receipt id, each with its status, outcome and downstream actions (a
    pinned key: only receipts it may read)."""
    return await _recording("context_assembly", name, version, desk, caller, limit, after)


@router.get("/v1/policies/{policy_version}/affected", response_model=Page[AffectedReceipt])
async def policy_affected(
    policy_version: str,
    desk: AffectedReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Receipts opened under this policy version (what its retirement expires), by receipt
    id, each with its status, outcome and downstream actions (a pinned key: only receipts it
    may read)."""
    check_policy_version(policy_version)
    cursor = list_name("affected-policy", policy_version)
    start = _after(cursor, after)
    return page_json(cursor, await desk.under_policy(policy_version, start, limit, caller.pins))


@router.get("/v1/api-keys/{name}/affected", response_model=Page[AffectedReceipt])
async def api_key_affected(
    name: str,
    desk: AffectedReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """Receipts the API key ``name`` opened (what its revocation expires), by receipt id,
    each with its status, outcome and downstream actions (a pinned key: only receipts it may
    read)."""
    check_name(name)
    cursor = list_name("affected-api-key", name)
    start = _after(cursor, after)
    return page_json(cursor, await desk.opened_by(name, start, limit, caller.pins))


@router.get("/v1/expiries", response_model=ExpiredList)
async def expiries(
    cause: Cause,
    desk: AffectedReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
) -> dict[str, Any]:
    """The receipts one change expired (``cause``: ``n<log position>``, as every expiry
    records it), by receipt id, each with the reason the change gave, its status, outcome and
    downstream actions (a pinned key: only receipts it may read)."""
    cursor = expiries_name(cause)
    start = _after(cursor, after)
    found = await desk.expired_by(cause, start, limit, caller.pins)
    return {"cause": cause, **page_json(cursor, found)}
