"""Every API call the clients make, as :class:`provledger._transport.Request` values: the path,
the query, the body and how to read the answer. Written once for both clients.

The list, span-lookup and span-search calls follow the contract of the list endpoints
(``GET /v1/sources``, ``/v1/receipts``, ``/v1/claims`` with ``limit``/``after`` answering
``{"items": [...], "next": cursor | null}``; ``.../spans?start=&end=``, ``.../cells``,
``POST /v1/spans/search``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from provledger._transport import IDEMPOTENCY_HEADER, Request
from provledger.models import (
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

M = TypeVar("M", bound=BaseModel)
Moment = datetime | str | None


@dataclass(frozen=True)
class Page:
    """One page of a cursor list: its items (JSON objects) and the cursor of the next page,
    None on the last one."""

    items: list[dict[str, Any]]
    next: str | None


def _segment(value: str | int) -> str:
    return quote(str(value), safe="")


def time_param(moment: Moment) -> str | None:
    """A time for the API: RFC 3339 from a ``datetime``, a string as it is."""
    return moment.isoformat() if isinstance(moment, datetime) else moment


def _json(response: httpx.Response) -> Any:
    return response.json()


def _model(kind: type[M]) -> Callable[[httpx.Response], M]:
    return lambda response: kind.model_validate(response.json())


def _spans(response: httpx.Response) -> list[Span]:
    body = response.json()
    if isinstance(body, dict):  # {"items": [...]} or {"spans": [...]}
        body = body.get("items", body.get("spans", body.get("matches", [])))
    return [Span.model_validate(item) for item in body]


def _page(response: httpx.Response) -> Page:
    body = response.json()
    cursor = body.get("next")
    return Page(items=list(body["items"]), next=None if cursor is None else str(cursor))


def _idempotency(key: str | None) -> dict[str, str]:
    return {} if key is None else {IDEMPOTENCY_HEADER: key}


def public_keys() -> Request[dict[str, Any]]:
    """``GET /v1/keys``: the keyring (no API key needed)."""
    return Request("GET", "/v1/keys", _json)


def register_source(
    source_id: str,
    title: str,
    text: str,
    *,
    authority: str,
    media_type: str,
    uri: str | None,
    metadata: Mapping[str, Any] | None,
    tables: Sequence[Mapping[str, Any]] | None,
    effective_from: Moment,
    include_spans: bool,
) -> Request[SourceVersion]:
    """``POST /v1/sources``."""
    body: dict[str, Any] = {
        "source_id": source_id,
        "title": title,
        "text": text,
        "authority": authority,
        "media_type": media_type,
        "uri": uri,
        "metadata": None if metadata is None else dict(metadata),
        "tables": None if tables is None else [dict(table) for table in tables],
        "effective_from": time_param(effective_from),
    }
    return Request(
        "POST",
        "/v1/sources",
        _model(SourceVersion),
        params={"include_spans": str(include_spans).lower()},
        json={name: value for name, value in body.items() if value is not None},
    )


def add_version(
    source_id: str,
    text: str,
    *,
    title: str | None,
    media_type: str,
    tables: Sequence[Mapping[str, Any]] | None,
    effective_from: Moment,
    include_spans: bool,
) -> Request[SourceVersion]:
    """``POST /v1/sources/{source_id}/versions``."""
    body: dict[str, Any] = {
        "text": text,
        "title": title,
        "media_type": media_type,
        "tables": None if tables is None else [dict(table) for table in tables],
        "effective_from": time_param(effective_from),
    }
    return Request(
        "POST",
        f"/v1/sources/{_segment(source_id)}/versions",
        _model(SourceVersion),
        params={"include_spans": str(include_spans).lower()},
        json={name: value for name, value in body.items() if value is not None},
    )


def withdraw_source(source_id: str, reason: str) -> Request[Source]:
    """``POST /v1/sources/{source_id}/withdraw``."""
    return Request(
        "POST",
        f"/v1/sources/{_segment(source_id)}/withdraw",
        _model(Source),
        json={"reason": reason},
    )


def get_source(source_id: str, known_at: Moment, valid_at: Moment) -> Request[Source]:
    """``GET /v1/sources/{source_id}``."""
    params = {"known_at": time_param(known_at), "valid_at": time_param(valid_at)}
    return Request("GET", f"/v1/sources/{_segment(source_id)}", _model(Source), params=params)


def get_span(span_id: str) -> Request[Span]:
    """``GET /v1/spans/{span_id}``."""
    return Request("GET", f"/v1/spans/{_segment(span_id)}", _model(Span))


def spans(
    source_id: str, version: int, start: int | None, end: int | None, include_text: bool
) -> Request[list[Span]]:
    """``GET /v1/sources/{source_id}/versions/{version}/spans?start=&end=``."""
    params = {"start": start, "end": end, "include": "text" if include_text else None}
    path = f"/v1/sources/{_segment(source_id)}/versions/{version}/spans"
    return Request("GET", path, _spans, params=params)


def cells(
    source_id: str, version: int, table: str, row: int | None, col: int | None
) -> Request[list[Span]]:
    """``GET /v1/sources/{source_id}/versions/{version}/cells?table=&row=&col=``."""
    params: dict[str, Any] = {"table": table, "row": row, "col": col}
    path = f"/v1/sources/{_segment(source_id)}/versions/{version}/cells"
    return Request("GET", path, _spans, params=params)


def search_spans(
    quote_text: str, source_id: str | None, as_of: Moment, include_text: bool
) -> Request[list[Span]]:
    """``POST /v1/spans/search``: the spans whose text holds the quote."""
    body = {"quote": quote_text, "source_id": source_id, "as_of": time_param(as_of)}
    return Request(
        "POST",
        "/v1/spans/search",
        _spans,
        params={"include": "text" if include_text else None},
        json={name: value for name, value in body.items() if value is not None},
    )


def list_page(collection: str, limit: int, after: str | None) -> Request[Page]:
    """``GET /v1/{collection}?limit=&after=``: one page of a cursor list."""
    return Request("GET", f"/v1/{collection}", _page, params={"limit": limit, "after": after})


def open_receipt(body: Mapping[str, Any], idempotency_key: str | None) -> Request[Receipt]:
    """``POST /v1/receipts``."""
    clean = {name: value for name, value in body.items() if value is not None}
    return Request(
        "POST", "/v1/receipts", _model(Receipt), json=clean, headers=_idempotency(idempotency_key)
    )


def _commit_result(response: httpx.Response) -> CommitResult:
    replayed = response.headers.get("idempotency-replayed") == "true"
    return CommitResult.model_validate({**response.json(), "replayed": replayed})


def commit_claims(
    receipt_id: str,
    claims: Sequence[Mapping[str, Any]],
    *,
    mode: str,
    rendered_answer: str | None,
    repair: bool,
    idempotency_key: str | None,
) -> Request[CommitResult]:
    """``POST /v1/receipts/{receipt_id}/claims``."""
    body: dict[str, Any] = {"mode": mode, "claims": [dict(claim) for claim in claims]}
    if rendered_answer is not None:
        body["rendered_answer"] = rendered_answer
    if repair:
        body["repair"] = True
    return Request(
        "POST",
        f"/v1/receipts/{_segment(receipt_id)}/claims",
        _commit_result,
        json=body,
        headers=_idempotency(idempotency_key),
    )


def record_transformation(
    receipt_id: str,
    *,
    method: str,
    inputs: Sequence[str],
    output: str,
    must_keep: Sequence[str],
    may_remove: Sequence[str],
) -> Request[Transformation]:
    """``POST /v1/receipts/{receipt_id}/transformations``."""
    body = {
        "method": method,
        "inputs": list(inputs),
        "output": output,
        "may_remove": list(may_remove),
        "must_keep": list(must_keep),
    }
    path = f"/v1/receipts/{_segment(receipt_id)}/transformations"
    return Request("POST", path, _model(Transformation), json=body)


def get_receipt(receipt_id: str, known_at: Moment) -> Request[Receipt]:
    """``GET /v1/receipts/{receipt_id}``."""
    path = f"/v1/receipts/{_segment(receipt_id)}"
    return Request("GET", path, _model(Receipt), params={"known_at": time_param(known_at)})


def get_claim(claim_id: str, known_at: Moment) -> Request[Claim]:
    """``GET /v1/claims/{claim_id}``."""
    path = f"/v1/claims/{_segment(claim_id)}"
    return Request("GET", path, _model(Claim), params={"known_at": time_param(known_at)})


def envelope(receipt_id: str) -> Request[dict[str, Any]]:
    """``GET /v1/receipts/{receipt_id}/envelope``: the DSSE envelope, as the JSON it is."""
    return Request("GET", f"/v1/receipts/{_segment(receipt_id)}/envelope", _json)


def bundle(claim_id: str, since_size: int | None) -> Request[dict[str, Any]]:
    """``GET /v1/claims/{claim_id}/bundle``: the citation-chain bundle, as the JSON it is."""
    path = f"/v1/claims/{_segment(claim_id)}/bundle"
    return Request("GET", path, _json, params={"since_size": since_size})


def checkpoint() -> Request[str]:
    """``GET /v1/audit/checkpoint``: the latest signed checkpoint note."""
    return Request("GET", "/v1/audit/checkpoint", lambda response: response.text)


def _events(response: httpx.Response) -> tuple[list[Event], int]:
    body = response.json()
    return [Event.model_validate(item) for item in body["events"]], int(body["next_after"])


def events_page(after: int, limit: int) -> Request[tuple[list[Event], int]]:
    """``GET /v1/events?after=&limit=``: a page of the log and the next ``after``."""
    return Request("GET", "/v1/events", _events, params={"after": after, "limit": limit})


def auth_headers(api_key: str | None) -> dict[str, str]:
    """``Authorization: Bearer`` for a key, nothing without one."""
    return {} if api_key is None else {"Authorization": f"Bearer {api_key}"}


def receipt_body(
    request: str,
    actor: str,
    purpose: str,
    policy_version: str | None,
    route: str,
    model: Mapping[str, str],
    evidence: Sequence[str],
    inference_id: str | None,
    tools: Sequence[str],
    excluded: Sequence[Mapping[str, str]],
    as_of: Moment,
    expires_at: Moment,
    budget: Mapping[str, Any] | None,
    context_assembly: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The body of ``POST /v1/receipts``."""
    return {
        "request": request,
        "actor": actor,
        "purpose": purpose,
        "policy_version": policy_version,
        "route": route,
        "model": dict(model),
        "evidence": list(evidence),
        "inference_id": inference_id,
        "tools": list(tools),
        "excluded": [dict(item) for item in excluded],
        "as_of": time_param(as_of),
        "expires_at": time_param(expires_at),
        "budget": None if budget is None else dict(budget),
        "context_assembly": None if context_assembly is None else dict(context_assembly),
    }


# Outcomes, retirements and what a change touches ----------------------------------------------


def record_outcome(
    receipt_id: str,
    decision: str,
    actions: Sequence[Mapping[str, str]],
    reviewer: str | None,
) -> Request[Outcome]:
    """``POST /v1/receipts/{receipt_id}/outcome``."""
    body: dict[str, Any] = {"decision": decision, "actions": [dict(a) for a in actions]}
    if reviewer is not None:
        body["reviewer"] = reviewer
    path = f"/v1/receipts/{_segment(receipt_id)}/outcome"
    return Request("POST", path, _model(Outcome), json=body)


def change_version(path: str, name: str, version: str, reason: str) -> Request[VersionChange]:
    """``POST /v1/models/retire``, ``/v1/tools/retire`` or ``/v1/context-assemblies/declare``."""
    body = {"name": name, "version": version, "reason": reason}
    return Request("POST", path, _model(VersionChange), json=body)


def affected_page(
    path: str, params: Mapping[str, str], limit: int, after: str | None
) -> Request[Page]:
    """One page of an affected list (``GET /v1/models/affected``, ``/v1/expiries``, ...)."""
    return Request("GET", path, _page, params={**params, "limit": limit, "after": after})


def affected_path(kind: str, name: str) -> str:
    """The path of the list of receipts a policy version or an API key touches."""
    collection = {"policy": "policies", "api_key": "api-keys"}[kind]
    return f"/v1/{collection}/{_segment(name)}/affected"
