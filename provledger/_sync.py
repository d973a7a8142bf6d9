"""The blocking client: every call of the API as a method, each written once in the
``_*_calls`` modules and sent with the retries ``_transport`` decides.

    with Client("http://127.0.0.1:8000", api_key) as ledger:
        version = ledger.register_source("memo-1", "Memo", "Revenue rose 2.2%.")
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Self, TypeVar

import httpx

import provledger._audit_calls as audit_
import provledger._change_calls as changes_
import provledger._memory_calls as memory_
import provledger._receipt_calls as receipts_
import provledger._source_calls as sources_
from provledger._methods import call, gathered, listing
from provledger._operations import Listing, auth_headers
from provledger._transport import Request, RetryPolicy, answer, retry_after, transport_retry
from provledger.errors import ServiceUnreachable

T = TypeVar("T")
DEFAULT_TIMEOUT = 30.0


class Client:
    """A blocking client. ``api_key`` is sent as ``Authorization: Bearer``; ``retry`` bounds
    the retries of a call; ``transport`` replaces httpx's (tests: ``httpx.MockTransport``).
    Every operation of the service's OpenAPI document is a method (docs/client.md)."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers=auth_headers(api_key),
            timeout=timeout,
            transport=transport,
        )

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def send(self, request: Request[T]) -> T:
        """Send one call, retrying as :mod:`provledger._transport` decides."""
        headers = request.prepared_headers()  # one Idempotency-Key for every try
        attempt = 0
        while True:
            try:
                response = self._http.request(
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
            self._sleep(delay)
            attempt += 1

    def iterate(self, listing: Listing[T]) -> Iterator[T]:
        """Every item of a cursor list, asking for the next page until ``next`` is null."""
        after = listing.after
        while True:
            page = self.send(listing.page(after))
            yield from map(listing.item, page.items)
            if page.next is None:
                return
            after = page.next

    # Sources, versions, spans (docs/registry.md) ----------------------------------------------
    register_source = call(sources_.register_source)
    add_version = call(sources_.add_version)
    withdraw_source = call(sources_.withdraw_source)
    get_source = call(sources_.get_source)
    sources = listing(sources_.sources)
    get_version = call(sources_.get_version)
    get_span = call(sources_.get_span)
    span_context = call(sources_.span_context)
    spans = gathered(sources_.spans)
    cells = gathered(sources_.cells)
    search_spans = gathered(sources_.search_spans)
    change_access = call(sources_.change_access)

    # An answer's path: retrieval, routing, receipts, claims (docs/receipts.md) ---------------
    retrieve = call(receipts_.retrieve)
    decide_route = call(receipts_.decide_route)
    open_receipt = call(receipts_.open_receipt)
    commit_claims = call(receipts_.commit_claims)
    record_transformation = call(receipts_.record_transformation)
    get_receipt = call(receipts_.get_receipt)
    receipts = listing(receipts_.receipts)
    get_claim = call(receipts_.get_claim)
    claims = listing(receipts_.claims)
    context_packet = call(receipts_.context_packet)
    receipt_access = call(receipts_.receipt_access)
    repair_claim = call(receipts_.repair_claim)
    locate = call(receipts_.locate)
    record_outcome = call(receipts_.record_outcome)
    record_usage = call(receipts_.record_usage)

    # Memory items (docs/memory.md) -----------------------------------------------------------
    record_memory = call(memory_.record_memory)
    correct_memory = call(memory_.correct_memory)
    revoke_memory = call(memory_.revoke_memory)
    get_memory = call(memory_.get_memory)
    memory_items = listing(memory_.memory_items)
    memory_affected = listing(memory_.memory_affected)

    # What a change touches (docs/corrections.md) ----------------------------------------------
    affected = call(changes_.affected)
    retire_model = call(changes_.retire_model)
    retire_tool = call(changes_.retire_tool)
    declare_context_assembly = call(changes_.declare_context_assembly)
    affected_by_model = listing(changes_.affected_by_model)
    affected_by_tool = listing(changes_.affected_by_tool)
    affected_by_context_assembly = listing(changes_.affected_by_context_assembly)
    affected_by_policy = listing(changes_.affected_by_policy)
    affected_by_api_key = listing(changes_.affected_by_api_key)
    expired_by = listing(changes_.expired_by)

    # The service, keys and policies, audit (docs/audit.md) -----------------------------------
    health = call(audit_.health)
    readiness = call(audit_.readiness)
    metrics = call(audit_.metrics)
    public_keys = call(audit_.public_keys)
    publish_policy = call(audit_.publish_policy)
    get_policy = call(audit_.get_policy)
    retire_policy = call(audit_.retire_policy)
    envelope = call(audit_.envelope)
    check_envelope = call(audit_.check_envelope)
    bundle = call(audit_.bundle)
    checkpoint = call(audit_.checkpoint)
    inclusion_proof = call(audit_.inclusion_proof)
    consistency_proof = call(audit_.consistency_proof)
    events = listing(audit_.events)
    review = listing(audit_.review)
    receipt_provenance = call(audit_.receipt_provenance)
    source_provenance = call(audit_.source_provenance)
