"""The calls of sources, their versions and spans, and their access attributes
(docs/registry.md, docs/access.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provledger._operations import (
    MAX_PAGE,
    Listing,
    Moment,
    get_listing,
    json_answer,
    model_answer,
    model_item,
    page_answer,
    present,
    segment,
    time_param,
)
from provledger._transport import Request
from provledger.models import Source, SourceVersion, Span


def _include(include_text: bool) -> str | None:
    return "text" if include_text else None


def register_source(
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
    cite_headings: bool | None = None,
    access: Mapping[str, Any] | None = None,
    include_spans: bool = True,
    include_text: bool = False,
) -> Request[SourceVersion]:
    """Register a source and its first version (``POST /v1/sources``); ``created`` is False
    when the same text was registered before. ``access``: its access attributes
    (docs/access.md); ``include_text`` adds the frozen text to the answer."""
    body = {
        "source_id": source_id,
        "title": title,
        "text": text,
        "authority": authority,
        "media_type": media_type,
        "uri": uri,
        "metadata": None if metadata is None else dict(metadata),
        "tables": None if tables is None else [dict(table) for table in tables],
        "effective_from": time_param(effective_from),
        "cite_headings": cite_headings,
        "access": None if access is None else dict(access),
    }
    params = {"include_spans": str(include_spans).lower(), "include": _include(include_text)}
    return Request(
        "POST", "/v1/sources", model_answer(SourceVersion), params=params, json=present(body)
    )


def add_version(
    source_id: str,
    text: str,
    *,
    title: str | None = None,
    media_type: str = "text/plain",
    tables: Sequence[Mapping[str, Any]] | None = None,
    effective_from: Moment = None,
    cite_headings: bool | None = None,
    include_spans: bool = True,
    include_text: bool = False,
) -> Request[SourceVersion]:
    """Add the next version of a source, superseding the current one
    (``POST /v1/sources/{source_id}/versions``)."""
    body = {
        "text": text,
        "title": title,
        "media_type": media_type,
        "tables": None if tables is None else [dict(table) for table in tables],
        "effective_from": time_param(effective_from),
        "cite_headings": cite_headings,
    }
    params = {"include_spans": str(include_spans).lower(), "include": _include(include_text)}
    path = f"/v1/sources/{segment(source_id)}/versions"
    return Request("POST", path, model_answer(SourceVersion), params=params, json=present(body))


def withdraw_source(source_id: str, reason: str) -> Request[Source]:
    """Withdraw a source; old citations still resolve, marked withdrawn
    (``POST /v1/sources/{source_id}/withdraw``)."""
    path = f"/v1/sources/{segment(source_id)}/withdraw"
    return Request("POST", path, model_answer(Source), json={"reason": reason})


def get_source(
    source_id: str, *, known_at: Moment = None, valid_at: Moment = None
) -> Request[Source]:
    """A source and its versions, as known at ``known_at`` and in force at ``valid_at``
    (``GET /v1/sources/{source_id}``)."""
    params = {"known_at": time_param(known_at), "valid_at": time_param(valid_at)}
    return Request("GET", f"/v1/sources/{segment(source_id)}", model_answer(Source), params=params)


def sources(
    *, status: str | None = None, authority: str | None = None, page_size: int = 100
) -> Listing[Source]:
    """Every source (``status``: ``active`` or ``withdrawn``; ``authority``), in source id
    order, following the list's cursor (``GET /v1/sources``)."""
    params = {"status": status, "authority": authority}
    return get_listing("/v1/sources", params, page_size, model_item(Source))


def get_version(
    source_id: str,
    version: int,
    *,
    known_at: Moment = None,
    valid_at: Moment = None,
    limit: int = 100,
    after: str | None = None,
) -> Request[dict[str, Any]]:
    """One source version with its frozen text and a page of its spans (``limit`` spans
    after the cursor ``after``; the answer's ``next`` is the next page's)
    (``GET /v1/sources/{source_id}/versions/{version}``)."""
    params = {
        "known_at": time_param(known_at),
        "valid_at": time_param(valid_at),
        "limit": limit,
        "after": after,
    }
    path = f"/v1/sources/{segment(source_id)}/versions/{version}"
    return Request("GET", path, json_answer, params=params)


def get_span(span_id: str, *, known_at: Moment = None, valid_at: Moment = None) -> Request[Span]:
    """One span with its source, version and status (``GET /v1/spans/{span_id}``)."""
    params = {"known_at": time_param(known_at), "valid_at": time_param(valid_at)}
    return Request("GET", f"/v1/spans/{segment(span_id)}", model_answer(Span), params=params)


def span_context(span_id: str, *, window: int = 2) -> Request[dict[str, Any]]:
    """A span with the ``window`` spans before and after it
    (``GET /v1/spans/{span_id}/context``)."""
    path = f"/v1/spans/{segment(span_id)}/context"
    return Request("GET", path, json_answer, params={"window": window})


def spans(
    source_id: str,
    version: int,
    *,
    start: int | None = None,
    end: int | None = None,
    include_text: bool = False,
) -> Listing[Span]:
    """The spans of a source version within ``[start, end)`` character offsets, every page
    (``GET /v1/sources/{source_id}/versions/{version}/spans``)."""
    params = {"start": start, "end": end, "include": _include(include_text)}
    path = f"/v1/sources/{segment(source_id)}/versions/{version}/spans"
    return get_listing(path, params, MAX_PAGE, model_item(Span))


def cells(
    source_id: str,
    version: int,
    table: str | None = None,
    *,
    row: int | None = None,
    col: int | None = None,
) -> Listing[Span]:
    """The cell spans of a version's tables, or of one table, row, column or cell of it
    (``GET /v1/sources/{source_id}/versions/{version}/cells``)."""
    params = {"table": table, "row": row, "col": col}
    path = f"/v1/sources/{segment(source_id)}/versions/{version}/cells"
    return get_listing(path, params, MAX_PAGE, model_item(Span))


def search_spans(
    quote: str, *, source_id: str | None = None, as_of: Moment = None, include_text: bool = False
) -> Listing[Span]:
    """The spans whose text holds ``quote``, in versions in force at ``as_of``, every page
    (``POST /v1/spans/search``)."""
    body = present({"quote": quote, "source_id": source_id, "as_of": time_param(as_of)})
    return Listing(
        page=lambda after: Request(
            "POST",
            "/v1/spans/search",
            page_answer,
            params={"include": _include(include_text), "limit": MAX_PAGE, "after": after},
            json=body,
        ),
        item=model_item(Span),
    )


def change_access(
    source_id: str,
    *,
    classification: str = "",
    units: Sequence[str] = (),
    groups: Sequence[str] = (),
    purposes: Sequence[str] = (),
    jurisdictions: Sequence[str] = (),
) -> Request[dict[str, Any]]:
    """Replace a source's access attributes (``POST /v1/sources/{source_id}/access``,
    docs/access.md)."""
    body = {
        "classification": classification,
        "units": list(units),
        "groups": list(groups),
        "purposes": list(purposes),
        "jurisdictions": list(jurisdictions),
    }
    return Request("POST", f"/v1/sources/{segment(source_id)}/access", json_answer, json=body)
