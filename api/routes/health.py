"""Liveness and readiness probes (no authentication)."""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from api.deps import ServicesDep
from api.errors import problem
from api.readiness import check_readiness
from api.schemas import Health, Readiness

router = APIRouter(tags=["health"])
log = structlog.get_logger("provledger.health")


@router.get("/healthz", response_model=Health)
async def healthz() -> Health:
    """The process is up (liveness: no database, no projection is consulted)."""
    return Health(status="ok")


@router.get(
    "/readyz",
    response_model=Readiness,
    response_model_exclude_none=True,
    responses={503: {"description": "not ready: every failing check is named"}},
)
async def readyz(services: ServicesDep) -> Readiness | JSONResponse:
    """Every check passes: the database answers, a signing key is loaded, each projection is
    within its lag bound and not failing, and no witness refused the log (its state is
    reported)."""
    report = await run_in_threadpool(check_readiness, services)
    witness = report.witness
    failing = report.failing
    if not failing:
        checks = {name: check.as_json() for name, check in report.checks.items()}
        return Readiness(status="ready", position=report.position, witness=witness, checks=checks)
    log.warning("not_ready", failing=failing)
    # A refused log keeps its own problem type (docs/audit.md); anything else is not-ready.
    slug = "witness-refused" if failing == ["witness"] else "not-ready"
    detail = report.checks["witness"].detail if slug == "witness-refused" else None
    extra: dict[str, Any] = {
        "failing": failing,
        "checks": {name: check.as_json() for name, check in report.checks.items()},
    }
    if witness is not None:
        extra["witness"] = witness
    return problem(503, "Not ready", detail or f"failing: {report.summary()}", slug, **extra)
