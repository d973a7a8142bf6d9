"""The calls of what a change touches: retiring a model or tool version, declaring a
context-assembly version, and the lists of the receipts each change (or a source version,
policy version or API key) touches, with their outcomes and downstream actions
(docs/corrections.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from provledger._operations import (
    Listing,
    get_listing,
    json_answer,
    model_answer,
    model_item,
    segment,
)
from provledger._transport import Request
from provledger.models import AffectedReceipt, VersionChange


def _change(path: str, name: str, version: str, reason: str) -> Request[VersionChange]:
    body = {"name": name, "version": version, "reason": reason}
    return Request("POST", path, model_answer(VersionChange), json=body)


def retire_model(name: str, version: str, reason: str) -> Request[VersionChange]:
    """Retire a model version: the receipts recording it expire
    (``POST /v1/models/retire``, scope ``admin``)."""
    return _change("/v1/models/retire", name, version, reason)


def retire_tool(name: str, version: str, reason: str) -> Request[VersionChange]:
    """Retire a tool version: the receipts recording it, or the bare tool, expire
    (``POST /v1/tools/retire``, scope ``admin``)."""
    return _change("/v1/tools/retire", name, version, reason)


def declare_context_assembly(name: str, version: str, reason: str) -> Request[VersionChange]:
    """Declare a context-assembly version in force: receipts of its other versions expire
    (``POST /v1/context-assemblies/declare``, scope ``admin``)."""
    return _change("/v1/context-assemblies/declare", name, version, reason)


def _touched(path: str, params: Mapping[str, Any], page_size: int) -> Listing[AffectedReceipt]:
    return get_listing(path, params, page_size, model_item(AffectedReceipt))


def affected_by_model(name: str, version: str, *, page_size: int = 100) -> Listing[AffectedReceipt]:
    """Every receipt recording this model version, with its outcome and actions
    (``GET /v1/models/affected``)."""
    return _touched("/v1/models/affected", {"name": name, "version": version}, page_size)


def affected_by_tool(name: str, version: str, *, page_size: int = 100) -> Listing[AffectedReceipt]:
    """Every receipt recording this tool version, or the bare tool
    (``GET /v1/tools/affected``)."""
    return _touched("/v1/tools/affected", {"name": name, "version": version}, page_size)


def affected_by_context_assembly(
    name: str, version: str, *, page_size: int = 100
) -> Listing[AffectedReceipt]:
    """Every receipt recording this version of a context assembly
    (``GET /v1/context-assemblies/affected``)."""
    params = {"name": name, "version": version}
    return _touched("/v1/context-assemblies/affected", params, page_size)


def affected_by_policy(policy_version: str, *, page_size: int = 100) -> Listing[AffectedReceipt]:
    """Every receipt opened under this policy version
    (``GET /v1/policies/{policy_version}/affected``)."""
    return _touched(f"/v1/policies/{segment(policy_version)}/affected", {}, page_size)


def affected_by_api_key(name: str, *, page_size: int = 100) -> Listing[AffectedReceipt]:
    """Every receipt the API key ``name`` opened (``GET /v1/api-keys/{name}/affected``)."""
    return _touched(f"/v1/api-keys/{segment(name)}/affected", {}, page_size)


def expired_by(cause: str, *, page_size: int = 100) -> Listing[AffectedReceipt]:
    """Every receipt one change expired (``cause``: ``n<position>``, as a write's
    ``expired.cause`` gives it), each with the reason it gave, its outcome and actions
    (``GET /v1/expiries``)."""
    return _touched("/v1/expiries", {"cause": cause}, page_size)


def affected(
    source_id: str, version: int, *, limit: int = 100, after: str | None = None
) -> Request[dict[str, Any]]:
    """A page of the receipts and committed claims that stood on a source version, with the
    counts over every page (``GET /v1/sources/{source_id}/versions/{version}/affected``)."""
    path = f"/v1/sources/{segment(source_id)}/versions/{version}/affected"
    return Request("GET", path, json_answer, params={"limit": limit, "after": after})
