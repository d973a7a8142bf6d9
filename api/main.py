"""The application factory and its lifespan."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog
from fastapi import FastAPI

from api.allocator import configure as configure_allocator
from api.allocator import trim_periodically
from api.body_guard import RequestBodyGuard
from api.consistency import PositionHeader
from api.console.app import console_app
from api.docs_ui import install_docs_ui
from api.errors import install_error_handlers
from api.key_watch import KeyWatch
from api.metrics import MetricsServer, observe_store, registry_for, serve_metrics
from api.observability import RequestContextMiddleware, configure_logging
from api.openapi import install_openapi
from api.routes import (
    access,
    add_routes,
    affected,
    attribution,
    audit,
    claims,
    context_packets,
    envelopes,
    events,
    expiry,
    health,
    keys,
    memory,
    metrics,
    outcomes,
    provenance,
    receipts,
    retirements,
    retrieval,
    review,
    routing,
    sources,
    span_lookups,
    spans,
    transformations,
)
from api.services import Services, build_services
from api.settings import Settings
from api.tracing import start_tracing
from ledger.gate import COMPILED as GATE_COMPILED
from ledger.gate import Status
from ledger.gate.warm import warm_up
from ledger.retrieval.dense import shared_embedder
from ledger.runtime import LedgerRuntime
from projections.key_rows import open_key_rows

log = structlog.get_logger("provledger.app")

API_DESCRIPTION = """Every change is an append-only event, signed with Ed25519 and hash-chained.

Send an API key from `provledger keys create` as `Authorization: Bearer <secret>` (the
**Authorize** button); each operation names the scope it needs. Every error is RFC 9457
`application/problem+json`. A Python client ships in the package: `from provledger import
Client` (docs/client.md)."""


ROUTES = (
    health,
    metrics,
    keys,
    events,
    sources,
    spans,
    span_lookups,
    receipts,
    context_packets,
    transformations,
    outcomes,
    memory,
    retrieval,
    claims,
    envelopes,
    expiry,
    retirements,
    affected,
    review,
    access,
    routing,
    attribution,
    audit,
    provenance,
)
"""Every resource's router, in the order the OpenAPI document lists them."""


def create_app(settings: Settings | None = None, runtime: LedgerRuntime | None = None) -> FastAPI:
    """Build the API. ``runtime`` lets tests share an open ledger; otherwise the lifespan
    opens one from ``settings`` (the environment by default) and closes it on shutdown."""
    settings = settings or Settings()
    configure_allocator()  # before the thread pool's threads each take an arena of their own

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        tracing = start_tracing()  # off unless the OTEL_* variables ask for it
        services = build_services(settings, runtime)
        app.state.services = services
        observe_store(services)
        app.state.metrics = registry_for(services)
        metrics_server: MetricsServer | None = None
        if settings.metrics_addr:
            metrics_server = serve_metrics(settings.metrics_addr, app.state.metrics)
        app.state.metrics_server = metrics_server
        services.read_side.catch_up()
        services.follow()
        if settings.background:
            services.read_side.start_polling()
        app.state.key_rows = (
            None
            if services.api_keys.cache is None
            else await open_key_rows(services.runtime.database, services.ledger)
        )
        key_watch = await start_key_watch(app, services)
        trimmer = asyncio.create_task(trim_periodically())
        services.receipts  # noqa: B018 - built now, not on the first request
        services.repairs  # noqa: B018
        # The gate's word tables (WordNet, about a second) and the embedding table load now,
        # before /readyz says ready, not on the first commit or retrieval.
        gate_warm = await asyncio.to_thread(warm_up)
        if any(status is not Status.VERIFIED for status in gate_warm):
            log.error("gate_warm_up_unexpected", statuses=[s.value for s in gate_warm])
        await asyncio.to_thread(shared_embedder)
        log.info(
            "ledger_opened",
            database=services.runtime.database.describe(),
            signing_kid=services.ledger.signing_key.kid,
            gate_compiled=GATE_COMPILED,
        )
        try:
            yield
        finally:
            if metrics_server is not None:
                metrics_server.close()
            await cancelled(trimmer)
            if key_watch is not None:
                await cancelled(key_watch)
            if app.state.key_rows is not None:
                await app.state.key_rows.close()
            await services.aclose()
            if tracing is not None:
                tracing.close()

    app = FastAPI(
        title="provledger",
        version="0.1.0",
        summary="Event-sourced provenance ledger for citation-critical AI systems",
        description=API_DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    install_error_handlers(app)
    app.add_middleware(PositionHeader)  # innermost: a write's position once it has answered
    app.add_middleware(RequestBodyGuard)  # inside the request context: its refusals are logged
    app.add_middleware(RequestContextMiddleware)
    for module in ROUTES:
        add_routes(app, module.router)
    install_openapi(app)
    install_docs_ui(app)
    app.mount("/console", console_app(app))
    return app


async def start_key_watch(app: FastAPI, services: Services) -> asyncio.Task[None] | None:
    """Look once for key events, then keep looking in a task (``api/key_watch.py``), when the
    app reads key rows on its event loop; a broken reader fails at start."""
    app.state.key_watch = None
    cache = services.api_keys.cache
    if app.state.key_rows is None or cache is None or cache.lease <= 0:
        return None
    watch = KeyWatch(app.state.key_rows, cache)
    await watch.look()
    app.state.key_watch = watch
    return asyncio.create_task(watch.run(), name="provledger-key-watch")


async def cancelled(task: asyncio.Task[None]) -> None:
    """Cancel ``task`` and wait until it has stopped."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def app_from_environment() -> FastAPI:
    """Entry point for ASGI servers: ``uvicorn --factory api.main:app_from_environment``."""
    settings = Settings()
    configure_logging(settings.log_level, settings.log_json)
    return create_app(settings)
