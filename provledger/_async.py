"""The asyncio client: the same methods as :class:`provledger.Client`, awaited (the lists are
async iterators), made from the same calls (``_methods``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx

import provledger._audit_calls as audit_
import provledger._change_calls as changes_
import provledger._memory_calls as memory_
import provledger._receipt_calls as receipts_
import provledger._source_calls as sources_
from provledger._methods import acall, agathered, alisting
from provledger._operations import Listing, auth_headers
from provledger._transport import Request, RetryPolicy, answer, retry_after, transport_retry
from provledger.errors import ServiceUnreachable

T = TypeVar("T")
DEFAULT_TIMEOUT = 30.0


class AsyncClient:
    """The same methods as :class:`Client`, for asyncio."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            headers=auth_headers(api_key),
            timeout=timeout,
            transport=transport,
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def send(self, request: Request[T]) -> T:
        """Send one call, retrying as :mod:`provledger._transport` decides."""
        headers = request.prepared_headers()
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    request.method,
                    request.path,
                    params=request.query(),
                    json=request.json,
                    headers=headers,
                )
            except httpx.TransportError as exc:
                delay = transport_retry(attempt, self.retry)
                if delay is None:
                    raise ServiceUnreachable(f"{request.method} {request.path}: {exc}") from exc
            else:
                delay = retry_after(response, attempt, self.retry)
                if delay is None:
                    return answer(request, response)
            await self._sleep(delay)
            attempt += 1

    async def iterate(self, listing: Listing[T]) -> AsyncIterator[T]:
        """Every item of a cursor list, asking for the next page until ``next`` is null."""
        after = listing.after
        while True:
            page = await self.send(listing.page(after))
            for item in page.items:
                yield listing.item(item)
            if page.next is None:
                return
            after = page.next

    # Sources, versions, spans (docs/registry.md) ----------------------------------------------
    register_source = acall(sources_.register_source)
    add_version = acall(sources_.add_version)
    withdraw_source = acall(sources_.withdraw_source)
    get_source = acall(sources_.get_source)
    sources = alisting(sources_.sources)
    get_version = acall(sources_.get_version)
    get_span = acall(sources_.get_span)
    span_context = acall(sources_.span_context)
    spans = agathered(sources_.spans)
    cells = agathered(sources_.cells)
    search_spans = agathered(sources_.search_spans)
    change_access = acall(sources_.change_access)

    # An answer's path: retrieval, routing, receipts, claims (docs/receipts.md) ---------------
    retrieve = acall(receipts_.retrieve)
    decide_route = acall(receipts_.decide_route)
    open_receipt = acall(receipts_.open_receipt)
    commit_claims = acall(receipts_.commit_claims)
    record_transformation = acall(receipts_.record_transformation)
    get_receipt = acall(receipts_.get_receipt)
    receipts = alisting(receipts_.receipts)
    get_claim = acall(receipts_.get_claim)
    claims = alisting(receipts_.claims)
    context_packet = acall(receipts_.context_packet)
    receipt_access = acall(receipts_.receipt_access)
    repair_claim = acall(receipts_.repair_claim)
    locate = acall(receipts_.locate)
    record_outcome = acall(receipts_.record_outcome)
    record_usage = acall(receipts_.record_usage)

    # Memory items (docs/memory.md) -----------------------------------------------------------
    record_memory = acall(memory_.record_memory)
    correct_memory = acall(memory_.correct_memory)
    revoke_memory = acall(memory_.revoke_memory)
    get_memory = acall(memory_.get_memory)
    memory_items = alisting(memory_.memory_items)
    memory_affected = alisting(memory_.memory_affected)

    # What a change touches (docs/corrections.md) ----------------------------------------------
    affected = acall(changes_.affected)
    retire_model = acall(changes_.retire_model)
    retire_tool = acall(changes_.retire_tool)
    declare_context_assembly = acall(changes_.declare_context_assembly)
    affected_by_model = alisting(changes_.affected_by_model)
    affected_by_tool = alisting(changes_.affected_by_tool)
    affected_by_context_assembly = alisting(changes_.affected_by_context_assembly)
    affected_by_policy = alisting(changes_.affected_by_policy)
    affected_by_api_key = alisting(changes_.affected_by_api_key)
    expired_by = alisting(changes_.expired_by)

    # The service, keys and policies, audit (docs/audit.md) -----------------------------------
    health = acall(audit_.health)
    readiness = acall(audit_.readiness)
    metrics = acall(audit_.metrics)
    public_keys = acall(audit_.public_keys)
    publish_policy = acall(audit_.publish_policy)
    get_policy = acall(audit_.get_policy)
    retire_policy = acall(audit_.retire_policy)
    envelope = acall(audit_.envelope)
    check_envelope = acall(audit_.check_envelope)
    bundle = acall(audit_.bundle)
    checkpoint = acall(audit_.checkpoint)
    inclusion_proof = acall(audit_.inclusion_proof)
    consistency_proof = acall(audit_.consistency_proof)
    events = alisting(audit_.events)
    review = alisting(audit_.review)
    receipt_provenance = acall(audit_.receipt_provenance)
    source_provenance = acall(audit_.source_provenance)
