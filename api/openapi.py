"""The OpenAPI document: the bearer scheme, each operation's scopes, and its problem responses.

A route declares the problems that belong to what it does in one line,
``responses=problem_responses(404, 409)``. The problems that follow from how a route is built
are added by :func:`build_openapi` from the route's dependencies, so no route can forget them:

- every operation: 422 (U+0000 in the path or query) and 500 (a ledger integrity failure);
- an authenticated operation (one that depends on :func:`api.deps.caller`): 401, 403 and 503
  (``Provledger-Position`` not reached), and ``security`` naming the scope that
  :func:`api.deps.require` demands;
- an operation with a body: 400 (not strict JSON), 413 (over the size limit), 415 (not JSON)
  and 422.

Every problem response is ``application/problem+json`` with the schema :class:`Problem`
(RFC 9457). FastAPI's own 422 schema (``HTTPValidationError``) is replaced by it: the API never
answers in that shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.routing import BaseRoute

from api.deps import authenticate, caller, required_scope
from api.errors import PROBLEM_JSON, Problem

SECURITY_SCHEME = "bearer"
_PROBLEM_REF = "#/components/schemas/Problem"

PROBLEM_DESCRIPTIONS: dict[int, str] = {
    400: "`malformed-body`: the body is not one strict UTF-8 JSON value",
    401: "`unauthenticated`: no `Authorization: Bearer <API key>`, or an unknown or revoked key",
    403: "`forbidden`: the API key lacks the scope this operation needs",
    404: "`not-found`: no such resource",
    409: (
        "`conflict`: the request contradicts the ledger; `retryable: true` (with `Retry-After`) "
        "when it met a concurrent write and can be sent again"
    ),
    413: "`payload-too-large`: the body or a text is over the configured limit",
    415: "`unsupported-media-type`: the body is not `application/json`",
    422: "`invalid-input`: a field breaks a rule; `errors` names each field and rule",
    500: (
        "`ledger-integrity`, `transparency-log-integrity` or `internal`: data the service read "
        "back failed verification; nothing was served or signed"
    ),
    503: ("`position-not-reached` (retry after `Retry-After`), `read-models-ahead` or `not-ready`"),
}


def problem_response(status: int, description: str | None = None) -> dict[str, Any]:
    """One ``responses`` entry: ``application/problem+json`` with the :class:`Problem` schema."""
    return {
        "description": description or PROBLEM_DESCRIPTIONS.get(status, "a problem"),
        "content": {PROBLEM_JSON: {"schema": {"$ref": _PROBLEM_REF}}},
    }


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route decorator: each status as a problem+json response,
    e.g. ``@router.get(..., responses=problem_responses(404))``."""
    return {status: problem_response(status) for status in statuses}


ACCESS_PROBLEM_TEXT: dict[int, str] = {
    401: "no API key, or an unknown or revoked one",
    403: "the key lacks the scope, its principal claims more than it pins "
    "(principal-not-pinned), or the principal may not see the evidence (entitlement-denied)",
    404: "no such resource",
    409: "contradicts what the ledger holds",
    422: "invalid input: errors names each field and rule",
    500: "data read back failed verification (ledger-integrity)",
}
"""The problems of the routes that decide on a principal, in their words."""


def access_problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route that decides on a principal (its pins, its entitlement):
    each status as a problem+json response described by :data:`ACCESS_PROBLEM_TEXT`."""
    return {status: problem_response(status, ACCESS_PROBLEM_TEXT[status]) for status in statuses}


def answers(
    model: type[BaseModel], *problems: int, statuses: tuple[int, ...] = (200,)
) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route that returns a plain dict: ``model`` documents its success
    body (pass ``response_model=None`` beside it, so the dict is sent as built and never
    filtered), and each of ``problems`` a problem+json response. The schema is checked against
    real responses by tests/e2e/test_openapi_contract.py and the schema fuzz test."""
    documented: dict[int | str, dict[str, Any]] = {status: {"model": model} for status in statuses}
    return {**documented, **problem_responses(*problems)}


def _calls(dependant: Dependant) -> list[object]:
    found: list[object] = []
    pending = [dependant]
    while pending:
        current = pending.pop()
        found.append(current.call)
        pending.extend(current.dependencies)
    return found


def _api_routes(routes: Iterable[BaseRoute]) -> Iterator[APIRoute]:
    """Every API route, through included routers (FastAPI may keep an included router as one
    route holding the ``original_router``)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
            continue
        inner = getattr(getattr(route, "original_router", None), "routes", None)
        if inner is not None:
            yield from _api_routes(inner)


def _routes(app: FastAPI) -> dict[tuple[str, str], APIRoute]:
    found: dict[tuple[str, str], APIRoute] = {}
    for route in _api_routes(app.routes):
        if route.include_in_schema:
            for method in route.methods or ():
                found[(route.path_format, method.lower())] = route
    return found


def _problems_of(route: APIRoute, authenticated: bool) -> list[int]:
    statuses = [422, 500]
    if authenticated:
        statuses += [401, 403, 503]
    if route.body_field is not None:
        statuses += [400, 413, 415]
    return statuses


def _document(operation: dict[str, Any], route: APIRoute) -> None:
    """Add the scheme and scopes, the structural problems, and problem+json everywhere."""
    calls = _calls(route.dependant)
    authenticated = caller in calls or authenticate in calls
    scopes = sorted({str(s) for s in map(required_scope, calls) if s is not None})
    operation["security"] = [{SECURITY_SCHEME: scopes}] if authenticated else []
    if scopes:
        needs = ", ".join(f"`{scope}`" for scope in scopes)
        admin = "" if scopes == ["admin"] else " (or `admin`)"
        note = f"Needs an API key with the {needs} scope{admin}."
        operation["description"] = f"{operation.get('description', '').rstrip()}\n\n{note}".lstrip()
    responses: dict[str, Any] = operation.setdefault("responses", {})
    for status in _problems_of(route, authenticated):
        responses.setdefault(str(status), problem_response(status))
    for code, response in responses.items():
        if int(code) >= 400:
            declared = response.get("description")
            fresh = problem_response(int(code))
            media: dict[str, Any] = next(iter(response.get("content", {}).values()), {})
            schema: dict[str, Any] = media.get("schema", {})
            if str(schema.get("$ref", "")).endswith("Problem"):
                # a problem type with members of its own (e.g. ``claims-rejected``)
                fresh["content"][PROBLEM_JSON]["schema"] = schema
            if declared and declared not in ("Validation Error", "Successful Response"):
                fresh["description"] = declared
            response.clear()
            response.update(fresh)
            if code == "401":
                response["headers"] = {
                    "WWW-Authenticate": {"schema": {"type": "string"}, "description": "`Bearer`"}
                }
    ordered = dict(sorted(responses.items()))
    responses.clear()
    responses.update(ordered)


_RST_LITERAL = re.compile(r"``(.+?)``", re.DOTALL)
_RST_ROLE = re.compile(r":[a-z]+:`([^`]+)`")


def markdown(text: str) -> str:
    """A docstring as plain Markdown: reStructuredText literals (two backticks) and roles
    (``:func:`name```) become Markdown code spans (one backtick)."""
    return _RST_LITERAL.sub(r"`\1`", _RST_ROLE.sub(r"`\1`", text))


def _markdown_descriptions(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("description", "summary") and isinstance(value, str):
                node[key] = markdown(value)
            else:
                _markdown_descriptions(value)
    elif isinstance(node, list):
        for item in node:
            _markdown_descriptions(item)


def build_openapi(app: FastAPI) -> dict[str, Any]:
    """The document FastAPI builds, with the bearer scheme, scopes and problem responses."""
    if app.openapi_schema is not None:
        return app.openapi_schema
    document = get_openapi(
        title=app.title,
        version=app.version,
        summary=app.summary,
        description=app.description,
        routes=app.routes,
    )
    components = document.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    problem_schemas = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(problem_schemas.pop("$defs", {}))
    schemas["Problem"] = problem_schemas
    components["securitySchemes"] = {
        SECURITY_SCHEME: {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "An API key from `provledger keys create`, sent as `Authorization: Bearer "
                "<secret>`. Each operation lists the scope it needs; `admin` implies all."
            ),
        }
    }
    routes = _routes(app)
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            route = routes.get((path, method))
            if route is not None:
                _document(operation, route)
    _markdown_descriptions(document)
    app.openapi_schema = document
    return document


def install_openapi(app: FastAPI) -> None:
    """Serve :func:`build_openapi` at ``/openapi.json``."""

    def openapi() -> dict[str, Any]:
        return build_openapi(app)

    app.openapi = openapi  # type: ignore[method-assign]
