"""RFC 9457 problem details for every error the API returns.

Domain errors map to statuses here and nowhere else. Bodies are ``application/problem+json``
with ``type``, ``title``, ``status``, ``detail`` and, for invalid input, ``errors``: a list of
``{field, rule, message}``.
"""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from ledger.errors import (
    AuthenticationFailed,
    CanonicalisationError,
    ConcurrentWrite,
    Conflict,
    ConflictingRequest,
    EntitlementDenied,
    InvalidInput,
    KeyringError,
    LedgerError,
    LedgerIntegrityError,
    LossBoundaryBreached,
    MalformedBody,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    PolicyNotInForce,
    PositionNotReached,
    PrincipalNotPinned,
    ReadModelsAhead,
    ReceiptExpired,
    TransparencyLogTampered,
    UnsupportedMediaType,
)

PROBLEM_JSON = "application/problem+json"
_TYPE_BASE = "https://provledger.dev/problems/"

log = structlog.get_logger("provledger.api")


class ProblemError(BaseModel):
    """One broken rule: where, which rule, and a sentence for a person."""

    field: str = Field(description="the field, e.g. `claims.0.text`, `query.limit`, `body`")
    rule: str = Field(description="the rule's code, e.g. `less_than_equal`, `json`, `exists`")
    message: str


class Problem(BaseModel):
    """RFC 9457 problem details. Members beyond these depend on `type` (e.g. `reason` and
    `position` for `ledger-integrity`, every claim's verdict for `claims-rejected`)."""

    model_config = ConfigDict(extra="allow")
    type: str = Field(description="`https://provledger.dev/problems/<slug>`")
    title: str
    status: int
    detail: str
    errors: list[ProblemError] | None = Field(
        default=None, description="for 400, 415 and 422: every field and rule that failed"
    )
    retryable: bool | None = Field(
        default=None, description="for 409: true when sending the same request again may work"
    )


_STATUS_OF: list[tuple[type[LedgerError], int, str]] = [
    (MalformedBody, 400, "malformed-body"),
    (UnsupportedMediaType, 415, "unsupported-media-type"),
    (InvalidInput, 422, "invalid-input"),
    (LossBoundaryBreached, 422, "loss-boundary"),
    (CanonicalisationError, 422, "invalid-input"),
    (AuthenticationFailed, 401, "unauthenticated"),
    (PrincipalNotPinned, 403, "principal-not-pinned"),
    (EntitlementDenied, 403, "entitlement-denied"),
    (PermissionDenied, 403, "forbidden"),
    (NotFound, 404, "not-found"),
    (PolicyNotInForce, 409, "policy-not-in-force"),
    (ReceiptExpired, 409, "receipt-expired"),
    (Conflict, 409, "conflict"),
    (PayloadTooLarge, 413, "payload-too-large"),
    (KeyringError, 500, "keyring"),
    (LedgerIntegrityError, 500, "ledger-integrity"),
    (ReadModelsAhead, 503, "read-models-ahead"),
    (PositionNotReached, 503, "position-not-reached"),
    (TransparencyLogTampered, 500, "transparency-log-integrity"),
]


def problem(
    status: int,
    title: str,
    detail: str,
    slug: str,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """Build one problem+json response."""
    body: dict[str, Any] = {
        "type": _TYPE_BASE + slug,
        "title": title,
        "status": status,
        "detail": detail,
    }
    body.update(extra)
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def _field_of(location: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(part) for part in location]
    if parts and parts[0] == "body":
        parts = parts[1:]
    return ".".join(parts) or "body"


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {
            "field": _field_of(err.get("loc", ())),
            "rule": err.get("type", "invalid"),
            "message": err.get("msg", "invalid value"),
        }
        for err in exc.errors()
    ]
    detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
    return problem(422, "Invalid request", detail, "invalid-input", errors=errors)


async def _ledger_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LedgerError)
    return ledger_problem(exc)


def ledger_problem(exc: LedgerError) -> JSONResponse:
    """The problem+json response for a domain error (also used by ASGI middleware)."""
    status, slug = next(
        ((status, slug) for kind, status, slug in _STATUS_OF if isinstance(exc, kind)),
        (500, "internal"),
    )
    if isinstance(exc, InvalidInput):
        title = {400: "Malformed body", 415: "Unsupported media type"}.get(
            status, "Invalid request"
        )
        return problem(status, title, exc.message, slug, errors=exc.errors)
    if isinstance(exc, LossBoundaryBreached):
        return problem(
            status,
            "Loss boundary breached",
            exc.message,
            slug,
            errors=exc.errors,
            dropped=exc.dropped,
        )
    if isinstance(exc, PrincipalNotPinned | EntitlementDenied):
        title = "Principal not pinned" if isinstance(exc, PrincipalNotPinned) else "Not entitled"
        return problem(status, title, exc.message, slug, errors=exc.errors)
    if isinstance(exc, CanonicalisationError):
        errors = [{"field": "body", "rule": "rfc8785", "message": str(exc)}]
        return problem(status, "Invalid request", str(exc), slug, errors=errors)
    if isinstance(exc, ConflictingRequest):
        return problem(status, "Conflict", str(exc), slug, errors=exc.errors)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if isinstance(exc, ConcurrentWrite):  # nothing was written: the same request may succeed
        return problem(status, "Conflict", str(exc), slug, {"Retry-After": "0"}, retryable=True)
    if isinstance(exc, LedgerIntegrityError):
        # The stored ledger failed verification: refuse, name the event, serve none of it.
        log.error("ledger_integrity", reason=exc.reason, detail=exc.detail, **exc.position)
        return problem(
            status,
            "Ledger integrity failure",
            "data the ledger read back failed verification; nothing was served or signed",
            slug,
            reason=exc.reason,
            position=exc.position,
        )
    if isinstance(exc, PositionNotReached):  # a wait that ran out, not a fault: say so, retry
        log.warning("position_not_reached", detail=str(exc))
        return problem(status, "Position not reached", str(exc), slug, {"Retry-After": "1"})
    if status >= 500:
        log.error("ledger_error", error=type(exc).__name__, exc_info=exc)
        return problem(status, "Internal error", "the ledger could not complete the request", slug)
    return problem(status, slug.replace("-", " ").capitalize(), str(exc), slug, headers=headers)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400 and exc.detail == "There was an error parsing the body":
        # FastAPI's answer to a body that does not decode (e.g. invalid UTF-8).
        message = "the request body is not valid UTF-8 JSON"
        return problem(
            400,
            "Malformed body",
            message,
            "malformed-body",
            errors=[{"field": "body", "rule": "utf-8-json", "message": message}],
        )
    title = {404: "Not found", 405: "Method not allowed"}.get(exc.status_code, "HTTP error")
    slug = title.lower().replace(" ", "-")
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        headers["Allow"] = ", ".join(allowed_methods(request))
    return problem(exc.status_code, title, str(exc.detail), slug, headers=headers or None)


def allowed_methods(request: Request) -> list[str]:
    """Every method the routes at the request's path answer (Starlette names only the first
    route's: ``OPTIONS /v1/receipts`` would say ``POST`` alone, not ``GET, HEAD, POST``)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


async def _unhandled_error(request: Request, exc: Exception) -> JSONResponse:
    log.error("unhandled_error", error=type(exc).__name__, exc_info=exc)
    return problem(500, "Internal error", "an unexpected error occurred", "internal")


def install_error_handlers(app: FastAPI) -> None:
    """Route every error the app can raise to a problem+json response."""
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(LedgerError, _ledger_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unhandled_error)
