"""The application factory and its lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog
from fastapi import FastAPI

from api.body_guard import RequestBodyGuard
from api.errors import install_error_handlers
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
    provenance,
    receipts,
    review,
    sources,
)
from api.services import open_ledger
from api.settings import Settings
from ledger.crypto.cosignature import parse_witness_vkey
from ledger.errors import ConfigurationError, LedgerError
from ledger.eventlog.runtime import LedgerRuntime
from ledger.gate import GateConfig
from ledger.receipts.commands import ReceiptDesk
from ledger.receipts.repair_desk import RepairDesk
from processes.entailment_http import HttpEntailmentVerifier
from processes.entailment_sampler import EntailmentSampler
from processes.expiry import ExpiryProcess
from processes.witness_client import WitnessClient
from processes.witness_submitter import WitnessSubmitter
from projections.service import ReadSide

log = structlog.get_logger("provledger.app")


def create_app(settings: Settings | None = None, runtime: LedgerRuntime | None = None) -> FastAPI:
    """Build the API. ``runtime`` lets tests share an open ledger; otherwise the lifespan
    opens one from ``settings`` (the environment by default) and closes it on shutdown."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = runtime is None
        app.state.runtime = runtime or open_ledger(settings)
        app.state.settings = settings
        read_side = ReadSide(
            app.state.runtime.ledger,
            app.state.runtime.database,
            settings.log_origin,
            app.state.runtime.keyring,
        )
        read_side.catch_up()
        app.state.expiry = ExpiryProcess(read_side)
        read_side.followers.append(app.state.expiry.run_once)
        verifier = entailment_verifier(settings)
        app.state.entailment = None
        if verifier is not None:
            app.state.entailment = EntailmentSampler(
                read_side, verifier, settings.entailment_sample_rate
            )
            read_side.followers.append(app.state.entailment.run_once)
        app.state.witness = witness_submitter(settings, read_side)
        if app.state.witness is not None:
            read_side.followers.append(app.state.witness.run_once)
        if settings.background:
            read_side.start_polling()
        app.state.read_side = read_side
        app.state.receipts = ReceiptDesk(
            app.state.runtime.ledger, read_side.span_resolver, gate_config(settings)
        )
        app.state.repairs = RepairDesk(app.state.receipts)
        log.info(
            "ledger_opened",
            database=app.state.runtime.database.describe(),
            signing_kid=app.state.runtime.ledger.signing_key.kid,
        )
        try:
            yield
        finally:
            await read_side.aclose()
            if app.state.witness is not None:
                app.state.witness.close()
            if owned:
                app.state.runtime.close()

    app = FastAPI(
        title="provledger",
        version="0.1.0",
        summary="Event-sourced provenance ledger for citation-critical AI systems",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    app.add_middleware(RequestBodyGuard)  # inside the request context: its refusals are logged
    app.add_middleware(RequestContextMiddleware)
    app.include_router(health.router)
    app.include_router(keys.router)
    app.include_router(events.router)
    app.include_router(sources.router)
    app.include_router(receipts.router)
    app.include_router(claims.router)
    app.include_router(envelopes.router)
    app.include_router(expiry.router)
    app.include_router(review.router)
    app.include_router(attribution.router)
    app.include_router(audit.router)
    app.include_router(provenance.router)
    return app


def gate_config(settings: Settings) -> GateConfig:
    """The gate's configuration: library defaults unless a setting overrides them."""
    if settings.support_threshold is None:
        return GateConfig()
    return GateConfig(support_threshold=settings.support_threshold)


def entailment_verifier(settings: Settings) -> HttpEntailmentVerifier | None:
    """The configured entailment verifier (None: the default ``none`` tier)."""
    if settings.entailment == "none" or settings.entailment_sample_rate <= 0:
        return None
    if not settings.entailment_url:
        raise ConfigurationError("PROVLEDGER_ENTAILMENT=http needs PROVLEDGER_ENTAILMENT_URL")
    return HttpEntailmentVerifier(
        settings.entailment_url, settings.entailment_model, settings.entailment_api_key
    )


def witness_submitter(settings: Settings, read_side: ReadSide) -> WitnessSubmitter | None:
    """The witness submitter when ``PROVLEDGER_WITNESS_URL`` is set (it needs the vkey too)."""
    if not settings.witness_url:
        return None
    if not settings.witness_vkey:
        raise ConfigurationError("PROVLEDGER_WITNESS_URL needs PROVLEDGER_WITNESS_VKEY")
    try:
        key = parse_witness_vkey(settings.witness_vkey)
    except LedgerError as exc:
        raise ConfigurationError(f"PROVLEDGER_WITNESS_VKEY: {exc}") from exc
    return WitnessSubmitter(
        read_side.db.sync, WitnessClient(settings.witness_url), key, settings.log_origin
    )


def app_from_environment() -> FastAPI:
    """Entry point for ASGI servers: ``uvicorn --factory api.main:app_from_environment``."""
    settings = Settings()
    configure_logging(settings.log_level, settings.log_json)
    return create_app(settings)
