"""What every call of the API shares: a cursor list as data (:class:`Listing`), the page it
reads (:class:`Page`), times, path segments and how answers are read.

Each call is one function in ``_source_calls``, ``_receipt_calls`` or ``_audit_calls`` that
takes the call's arguments and returns a :class:`provledger._transport.Request` (or a
:class:`Listing` of them); :mod:`provledger._methods` turns it into a method of both clients,
with its signature and docstring. The lists follow the contract of the list endpoints
(``limit``/``after`` answering ``{"items": [...], "next": cursor | null}``, docs/api.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from provledger._transport import IDEMPOTENCY_HEADER, Request

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
Moment = datetime | str | None
"""A time for the API: a ``datetime`` (sent as RFC 3339) or an RFC 3339 string."""
MAX_PAGE = 1000
"""The largest ``limit`` a list takes: the page size of the lists a call gathers whole."""


@dataclass(frozen=True)
class Page:
    """One page of a cursor list: its items (JSON objects) and the cursor of the next page,
    None on the last one."""

    items: list[dict[str, Any]]
    next: str | None


@dataclass(frozen=True)
class Listing(Generic[T]):
    """A cursor list as data: the request for the page after a cursor, how to read one item,
    and the cursor to start after (None: from the start)."""

    page: Callable[[str | None], Request[Page]]
    item: Callable[[dict[str, Any]], T]
    after: str | None = None


def segment(value: str | int) -> str:
    """A path segment, percent-encoded (a ``/`` in an id stays inside its segment)."""
    return quote(str(value), safe="")


def time_param(moment: Moment) -> str | None:
    """A time for the API: RFC 3339 from a ``datetime``, a string as it is."""
    return moment.isoformat() if isinstance(moment, datetime) else moment


def present(values: Mapping[str, Any]) -> dict[str, Any]:
    """The members that are set (None left out, as the API's defaults apply)."""
    return {name: value for name, value in values.items() if value is not None}


def json_answer(response: httpx.Response) -> Any:
    """The answer's JSON as it is."""
    return response.json()


def text_answer(response: httpx.Response) -> str:
    """The answer's text (a checkpoint note, the metrics exposition, JSON lines)."""
    return response.text


def model_answer(kind: type[M]) -> Callable[[httpx.Response], M]:
    """Read the answer as the model ``kind``."""
    return lambda response: kind.model_validate(response.json())


def model_item(kind: type[M]) -> Callable[[dict[str, Any]], M]:
    """Read one list item as the model ``kind``."""
    return kind.model_validate


def json_item(item: dict[str, Any]) -> dict[str, Any]:
    """A list item as it is."""
    return item


def page_answer(response: httpx.Response) -> Page:
    """One page of a list (a body without ``next`` is the last page)."""
    body = response.json()
    cursor = body.get("next")
    return Page(items=list(body["items"]), next=None if cursor is None else str(cursor))


def get_listing(
    path: str, params: Mapping[str, Any], page_size: int, item: Callable[[dict[str, Any]], T]
) -> Listing[T]:
    """A ``GET`` list: ``params`` with ``limit`` and ``after`` added per page."""
    return Listing(
        page=lambda after: Request(
            "GET", path, page_answer, params={**params, "limit": page_size, "after": after}
        ),
        item=item,
    )


def idempotency(key: str | None) -> dict[str, str]:
    """The ``Idempotency-Key`` header for a key the caller chose, none without one (the
    transport then makes one)."""
    return {} if key is None else {IDEMPOTENCY_HEADER: key}


def auth_headers(api_key: str | None) -> dict[str, str]:
    """``Authorization: Bearer`` for a key, nothing without one."""
    return {} if api_key is None else {"Authorization": f"Bearer {api_key}"}
