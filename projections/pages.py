"""A page of a list, cut from rows read a page at a time: :func:`page` cuts the rows a query
read (``limit + 1`` of them) to ``limit`` and names the sort key of the last; :func:`visible_rows`
reads rows until ``limit + 1`` of them pass a filter (a pinned key's view). The cursors that
carry a sort key over HTTP are ``api/pages.py``'s."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

VISIBLE_BATCH = 100
"""Rows a filtered list reads per query at least (a small page among many left-out rows
should not cost a query per row)."""

T = TypeVar("T")


def page(rows: Sequence[T], limit: int, key: Any) -> tuple[list[T], Any | None]:
    """The first ``limit`` of ``rows`` (fetched as ``limit + 1``) and the sort key of the last
    item when more follow (else None)."""
    items = list(rows[:limit])
    return items, key(items[-1]) if len(rows) > limit and items else None


async def visible_rows(
    fetch: Callable[[Any, int], Awaitable[Sequence[T]]],
    key: Callable[[T], Any],
    keep: Callable[[T], Awaitable[bool]],
    after: Any,
    limit: int,
) -> list[T]:
    """Up to ``limit + 1`` rows that ``keep`` admits, in list order after sort key ``after``,
    for :func:`page`: filtered before paging, so a page is never short while more follow and
    ``next`` names the last item served (a cursor stays stable whatever was left out).

    ``fetch(after, n)`` returns up to ``n + 1`` rows after ``after`` (None: from the start),
    as every list query does; ``n`` is at least :data:`VISIBLE_BATCH`."""
    kept: list[T] = []
    size = max(limit, VISIBLE_BATCH)
    while True:
        rows = await fetch(after, size)
        batch = list(rows[:size])
        for row in batch:
            if await keep(row):
                kept.append(row)
                if len(kept) > limit:
                    return kept
        if len(rows) <= size or not batch:
            return kept
        after = key(batch[-1])
