"""``GET /metrics``: Prometheus text exposition, for keys with the ``metrics`` scope."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Response
from fastapi.concurrency import run_in_threadpool

from api.deps import MetricsRegistryDep, require
from api.metrics import CONTENT_TYPE_LATEST, exposition
from ledger.keys.api_keys import Caller, Scope

router = APIRouter(tags=["health"])


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}},
)
async def metrics(
    registry: MetricsRegistryDep, _: Annotated[Caller, Depends(require(Scope.METRICS))]
) -> Response:
    """Every metric of this service (of all its processes in multiprocess mode) and the
    ledger's own gauges; see docs/observability.md."""
    body = await run_in_threadpool(exposition, registry)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
