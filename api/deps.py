"""Every route dependency: the services built by the lifespan, the caller, read coordinates.

Routes take what they need from here; no route reads ``app.state`` itself. Outside the
routes, the two ASGI middlewares (``api/body_guard.py``, ``api/consistency.py``) read
``app.state.services`` from the scope, and the console, an app of its own, keeps its state in
``api/console/state.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from prometheus_client import CollectorRegistry
from pydantic import BeforeValidator

from api.consistency import wait_for_position
from api.services import Services
from ledger.access.policy_desk import PolicyDesk
from ledger.attribution.locate_desk import LocateDesk
from ledger.audit.keyring_desk import KeyringDesk
from ledger.errors import AuthenticationFailed, PermissionDenied
from ledger.eventlog.clock import ledger_time
from ledger.eventlog.event_desk import EventDesk
from ledger.keys.api_key_desk import ApiKeyDesk
from ledger.keys.api_keys import Caller, Scope
from ledger.memory.memory_desk import MemoryDesk
from ledger.receipts.outcome_desk import OutcomeDesk
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.repair_desk import RepairDesk
from ledger.receipts.transformation_desk import TransformationDesk
from ledger.receipts.usage_desk import UsageDesk
from ledger.retrieval.retrieval_desk import RetrievalDesk
from processes.change_desk import ChangeDesk
from processes.source_change_desk import SourceChangeDesk
from projections.affected_read_desk import AffectedReadDesk
from projections.audit_read_desk import AuditReadDesk
from projections.claim_read_desk import ClaimReadDesk
from projections.memory_read_desk import MemoryReadDesk
from projections.provenance_read_desk import ProvenanceReadDesk
from projections.receipt_read_desk import ReceiptReadDesk
from projections.registry_queries import AsOf
from projections.review_read_desk import ReviewReadDesk
from projections.source_read_desk import SourceReadDesk
from projections.span_read_desk import SpanReadDesk

RFC3339 = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})?$"
)
"""An RFC 3339 date-time (section 5.6); a missing offset is refused later with its own rule
(``ledger_time``: ``timezone``)."""


def _rfc3339(value: object) -> object:
    """Only an RFC 3339 string is a time: a bare number (``0``, ``0.5``, ``-1``) is not."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not RFC3339.match(value):
        raise ValueError("must be an RFC 3339 date-time, e.g. 2026-01-31T09:30:00Z")
    return value


Rfc3339 = Annotated[datetime, BeforeValidator(_rfc3339)]
"""A time a request gives: an RFC 3339 string only (no Unix timestamps, no numbers)."""

MAX_INT = 2**63 - 1
"""The largest value a 64-bit database integer holds: the bound of every position, size,
index and offset a request may name (larger ones are 422, not a database error)."""
MAX_INT32 = 2**31 - 1
"""The bound of a source version number and of a character offset in a text: the read models
keep both in 32-bit columns (texts are far shorter, versions far fewer)."""


async def get_services(request: Request) -> Services:
    """The services built by the app's lifespan (``async``: FastAPI runs a plain ``def``
    dependency in its thread pool, a hop that costs more than this lookup)."""
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


async def get_api_keys(services: ServicesDep) -> ApiKeyDesk:
    """The API keys: issue, revoke, authenticate."""
    return services.api_keys


async def get_receipts(services: ServicesDep) -> ReceiptDesk:
    """The receipt desk: opens receipts and commits claims."""
    return services.receipts


async def get_repairs(services: ServicesDep) -> RepairDesk:
    """The repair desk: re-attributes claims."""
    return services.repairs


async def get_transformations(services: ServicesDep) -> TransformationDesk:
    """The transformation desk: checks loss boundaries and records transformations."""
    return services.transformations


async def get_policies(services: ServicesDep) -> PolicyDesk:
    """Access policies: publish, read, the rules a version decides by."""
    return services.policies


async def get_outcomes(services: ServicesDep) -> OutcomeDesk:
    """Outcomes of receipts and what hangs off them."""
    return services.outcomes


async def get_retrieval(services: ServicesDep) -> RetrievalDesk:
    """The retrieval desk: hybrid retrieval, recorded in the ledger."""
    return services.retrieval


async def get_locate(services: ServicesDep) -> LocateDesk:
    """The locate desk."""
    return services.locate


async def get_memory(services: ServicesDep) -> MemoryDesk:
    """The memory desk: record, correct, revoke memory items."""
    return services.memory


async def get_usage(services: ServicesDep) -> UsageDesk:
    """Records prompt-cache usage on receipts."""
    return services.usage


async def get_claim_reads(services: ServicesDep) -> ClaimReadDesk:
    """The claim reads: the list and one claim rendered."""
    return services.claim_reads


async def get_receipt_reads(services: ServicesDep) -> ReceiptReadDesk:
    """The receipt reads: the list, the envelope, the context packet."""
    return services.receipt_reads


async def get_review_reads(services: ServicesDep) -> ReviewReadDesk:
    """The review queue's read."""
    return services.review_reads


async def get_source_reads(services: ServicesDep) -> SourceReadDesk:
    """Reads sources and versions, as the caller's key may see them."""
    return services.source_reads


async def get_span_reads(services: ServicesDep) -> SpanReadDesk:
    """Reads spans, as the caller's key may see them."""
    return services.span_reads


async def get_source_changes(services: ServicesDep) -> SourceChangeDesk:
    """Source writes that answer once their expiries are settled."""
    return services.source_changes


async def get_affected_read(services: ServicesDep) -> AffectedReadDesk:
    """The affected and expired lists of receipts."""
    return services.affected_read


async def get_memory_read(services: ServicesDep) -> MemoryReadDesk:
    """The memory lists."""
    return services.memory_read


async def get_changes(services: ServicesDep) -> ChangeDesk:
    """Retirements, declarations and memory changes, with the expiries they cause."""
    return services.changes


async def get_metrics_registry(request: Request) -> CollectorRegistry:
    """The process's metrics registry (built by the lifespan, served by ``/metrics``)."""
    registry: CollectorRegistry = request.app.state.metrics
    return registry


ApiKeysDep = Annotated[ApiKeyDesk, Depends(get_api_keys)]
ReceiptDeskDep = Annotated[ReceiptDesk, Depends(get_receipts)]
RepairDeskDep = Annotated[RepairDesk, Depends(get_repairs)]
TransformationDeskDep = Annotated[TransformationDesk, Depends(get_transformations)]
RetrievalDeskDep = Annotated[RetrievalDesk, Depends(get_retrieval)]
PolicyDeskDep = Annotated[PolicyDesk, Depends(get_policies)]
OutcomeDeskDep = Annotated[OutcomeDesk, Depends(get_outcomes)]
LocateDeskDep = Annotated[LocateDesk, Depends(get_locate)]
MetricsRegistryDep = Annotated[CollectorRegistry, Depends(get_metrics_registry)]
MemoryDeskDep = Annotated[MemoryDesk, Depends(get_memory)]
UsageDeskDep = Annotated[UsageDesk, Depends(get_usage)]
ClaimReadDeskDep = Annotated[ClaimReadDesk, Depends(get_claim_reads)]
ReceiptReadDeskDep = Annotated[ReceiptReadDesk, Depends(get_receipt_reads)]
ReviewReadDeskDep = Annotated[ReviewReadDesk, Depends(get_review_reads)]
SourceReadDeskDep = Annotated[SourceReadDesk, Depends(get_source_reads)]
SpanReadDeskDep = Annotated[SpanReadDesk, Depends(get_span_reads)]
SourceChangeDeskDep = Annotated[SourceChangeDesk, Depends(get_source_changes)]
AffectedReadDeskDep = Annotated[AffectedReadDesk, Depends(get_affected_read)]
MemoryReadDeskDep = Annotated[MemoryReadDesk, Depends(get_memory_read)]
ChangeDeskDep = Annotated[ChangeDesk, Depends(get_changes)]


async def get_audit_reads(services: ServicesDep) -> AuditReadDesk:
    """Checkpoints, proofs and bundles of the transparency log."""
    return services.audit_reads


async def get_provenance(services: ServicesDep) -> ProvenanceReadDesk:
    """PROV-JSON exports of receipts and sources."""
    return services.provenance


async def get_events(services: ServicesDep) -> EventDesk:
    """The notification log in pages."""
    return services.events


async def get_public_keys(services: ServicesDep) -> KeyringDesk:
    """The published keys and the envelope checks made with them."""
    return services.public_keys


AuditReadDeskDep = Annotated[AuditReadDesk, Depends(get_audit_reads)]
ProvenanceReadDeskDep = Annotated[ProvenanceReadDesk, Depends(get_provenance)]
EventDeskDep = Annotated[EventDesk, Depends(get_events)]
KeyringDeskDep = Annotated[KeyringDesk, Depends(get_public_keys)]


async def authenticate(request: Request, keys: ApiKeysDep) -> Caller:
    """Resolve ``Authorization: Bearer <secret>`` to a principal, or fail with 401."""
    header = request.headers.get("authorization")
    if not header:
        raise AuthenticationFailed("missing Authorization header (expected: Bearer <API key>)")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise AuthenticationFailed("Authorization header must be 'Bearer <API key>'")
    principal = await _principal(request, keys, secret.strip())
    if principal is None:
        raise AuthenticationFailed("unknown or revoked API key")
    return principal


async def _principal(request: Request, keys: ApiKeyDesk, secret: str) -> Caller | None:
    """A remembered key trusted within the key watch's lease admits at once; otherwise the
    key's rows are read on the event loop when the app has that reader
    (``projections/key_rows.py``) and the cache decides from them; otherwise the blocking path
    in a worker thread."""
    reader = getattr(request.app.state, "key_rows", None)
    key_id = keys.key_id_of(secret)
    if reader is not None and key_id is not None and keys.cache is not None:
        trusted = keys.authenticate_trusted(key_id, secret)  # within the key watch's lease
        if trusted is not None:
            return trusted
        looks = keys.cache.looks
        decided, principal = keys.authenticate_cached(
            key_id, secret, await reader.rows(key_id), looks
        )
        if decided:
            return principal
        return await run_in_threadpool(keys.rebuild, secret)
    return await run_in_threadpool(keys.authenticate, secret)


PRINCIPAL = "provledger.principal"
"""Where in ``scope["state"]`` the body guard leaves the caller it authenticated."""


async def caller(request: Request) -> Caller:
    """The authenticated caller: the one :class:`api.body_guard.RequestBodyGuard` found before
    reading the body, or :func:`authenticate` now (routes without a body). A request carrying
    ``Provledger-Position`` then waits for the read models to reach it (api/consistency.py).

    It takes the services itself rather than as dependencies: every authenticated request
    passes here, and each dependency FastAPI resolves costs more than the lookup."""
    services = await get_services(request)
    principal = request.scope.get("state", {}).get(PRINCIPAL)
    if not isinstance(principal, Caller):
        principal = await authenticate(request, services.api_keys)
    await wait_for_position(request, services)
    return principal


_REQUIRED_SCOPES: dict[Callable[..., object], Scope] = {}


def require(scope: Scope) -> Callable[..., object]:
    """A dependency that demands ``scope`` of the caller (403 if it is missing); one per
    scope, so the OpenAPI document can name the scope of each operation (api/openapi.py)."""
    for check, required in _REQUIRED_SCOPES.items():
        if required is scope:
            return check

    async def check_scope(principal: Annotated[Caller, Depends(caller)]) -> Caller:
        if not principal.allows(scope.value):
            raise PermissionDenied(f"this API key lacks the {scope.value!r} scope")
        return principal

    _REQUIRED_SCOPES[check_scope] = scope
    return check_scope


def required_scope(dependency: object) -> Scope | None:
    """The scope a dependency made by :func:`require` demands (None for any other)."""
    return next((s for check, s in _REQUIRED_SCOPES.items() if check is dependency), None)


AuditReader = Annotated[Caller, Depends(require(Scope.AUDIT_READ))]


async def as_of(
    known_at: Annotated[
        Rfc3339 | None, Query(description="what the ledger knew then (RFC 3339)")
    ] = None,
    valid_at: Annotated[
        Rfc3339 | None, Query(description="what was in force then (RFC 3339)")
    ] = None,
) -> AsOf:
    """Bitemporal read coordinates from ``?known_at=&valid_at=`` (422 when malformed)."""
    return AsOf(
        known_at=None if known_at is None else ledger_time("known_at", known_at),
        valid_at=None if valid_at is None else ledger_time("valid_at", valid_at),
    )


AsOfDep = Annotated[AsOf, Depends(as_of)]
