"""The blocking client: one method per API call, each built by ``_operations`` and sent
with the retries ``_transport`` decides.

    with Client("http://127.0.0.1:8000", api_key) as ledger:
        version = ledger.register_source("memo-1", "Memo", "Revenue rose 2.2%.")
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
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


class Client:
    """A blocking client. ``api_key`` is sent as ``Authorization: Bearer``; ``retry`` bounds
    the retries of a call; ``transport`` replaces httpx's (tests: ``httpx.MockTransport``)."""

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

    def _pages(self, collection: str, limit: int) -> Iterator[dict[str, Any]]:
        after: str | None = None
        while True:
            page: Page = self.send(ops.list_page(collection, limit, after))
            yield from page.items
            if page.next is None:
                return
            after = page.next

    # Keys and sources -----------------------------------------------------------------------

    def public_keys(self) -> dict[str, Any]:
        """The keyring that verifies the ledger (``GET /v1/keys``); save it as the trust root
        of :func:`provledger.verify_envelope` and :func:`provledger.verify_bundle`."""
        return self.send(ops.public_keys())

    def register_source(
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
        """Register a source and its first version (``created`` False: the same text again)."""
        return self.send(
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

    def add_version(
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
        """Add the next version of a source, superseding the current one."""
        return self.send(
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

    def withdraw_source(self, source_id: str, reason: str) -> Source:
        """Withdraw a source; old citations still resolve, marked withdrawn."""
        return self.send(ops.withdraw_source(source_id, reason))

    def get_source(
        self, source_id: str, *, known_at: Moment = None, valid_at: Moment = None
    ) -> Source:
        """A source and its versions (as of ``known_at`` / ``valid_at``)."""
        return self.send(ops.get_source(source_id, known_at, valid_at))

    def sources(self, *, page_size: int = 100) -> Iterator[Source]:
        """Every source, following the list's cursor (``GET /v1/sources``)."""
        return (Source.model_validate(item) for item in self._pages("sources", page_size))

    # Spans ------------------------------------------------------------------------------------

    def get_span(self, span_id: str) -> Span:
        """One span with its source, version and status."""
        return self.send(ops.get_span(span_id))

    def spans(
        self,
        source_id: str,
        version: int,
        *,
        start: int | None = None,
        end: int | None = None,
        include_text: bool = False,
    ) -> list[Span]:
        """The spans of a source version within ``[start, end)`` character offsets."""
        return self.send(ops.spans(source_id, version, start, end, include_text))

    def cells(
        self,
        source_id: str,
        version: int,
        table: str,
        *,
        row: int | None = None,
        col: int | None = None,
    ) -> list[Span]:
        """The cell spans of a table, or of one row, column or cell of it."""
        return self.send(ops.cells(source_id, version, table, row, col))

    def search_spans(
        self,
        quote: str,
        *,
        source_id: str | None = None,
        as_of: Moment = None,
        include_text: bool = False,
    ) -> list[Span]:
        """The spans whose text holds ``quote`` (``POST /v1/spans/search``)."""
        return self.send(ops.search_spans(quote, source_id, as_of, include_text))

    # Receipts and claims --------------------------------------------------------------------

    def open_receipt(
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
        """Open a receipt and seal its evidence pool (``evidence``: the span ids the model was
        shown); ``model`` is ``{"name", "version"}``, ``context_assembly`` (optional) too."""
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
        return self.send(ops.open_receipt(body, idempotency_key))

    def commit_claims(
        self,
        receipt_id: str,
        claims: Sequence[Mapping[str, Any]],
        *,
        mode: str = "atomic",
        rendered_answer: str | None = None,
        repair: bool = False,
        idempotency_key: str | None = None,
    ) -> CommitResult:
        """Run claims (``{"text", "bindings": [{"span_id", "quote"?}], "type"?}``) through the
        gate and commit them; raises :class:`provledger.ClaimsRejected` when the gate refuses."""
        return self.send(
            ops.commit_claims(
                receipt_id,
                claims,
                mode=mode,
                rendered_answer=rendered_answer,
                repair=repair,
                idempotency_key=idempotency_key,
            )
        )

    def record_transformation(
        self,
        receipt_id: str,
        *,
        method: str,
        inputs: Sequence[str],
        output: str,
        must_keep: Sequence[str],
        may_remove: Sequence[str] = (),
    ) -> Transformation:
        """Record what was done to evidence of the receipt's pool before the model saw it
        (``method``: compression, summary, deduplication or translation) once ``output`` keeps
        every ``must_keep`` item of the ``inputs`` spans; raises
        :class:`provledger.LossBoundary` naming each item it dropped. Sending the same
        transformation again answers the recorded one."""
        return self.send(
            ops.record_transformation(
                receipt_id,
                method=method,
                inputs=inputs,
                output=output,
                must_keep=must_keep,
                may_remove=may_remove,
            )
        )

    def get_receipt(self, receipt_id: str, *, known_at: Moment = None) -> Receipt:
        """A receipt with its pool, claims and status."""
        return self.send(ops.get_receipt(receipt_id, known_at))

    def receipts(self, *, page_size: int = 100) -> Iterator[Receipt]:
        """Every receipt, following the list's cursor (``GET /v1/receipts``)."""
        return (Receipt.model_validate(item) for item in self._pages("receipts", page_size))

    def get_claim(self, claim_id: str, *, known_at: Moment = None) -> Claim:
        """A committed claim rendered with its bindings and warnings."""
        return self.send(ops.get_claim(claim_id, known_at))

    def claims(self, *, page_size: int = 100) -> Iterator[Claim]:
        """Every claim, following the list's cursor (``GET /v1/claims``)."""
        return (Claim.model_validate(item) for item in self._pages("claims", page_size))

    # Audit ------------------------------------------------------------------------------------

    def envelope(self, receipt_id: str) -> dict[str, Any]:
        """The receipt's DSSE envelope, for :func:`provledger.verify_envelope`."""
        return self.send(ops.envelope(receipt_id))

    def bundle(self, claim_id: str, *, since_size: int | None = None) -> dict[str, Any]:
        """The claim's citation-chain bundle, for :func:`provledger.verify_bundle`."""
        return self.send(ops.bundle(claim_id, since_size))

    def checkpoint(self) -> str:
        """The latest signed checkpoint (a C2SP note)."""
        return self.send(ops.checkpoint())

    def events(self, *, after: int = 0, page_size: int = 100) -> Iterator[Event]:
        """Every event after ``after``, oldest first, as stored and signed."""
        while True:
            page, after = self.send(ops.events_page(after, page_size))
            if not page:
                return
            yield from page

    # Outcomes, retirements and what a change touches -----------------------------------------

    def record_outcome(
        self,
        receipt_id: str,
        decision: str,
        *,
        actions: Sequence[Mapping[str, str]] = (),
        reviewer: str | None = None,
    ) -> Outcome:
        """Record the decision taken on a receipt's answer, its reviewer and the downstream
        actions (``{"action_id", "kind", "target"}``); a later outcome amends the decision
        (``POST /v1/receipts/{id}/outcome``)."""
        return self.send(ops.record_outcome(receipt_id, decision, actions, reviewer))

    def retire_model(self, name: str, version: str, reason: str) -> VersionChange:
        """Retire a model version: the receipts recording it expire (scope ``admin``)."""
        return self.send(ops.change_version("/v1/models/retire", name, version, reason))

    def retire_tool(self, name: str, version: str, reason: str) -> VersionChange:
        """Retire a tool version: the receipts recording it, or the bare tool, expire."""
        return self.send(ops.change_version("/v1/tools/retire", name, version, reason))

    def declare_context_assembly(self, name: str, version: str, reason: str) -> VersionChange:
        """Declare a context-assembly version in force: receipts of its other versions
        expire."""
        path = "/v1/context-assemblies/declare"
        return self.send(ops.change_version(path, name, version, reason))

    def _affected(
        self, path: str, params: Mapping[str, str], page_size: int
    ) -> Iterator[AffectedReceipt]:
        after: str | None = None
        while True:
            page: Page = self.send(ops.affected_page(path, params, page_size, after))
            yield from (AffectedReceipt.model_validate(item) for item in page.items)
            if page.next is None:
                return
            after = page.next

    def affected_by_model(
        self, name: str, version: str, *, page_size: int = 100
    ) -> Iterator[AffectedReceipt]:
        """Every receipt recording this model version, with its outcome and actions."""
        params = {"name": name, "version": version}
        return self._affected("/v1/models/affected", params, page_size)

    def affected_by_tool(
        self, name: str, version: str, *, page_size: int = 100
    ) -> Iterator[AffectedReceipt]:
        """Every receipt recording this tool version (or the bare tool)."""
        params = {"name": name, "version": version}
        return self._affected("/v1/tools/affected", params, page_size)

    def affected_by_context_assembly(
        self, name: str, version: str, *, page_size: int = 100
    ) -> Iterator[AffectedReceipt]:
        """Every receipt recording this version of a context assembly."""
        params = {"name": name, "version": version}
        return self._affected("/v1/context-assemblies/affected", params, page_size)

    def affected_by_policy(
        self, policy_version: str, *, page_size: int = 100
    ) -> Iterator[AffectedReceipt]:
        """Every receipt opened under this policy version."""
        return self._affected(ops.affected_path("policy", policy_version), {}, page_size)

    def affected_by_api_key(self, name: str, *, page_size: int = 100) -> Iterator[AffectedReceipt]:
        """Every receipt the API key ``name`` opened."""
        return self._affected(ops.affected_path("api_key", name), {}, page_size)

    def expired_by(self, cause: str, *, page_size: int = 100) -> Iterator[AffectedReceipt]:
        """Every receipt one change expired (``cause``: ``n<position>``, as a write's
        ``expired.cause`` gives it), each with the reason it gave, outcome and actions."""
        return self._affected("/v1/expiries", {"cause": cause}, page_size)
