"""The asyncio client: the same calls as :class:`provledger.Client`, awaited."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx

from provledger import _operations as ops
from provledger._operations import Moment, Page, auth_headers, receipt_body
from provledger._transport import (
    Request,
    RetryPolicy,
    answer,
    retry_after,
    transport_retry,
)
from provledger.errors import ServiceUnreachable
from provledger.models import (
    AffectedReceipt,
    Claim,
    CommitResult,
    Event,
    Outcome,
    Receipt,
    Source,
    SourceVersion,
    Span,
    Transformation,
    VersionChange,
)

T = TypeVar("T")
DEFAULT_TIMEOUT = 30.0


class AsyncClient:
    """The same calls as :class:`Client`, for asyncio."""

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

    async def _pages(self, collection: str, limit: int) -> AsyncIterator[dict[str, Any]]:
        after: str | None = None
        while True:
            page: Page = await self.send(ops.list_page(collection, limit, after))
            for item in page.items:
                yield item
            if page.next is None:
                return
            after = page.next

    async def public_keys(self) -> dict[str, Any]:
        """See :meth:`Client.public_keys`."""
        return await self.send(ops.public_keys())

    async def register_source(
        self,
        source_id: str,
        title: str,
        text: str,
        *,
        authority: str = "source_of_record",
        media_type: str = "text/plain",
        uri: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        tables: Sequence[Mapping[str, Any]] | None = None,
        effective_from: Moment = None,
        include_spans: bool = True,
    ) -> SourceVersion:
        """See :meth:`Client.register_source`."""
        return await self.send(
            ops.register_source(
                source_id,
                title,
                text,
                authority=authority,
                media_type=media_type,
                uri=uri,
                metadata=metadata,
                tables=tables,
                effective_from=effective_from,
                include_spans=include_spans,
            )
        )

    async def add_version(
        self,
        source_id: str,
        text: str,
        *,
        title: str | None = None,
        media_type: str = "text/plain",
        tables: Sequence[Mapping[str, Any]] | None = None,
        effective_from: Moment = None,
        include_spans: bool = True,
    ) -> SourceVersion:
        """See :meth:`Client.add_version`."""
        return await self.send(
            ops.add_version(
                source_id,
                text,
                title=title,
                media_type=media_type,
                tables=tables,
                effective_from=effective_from,
                include_spans=include_spans,
            )
        )

    async def withdraw_source(self, source_id: str, reason: str) -> Source:
        """See :meth:`Client.withdraw_source`."""
        return await self.send(ops.withdraw_source(source_id, reason))

    async def get_source(
        self, source_id: str, *, known_at: Moment = None, valid_at: Moment = None
    ) -> Source:
        """See :meth:`Client.get_source`."""
        return await self.send(ops.get_source(source_id, known_at, valid_at))

    async def sources(self, *, page_size: int = 100) -> AsyncIterator[Source]:
        """See :meth:`Client.sources`."""
        async for item in self._pages("sources", page_size):
            yield Source.model_validate(item)

    async def get_span(self, span_id: str) -> Span:
        """See :meth:`Client.get_span`."""
        return await self.send(ops.get_span(span_id))

    async def spans(
        self,
        source_id: str,
        version: int,
        *,
        start: int | None = None,
        end: int | None = None,
        include_text: bool = False,
    ) -> list[Span]:
        """See :meth:`Client.spans`."""
        return await self.send(ops.spans(source_id, version, start, end, include_text))

    async def cells(
        self,
        source_id: str,
        version: int,
        table: str,
        *,
        row: int | None = None,
        col: int | None = None,
    ) -> list[Span]:
        """See :meth:`Client.cells`."""
        return await self.send(ops.cells(source_id, version, table, row, col))

    async def search_spans(
        self,
        quote: str,
        *,
        source_id: str | None = None,
        as_of: Moment = None,
        include_text: bool = False,
    ) -> list[Span]:
        """See :meth:`Client.search_spans`."""
        return await self.send(ops.search_spans(quote, source_id, as_of, include_text))

    async def open_receipt(
        self,
        *,
        request: str,
        actor: str,
        purpose: str,
        policy_version: str | None = None,
        route: str,
        model: Mapping[str, str],
        evidence: Sequence[str],
        inference_id: str | None = None,
        tools: Sequence[str] = (),
        excluded: Sequence[Mapping[str, str]] = (),
        as_of: Moment = None,
        expires_at: Moment = None,
        budget: Mapping[str, Any] | None = None,
        context_assembly: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Receipt:
        """See :meth:`Client.open_receipt`."""
        body = receipt_body(
            request,
            actor,
            purpose,
            policy_version,
            route,
            model,
            evidence,
            inference_id,
            tools,
            excluded,
            as_of,
            expires_at,
            budget,
            context_assembly,
        )
        return await self.send(ops.open_receipt(body, idempotency_key))

    async def commit_claims(
        self,
        receipt_id: str,
        claims: Sequence[Mapping[str, Any]],
        *,
        mode: str = "atomic",
        rendered_answer: str | None = None,
        repair: bool = False,
        idempotency_key: str | None = None,
    ) -> CommitResult:
        """See :meth:`Client.commit_claims`."""
        return await self.send(
            ops.commit_claims(
                receipt_id,
                claims,
                mode=mode,
                rendered_answer=rendered_answer,
                repair=repair,
                idempotency_key=idempotency_key,
            )
        )

    async def record_transformation(
        self,
        receipt_id: str,
        *,
        method: str,
        inputs: Sequence[str],
        output: str,
        must_keep: Sequence[str],
        may_remove: Sequence[str] = (),
    ) -> Transformation:
        """See :meth:`Client.record_transformation`."""
        return await self.send(
            ops.record_transformation(
                receipt_id,
                method=method,
                inputs=inputs,
                output=output,
                must_keep=must_keep,
                may_remove=may_remove,
            )
        )

    async def get_receipt(self, receipt_id: str, *, known_at: Moment = None) -> Receipt:
        """See :meth:`Client.get_receipt`."""
        return await self.send(ops.get_receipt(receipt_id, known_at))

    async def receipts(self, *, page_size: int = 100) -> AsyncIterator[Receipt]:
        """See :meth:`Client.receipts`."""
        async for item in self._pages("receipts", page_size):
            yield Receipt.model_validate(item)

    async def get_claim(self, claim_id: str, *, known_at: Moment = None) -> Claim:
        """See :meth:`Client.get_claim`."""
        return await self.send(ops.get_claim(claim_id, known_at))

    async def claims(self, *, page_size: int = 100) -> AsyncIterator[Claim]:
        """See :meth:`Client.claims`."""
        async for item in self._pages("claims", page_size):
            yield Claim.model_validate(item)

    async def envelope(self, receipt_id: str) -> dict[str, Any]:
        """See :meth:`Client.envelope`."""
        return await self.send(ops.envelope(receipt_id))

    async def bundle(self, claim_id: str, *, since_size: int | None = None) -> dict[str, Any]:
        """See :meth:`Client.bundle`."""
        return await self.send(ops.bundle(claim_id, since_size))

    async def checkpoint(self) -> str:
        """See :meth:`Client.checkpoint`."""
        return await self.send(ops.checkpoint())

    async def events(self, *, after: int = 0, page_size: int = 100) -> AsyncIterator[Event]:
        """See :meth:`Client.events`."""
        while True:
            page, after = await self.send(ops.events_page(after, page_size))
            if not page:
                return
            for event in page:
                yield event

    # Outcomes, retirements and what a change touches -----------------------------------------

    async def record_outcome(
        self,
        receipt_id: str,
        decision: str,
        *,
        actions: Sequence[Mapping[str, str]] = (),
        reviewer: str | None = None,
    ) -> Outcome:
        """:meth:`Client.record_outcome`, awaited."""
        return await self.send(ops.record_outcome(receipt_id, decision, actions, reviewer))

    async def retire_model(self, name: str, version: str, reason: str) -> VersionChange:
        """:meth:`Client.retire_model`, awaited."""
        return await self.send(ops.change_version("/v1/models/retire", name, version, reason))

    async def retire_tool(self, name: str, version: str, reason: str) -> VersionChange:
        """:meth:`Client.retire_tool`, awaited."""
        return await self.send(ops.change_version("/v1/tools/retire", name, version, reason))

    async def declare_context_assembly(self, name: str, version: str, reason: str) -> VersionChange:
        """:meth:`Client.declare_context_assembly`, awaited."""
        path = "/v1/context-assemblies/declare"
        return await self.send(ops.change_version(path, name, version, reason))

    async def _affected(
        self, path: str, params: Mapping[str, str], page_size: int
    ) -> AsyncIterator[AffectedReceipt]:
        after: str | None = None
        while True:
            page: Page = await self.send(ops.affected_page(path, params, page_size, after))
            for item in page.items:
                yield AffectedReceipt.model_validate(item)
            if page.next is None:
                return
            after = page.next

    def affected_by_model(
        self, name: str, version: str, *, page_size: int = 100
    ) -> AsyncIterator[AffectedReceipt]:
        """:meth:`Client.affected_by_model`, iterated with ``async for``."""
        params = {"name": name, "version": version}
        return self._affected("/v1/models/affected", params, page_size)

    def affected_by_tool(
        self, name: str, version: str, *, page_size: int = 100
    ) -> AsyncIterator[AffectedReceipt]:
        """:meth:`Client.affected_by_tool`, iterated with ``async for``."""
        params = {"name": name, "version": version}
        return self._affected("/v1/tools/affected", params, page_size)

    def affected_by_context_assembly(
        self, name: str, version: str, *, page_size: int = 100
    ) -> AsyncIterator[AffectedReceipt]:
        """:meth:`Client.affected_by_context_assembly`, iterated with ``async for``."""
        params = {"name": name, "version": version}
        return self._affected("/v1/context-assemblies/affected", params, page_size)

    def affected_by_policy(
        self, policy_version: str, *, page_size: int = 100
    ) -> AsyncIterator[AffectedReceipt]:
        """:meth:`Client.affected_by_policy`, iterated with ``async for``."""
        return self._affected(ops.affected_path("policy", policy_version), {}, page_size)

    def affected_by_api_key(
        self, name: str, *, page_size: int = 100
    ) -> AsyncIterator[AffectedReceipt]:
        """:meth:`Client.affected_by_api_key`, iterated with ``async for``."""
        return self._affected(ops.affected_path("api_key", name), {}, page_size)

    def expired_by(self, cause: str, *, page_size: int = 100) -> AsyncIterator[AffectedReceipt]:
        """:meth:`Client.expired_by`, iterated with ``async for``."""
        return self._affected("/v1/expiries", {"cause": cause}, page_size)
