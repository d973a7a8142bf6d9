"""The prompt-cache page: the read/write ratio of each stable prefix against its break-even
(docs/observability.md#prompt-cache)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from starlette.responses import Response

from api.console.state import ConsoleDep, SessionDep
from api.services import Services
from projections.usage_queries import (
    BREAK_EVEN,
    CACHE_READ_PRICE,
    CACHE_WRITE_PRICE,
    PrefixUsage,
    prefix_count,
    top_prefixes,
    totals,
)

router = APIRouter()
PREFIXES_SHOWN = 50
"""Prefixes the page lists, those with the most tokens first (the totals cover every one)."""
ONE_HOUR_BREAK_EVEN = (2 - 1) / (1 - CACHE_READ_PRICE)
"""The 1-hour tier's break-even: a write costs twice the input price, (2 - 1) / 0.9."""


def _usage(services: Services) -> tuple[PrefixUsage, list[PrefixUsage], int]:
    services.read_side.receipts.catch_up()  # usage recorded in this process shows at once
    with services.read_side.db.reads.connect() as conn:
        return totals(conn), top_prefixes(conn, PREFIXES_SHOWN), prefix_count(conn)


@router.get("/prompt-cache")
async def prompt_cache_page(request: Request, console: ConsoleDep, session: SessionDep) -> Response:
    """Each stable prefix's tokens read from and written to the provider's prompt cache, their
    ratio and whether it pays back the writes."""
    everything, prefixes, count = await run_in_threadpool(_usage, console.services)
    context = {
        "everything": everything,
        "prefixes": prefixes,
        "count": count,
        "break_even": BREAK_EVEN,
        "one_hour": ONE_HOUR_BREAK_EVEN,
        "write_price": CACHE_WRITE_PRICE,
        "read_price": CACHE_READ_PRICE,
    }
    return console.render(request, "prompt_cache.html", context, session=session)
