"""The prompt-cache page: the read/write ratio of each stable prefix against its break-even
(docs/observability.md#prompt-cache)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from starlette.responses import Response

from api.console.state import ConsoleDep, SessionDep
from projections.usage_queries import BREAK_EVEN, CACHE_READ_PRICE, CACHE_WRITE_PRICE

router = APIRouter()
PREFIXES_SHOWN = 50
"""Prefixes the page lists, those with the most tokens first (the totals cover every one)."""
ONE_HOUR_BREAK_EVEN = (2 - 1) / (1 - CACHE_READ_PRICE)
"""The 1-hour tier's break-even: a write costs twice the input price, (2 - 1) / 0.9."""


@router.get("/prompt-cache")
async def prompt_cache_page(request: Request, console: ConsoleDep, session: SessionDep) -> Response:
    """Each stable prefix's tokens read from and written to the provider's prompt cache, their
    ratio and whether it pays back the writes."""
    usage = await run_in_threadpool(console.services.usage_reads.prompt_cache, PREFIXES_SHOWN)
    context = {
        "everything": usage.everything,
        "prefixes": usage.prefixes,
        "count": usage.count,
        "break_even": BREAK_EVEN,
        "one_hour": ONE_HOUR_BREAK_EVEN,
        "write_price": CACHE_WRITE_PRICE,
        "read_price": CACHE_READ_PRICE,
    }
    return console.render(request, "prompt_cache.html", context, session=session)
