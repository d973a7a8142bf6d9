"""The citation engagement beacon: the receipt page's script reports a citation expanded in
place or followed to its source (docs/console.md, "Citation engagement")."""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from prometheus_client import Counter
from starlette.responses import Response

from api.console.guard import check_csrf, check_origin
from api.console.state import ConsoleDep, SessionDep
from ledger.errors import InvalidInput, PayloadTooLarge
from projections.engagement import Engagement

router = APIRouter()
BEACON_LIMIT = 1024

CITATION_ENGAGEMENT = Counter(
    "provledger_citation_engagement",
    "Citations expanded in place (expand) or followed to their source (follow) in the console",
    ["kind"],
)


async def _beacon(request: Request) -> dict[str, str]:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > BEACON_LIMIT:
            raise PayloadTooLarge(f"an engagement beacon is at most {BEACON_LIMIT} bytes")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise InvalidInput("body", "json", "the beacon is a JSON object") from None
    if not isinstance(data, dict):
        raise InvalidInput("body", "json", "the beacon is a JSON object")
    fields: dict[str, str] = {}
    for name in ("claim_id", "source_id", "kind"):
        value = data.get(name)
        if not isinstance(value, str) or not 0 < len(value) <= 128:
            raise InvalidInput(name, "required", f"{name} is a string of 1-128 characters")
        fields[name] = value
    return fields


@router.post("/engagement", status_code=204)
async def engagement_beacon(request: Request, console: ConsoleDep, session: SessionDep) -> Response:
    """Count one engagement with a citation (204). The claim must cite the source."""
    check_origin(request)
    check_csrf(session.csrf, request.headers.get("x-csrf-token"))
    fields = await _beacon(request)
    try:
        kind = Engagement(fields["kind"])
    except ValueError:
        raise InvalidInput("kind", "one-of", "kind is expand or follow") from None
    desk = console.services.engagement
    await run_in_threadpool(desk.count, fields["claim_id"], fields["source_id"], kind)
    CITATION_ENGAGEMENT.labels(kind.value).inc()
    return Response(status_code=204)
