"""Shared dependencies: the open ledger and the authenticated caller."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Query, Request
from fastapi.concurrency import run_in_threadpool

from ledger.errors import AuthenticationFailed, PermissionDenied
from ledger.eventlog.application import Ledger
from ledger.eventlog.clock import ledger_time
from ledger.eventlog.runtime import LedgerRuntime
from ledger.keys.api_keys import Principal, Scope
from projections.registry_queries import AsOf
from projections.service import ReadSide

MAX_INT = 2**63 - 1
"""The largest value a 64-bit database integer holds: the bound of every position, size,
index and offset a request may name (larger ones are 422, not a database error)."""
MAX_INT32 = 2**31 - 1
"""The bound of a source version number and of a character offset in a text: the read models
keep both in 32-bit columns (texts are far shorter, versions far fewer)."""


async def get_runtime(request: Request) -> LedgerRuntime:
    """The ledger runtime built by the app's lifespan (``async``: FastAPI runs a plain
    ``def`` dependency in its thread pool, a hop that costs more than this lookup)."""
    runtime: LedgerRuntime = request.app.state.runtime
    return runtime


async def get_ledger(runtime: Annotated[LedgerRuntime, Depends(get_runtime)]) -> Ledger:
    """The ledger application."""
    return runtime.ledger


async def get_read_side(request: Request) -> ReadSide:
    """The read models built by the app's lifespan."""
    read_side: ReadSide = request.app.state.read_side
    return read_side


RuntimeDep = Annotated[LedgerRuntime, Depends(get_runtime)]
LedgerDep = Annotated[Ledger, Depends(get_ledger)]
ReadSideDep = Annotated[ReadSide, Depends(get_read_side)]


async def authenticate(request: Request, ledger: LedgerDep) -> Principal:
    """Resolve ``Authorization: Bearer <secret>`` to a principal, or fail with 401."""
    header = request.headers.get("authorization")
    if not header:
        raise AuthenticationFailed("missing Authorization header (expected: Bearer <API key>)")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise AuthenticationFailed("Authorization header must be 'Bearer <API key>'")
    principal = await run_in_threadpool(ledger.authenticate, secret.strip())
    if principal is None:
        raise AuthenticationFailed("unknown or revoked API key")
    return principal


PRINCIPAL = "provledger.principal"
"""Where in ``scope["state"]`` the body guard leaves the caller it authenticated."""


async def caller(request: Request, ledger: LedgerDep) -> Principal:
    """The authenticated caller: the one :class:`api.body_guard.RequestBodyGuard` found before
    reading the body, or :func:`authenticate` now (routes without a body)."""
    principal = request.scope.get("state", {}).get(PRINCIPAL)
    if isinstance(principal, Principal):
        return principal
    return await authenticate(request, ledger)


def require(scope: Scope) -> Callable[..., object]:
    """A dependency that demands ``scope`` of the caller (403 if it is missing)."""

    async def check(principal: Annotated[Principal, Depends(caller)]) -> Principal:
        if not principal.allows(scope.value):
            raise PermissionDenied(f"this API key lacks the {scope.value!r} scope")
        return principal

    return check


AuditReader = Annotated[Principal, Depends(require(Scope.AUDIT_READ))]


async def as_of(
    known_at: Annotated[
        datetime | None, Query(description="what the ledger knew then (RFC 3339)")
    ] = None,
    valid_at: Annotated[
        datetime | None, Query(description="what was in force then (RFC 3339)")
    ] = None,
) -> AsOf:
    """Bitemporal read coordinates from ``?known_at=&valid_at=`` (422 when malformed)."""
    return AsOf(
        known_at=None if known_at is None else ledger_time("known_at", known_at),
        valid_at=None if valid_at is None else ledger_time("valid_at", valid_at),
    )


AsOfDep = Annotated[AsOf, Depends(as_of)]
