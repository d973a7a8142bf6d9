"""The calls of memory items: record, correct, revoke, read, list, and the receipts that used
one (docs/memory.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provledger._operations import (
    Listing,
    Moment,
    get_listing,
    idempotency,
    json_item,
    model_answer,
    model_item,
    present,
    segment,
    time_param,
)
from provledger._transport import Request
from provledger.models import AffectedReceipt, Memory


def record_memory(
    *,
    purpose: str,
    scope: Mapping[str, Any],
    source: Sequence[str],
    text: str,
    expires_at: Moment,
    memory_id: str | None = None,
    idempotency_key: str | None = None,
) -> Request[Memory]:
    """Record a memory item (``POST /v1/memory``): ``source`` the span and claim ids it came
    from, ``scope`` access attributes (its ``purposes`` default to ``[purpose]``). Without a
    ``memory_id`` the item is named by the call's Idempotency-Key, so a retry names it
    again."""
    body = {
        "memory_id": memory_id,
        "purpose": purpose,
        "scope": dict(scope),
        "source": list(source),
        "text": text,
        "expires_at": time_param(expires_at),
    }
    return Request(
        "POST",
        "/v1/memory",
        model_answer(Memory),
        json=present(body),
        headers=idempotency(idempotency_key),
    )


def correct_memory(
    memory_id: str,
    reason: str,
    *,
    purpose: str | None = None,
    scope: Mapping[str, Any] | None = None,
    source: Sequence[str] | None = None,
    text: str | None = None,
    expires_at: Moment = None,
) -> Request[Memory]:
    """Correct an item by a new version, fields left out keeping the current version's; the
    receipts that used the version before expire before the answer
    (``POST /v1/memory/{memory_id}/versions``)."""
    body = {
        "reason": reason,
        "purpose": purpose,
        "scope": None if scope is None else dict(scope),
        "source": None if source is None else list(source),
        "text": text,
        "expires_at": time_param(expires_at),
    }
    path = f"/v1/memory/{segment(memory_id)}/versions"
    return Request("POST", path, model_answer(Memory), json=present(body))


def revoke_memory(memory_id: str, reason: str) -> Request[Memory]:
    """Revoke an item; every receipt that used it expires before the answer
    (``POST /v1/memory/{memory_id}/revoke``)."""
    path = f"/v1/memory/{segment(memory_id)}/revoke"
    return Request("POST", path, model_answer(Memory), json={"reason": reason})


def get_memory(memory_id: str) -> Request[Memory]:
    """A memory item with its status and every version (``GET /v1/memory/{memory_id}``)."""
    return Request("GET", f"/v1/memory/{segment(memory_id)}", model_answer(Memory))


def memory_items(
    *, purpose: str | None = None, status: str | None = None, page_size: int = 100
) -> Listing[dict[str, Any]]:
    """Every memory item (a summary), filtered (``GET /v1/memory``)."""
    params = present({"purpose": purpose, "status": status})
    return get_listing("/v1/memory", params, page_size, json_item)


def memory_affected(memory_id: str, *, page_size: int = 100) -> Listing[AffectedReceipt]:
    """Every receipt whose pool sealed a version of the item, with the version, its status,
    outcome and actions (``GET /v1/memory/{memory_id}/affected``)."""
    path = f"/v1/memory/{segment(memory_id)}/affected"
    return get_listing(path, {}, page_size, model_item(AffectedReceipt))
