"""Liveness and readiness probes (no authentication)."""

from __future__ import annotations

import structlog
from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from api.deps import LedgerDep, WitnessDep
from api.errors import problem
from api.schemas import Health, Readiness

router = APIRouter(tags=["health"])
log = structlog.get_logger("provledger.health")


@router.get("/healthz", response_model=Health)
def healthz() -> Health:
    """The process is up."""
    return Health(status="ok")


@router.get(
    "/readyz",
    response_model=Readiness,
    response_model_exclude_none=True,
    responses={503: {"description": "not ready"}},
)
async def readyz(ledger: LedgerDep, submitter: WitnessDep) -> Readiness | JSONResponse:
    """The database answers, and no witness refused the log (its state is reported)."""
    try:
        position = await run_in_threadpool(ledger.last_position)
    except Exception as exc:  # any database failure means "not ready"
        log.warning("not_ready", error=type(exc).__name__)
        return problem(503, "Not ready", "the event store does not answer", "not-ready")
    if submitter is None:
        return Readiness(status="ready", position=position)
    witness = submitter.status.as_json()
    if submitter.status.state == "refused":
        return problem(
            503,
            "Not ready",
            f"the witness refused the log: {submitter.status.detail}",
            "witness-refused",
            witness=witness,
        )
    return Readiness(status="ready", position=position, witness=witness)
