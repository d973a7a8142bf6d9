"""Read-your-writes across API processes: a write names its log position, a read may wait for it.

Every successful write (any method but GET, HEAD and OPTIONS answered below 400) carries the
header ``Provledger-Position``: the log's position after it, which covers the write's own events.
A request that sends the header back, to any API process, is answered only once every read model
(registry, receipts, transparency log) has applied that position: the process projects the log
itself when its read models are behind (``catch_up``, safe beside a worker: a batch commits only
from the tracking position it started at), waiting up to ``PROVLEDGER_READ_WAIT_SECONDS``; past
that bound the answer is the 503 problem ``position-not-reached`` and nothing is read.
"""

from __future__ import annotations

import asyncio
import time

from fastapi import Request
from fastapi.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.services import Services
from ledger.errors import InvalidInput, PositionNotReached

POSITION_HEADER = "Provledger-Position"
"""Sent on every successful write; sent back by a read that must see that write."""

RETRY_SECONDS = 0.05
"""Pause between catch-ups while another process holds the next batch."""

_READS = frozenset({"GET", "HEAD", "OPTIONS"})


def requested_position(request: Request) -> int | None:
    """The position a request asks to see (None without the header); 422 when it is not a
    non-negative integer."""
    raw = request.headers.get(POSITION_HEADER)
    if raw is None:
        return None
    value = raw.strip()
    if not value.isascii() or not value.isdigit() or len(value) > 19:
        raise InvalidInput(
            POSITION_HEADER, "integer", f"{POSITION_HEADER} must be a non-negative integer"
        )
    return int(value)


def projected_position(services: Services) -> int:
    """The lowest position the read models have applied."""
    return min(runner.position() for runner in services.read_side.runners)


async def wait_for_position(request: Request, services: Services) -> None:
    """Return once the read models have applied the requested position (see the module)."""
    wanted = requested_position(request)
    if wanted is None:
        return
    if await run_in_threadpool(projected_position, services) >= wanted:
        return
    end = await run_in_threadpool(services.ledger.last_position)
    if wanted > end:
        raise InvalidInput(
            POSITION_HEADER,
            "within-log",
            f"{POSITION_HEADER} {wanted} is past the end of the log ({end})",
        )
    deadline = time.monotonic() + services.settings.read_wait_seconds
    while time.monotonic() < deadline:
        if await run_in_threadpool(services.read_side.catch_up) >= wanted:
            return
        await asyncio.sleep(RETRY_SECONDS)
    if await run_in_threadpool(projected_position, services) >= wanted:
        return
    raise PositionNotReached(
        f"the read models did not reach log position {wanted} within "
        f"{services.settings.read_wait_seconds:g} s; retry the request"
    )


class PositionHeader:
    """Adds ``Provledger-Position`` to every successful write's response (ASGI middleware)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in _READS:
            await self.app(scope, receive, send)
            return

        async def send_with_position(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                services: Services = scope["app"].state.services
                position = await run_in_threadpool(services.ledger.last_position)
                MutableHeaders(scope=message)[POSITION_HEADER] = str(position)
            await send(message)

        await self.app(scope, receive, send_with_position)
