"""Request bodies are read only for an authenticated caller, only up to a limit, and only as
strict JSON.

FastAPI reads and parses a route's whole body before it resolves the route's dependencies, so
authentication alone would come too late: an anonymous client could make the server hold any
number of bytes. :class:`RequestBodyGuard` is a pure ASGI middleware that sits in front of the
routes which take a body. For such a route it

1. authenticates the caller with :func:`api.deps.authenticate` (401 before one byte is read) and
   leaves the principal in ``scope["state"]`` for :func:`api.deps.caller`;
2. refuses a declared ``Content-Length`` over the route's limit, then counts the bytes as they
   stream (chunked uploads declare no length) and stops reading at the limit (413);
3. refuses a body not declared as JSON, or not declared at all (415), parses the body with
   :func:`api.json_body.parse_json_body` (400 ``malformed-body``, or 422 for a lone
   surrogate) and hands the same bytes on to the route.

A request whose path or query carries U+0000 is refused (422, rule ``nul``) whatever its
route: PostgreSQL text cannot hold it, so no id or value in the ledger contains it.

Limits come from the settings: ``max_body_bytes`` for every route, ``source_body_limit`` for the
routes marked with the :func:`source_body` dependency, whose bodies carry a whole document.
"""

from __future__ import annotations

import email.message
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.deps import PRINCIPAL, authenticate, caller
from api.errors import ledger_problem
from api.json_body import parse_json_body
from api.services import Services
from ledger.errors import (
    InvalidInput,
    LedgerError,
    MalformedBody,
    PayloadTooLarge,
    UnsupportedMediaType,
)


async def source_body() -> None:
    """Marks a route whose body carries a source text: the source body limit applies."""


@dataclass(frozen=True)
class _BodyPolicy:
    authenticated: bool
    source: bool


class _Disconnected(Exception):
    """The client went away before its body was read."""


def _calls(dependant: Dependant) -> set[object]:
    found: set[object] = set()
    pending = [dependant]
    while pending:
        current = pending.pop()
        found.add(current.call)
        pending.extend(current.dependencies)
    return found


def _policy(route: APIRoute) -> _BodyPolicy:
    calls = _calls(route.dependant)
    return _BodyPolicy(
        authenticated=authenticate in calls or caller in calls, source=source_body in calls
    )


def _is_json(content_type: str | None) -> bool:
    """Whether the body is declared as JSON (``application/json`` or ``application/*+json``);
    a body that declares no type is not: FastAPI would not parse it as JSON either."""
    if not content_type:
        return False
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


def _charset(content_type: str | None) -> str | None:
    if not content_type:
        return None
    message = email.message.Message()
    message["content-type"] = content_type
    charset = message.get_param("charset")
    return charset.lower() if isinstance(charset, str) else None


def body_routes(routes: Iterable[BaseRoute]) -> Iterator[APIRoute]:
    """Every API route that takes a body, through included routers (FastAPI may keep an
    included router as one route holding the ``original_router``)."""
    for route in routes:
        if isinstance(route, APIRoute):
            if route.body_field is not None:
                yield route
            continue
        inner = getattr(getattr(route, "original_router", None), "routes", None)
        if inner is not None:
            yield from body_routes(inner)


class RequestBodyGuard:
    """Authenticate, bound and parse a route's body before the route reads it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._routes: list[tuple[APIRoute, _BodyPolicy]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (where := _nul_in_target(scope)):
            message = f"the {where} contains U+0000 (%00), which no ledger id or value holds"
            await ledger_problem(InvalidInput(where, "nul", message))(scope, receive, send)
            return
        found = self._route(scope) if scope["type"] == "http" else None
        if found is None:
            await self.app(scope, receive, send)
            return
        route, policy = found
        services: Services = scope["app"].state.services
        settings = services.settings
        limit = settings.source_body_limit if policy.source else settings.max_body_bytes
        request = Request(scope)
        try:
            if policy.authenticated:
                principal = await authenticate(request, services.api_keys)
                scope.setdefault("state", {})[PRINCIPAL] = principal
            body = await _read(scope, receive, limit, f"{request.method} {route.path}")
            content_type = request.headers.get("content-type")
            if body and not _is_json(content_type):
                declared = content_type or "undeclared (no Content-Type header)"
                raise UnsupportedMediaType(
                    "Content-Type",
                    "media-type",
                    f"the request body must be application/json, not {declared}",
                )
            if body:
                _check_charset(content_type)
                parse_json_body(body)
        except _Disconnected:
            return
        except LedgerError as exc:
            await ledger_problem(exc)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    def _route(self, scope: Scope) -> tuple[APIRoute, _BodyPolicy] | None:
        """The API route that will take this request, if it takes a body."""
        if self._routes is None:
            self._routes = [
                (route, _policy(route)) for route in body_routes(scope["app"].router.routes)
            ]
        for route, policy in self._routes:
            match, _ = route.matches(scope)
            if match is Match.FULL:
                return route, policy
        return None


def _nul_in_target(scope: Scope) -> str | None:
    """``path`` or ``query`` if the request target carries U+0000 (PostgreSQL text cannot)."""
    if "\x00" in scope["path"]:
        return "path"
    query: bytes = scope.get("query_string", b"")
    if b"%00" in query or b"\x00" in query:
        return "query"
    return None


def _check_charset(content_type: str | None) -> None:
    charset = _charset(content_type)
    if charset not in (None, "utf-8", "utf8"):
        raise MalformedBody(
            "body", "utf-8", f"the request body must be UTF-8 JSON, not charset={charset}"
        )


async def _read(scope: Scope, receive: Receive, limit: int, route: str) -> bytes:
    """The whole body, refusing a declared or streamed size over ``limit`` (413)."""
    for name, value in scope["headers"]:
        if name == b"content-length" and value.isdigit() and int(value) > limit:
            raise PayloadTooLarge(
                f"the request body is {int(value)} bytes; {route} takes at most {limit} bytes"
            )
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _Disconnected
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(
                f"the request body is over {limit} bytes; {route} takes at most {limit} bytes"
            )
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that yields the body already read, then defers to the server's."""
    pending = True

    async def replay() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
