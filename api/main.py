"""The application factory and its lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog
from fastapi import FastAPI

from api.body_guard import RequestBodyGuard
from api.consistency import PositionHeader
from api.errors import install_error_handlers
from api.metrics import MetricsServer, observe_store, registry_for, serve_metrics
from api.observability import RequestContextMiddleware, configure_logging
from api.routes import (
    attribution,
    audit,
    claims,
    envelopes,
    events,
    expiry,
    health,
    keys,
    metrics,
    provenance,
    receipts,
    retrieval,
    review,
    sources,
)
from api.services import build_services
from api.settings import Settings
from ledger.runtime import LedgerRuntime

log = structlog.get_logger("provledger.app")


def create_app(settings: Settings | None = None, runtime: LedgerRuntime | None = None) -> FastAPI:
    """Build the API. ``runtime`` lets tests share an open ledger; otherwise the lifespan
    opens one from ``settings`` (the environment by default) and closes it on shutdown."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
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
        services.receipts  # noqa: B018 - built now, not on the first request
        services.repairs  # noqa: B018
        log.info(
            "ledger_opened",
            database=services.runtime.database.describe(),
            signing_kid=services.ledger.signing_key.kid,
        )
        try:
            yield
        finally:
            if metrics_server is not None:
                metrics_server.close()
            await services.aclose()

    app = FastAPI(
        title="provledger",
        version="0.1.0",
        summary="Event-sourced provenance ledger for citation-critical AI systems",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    app.add_middleware(PositionHeader)  # innermost: a write's position once it has answered
    app.add_middleware(RequestBodyGuard)  # inside the request context: its refusals are logged
    app.add_middleware(RequestContextMiddleware)
    app.include_router(health.router)
    app.include_router(metrics.router)
    app.include_router(keys.router)
    app.include_router(events.router)
    app.include_router(sources.router)
    app.include_router(receipts.router)
    app.include_router(retrieval.router)
    app.include_router(claims.router)
    app.include_router(envelopes.router)
    app.include_router(expiry.router)
    app.include_router(review.router)
    app.include_router(attribution.router)
    app.include_router(audit.router)
    app.include_router(provenance.router)
    return app


def app_from_environment() -> FastAPI:
    """Entry point for ASGI servers: ``uvicorn --factory api.main:app_from_environment``."""
    settings = Settings()
    configure_logging(settings.log_level, settings.log_json)
    return create_app(settings)
