"""Filtering a list before paging: full pages, stable cursors, nothing left out leaks."""

from __future__ import annotations

import asyncio

import pytest

from projections import pages
from projections.pages import page, visible_rows

ROWS = list(range(1, 31))  # sort keys; multiples of 3 are left out


async def _fetch(after: int | None, n: int) -> list[int]:
    return [r for r in ROWS if after is None or r > after][: n + 1]


async def _keep(row: int) -> bool:
    return row % 3 != 0


def _pages(limit: int) -> list[list[int]]:
    found: list[list[int]] = []
    after = None
    while True:
        rows = asyncio.run(visible_rows(_fetch, lambda r: r, _keep, after, limit))
        items, after = page(rows, limit, lambda r: r)
        found.append(items)
        if after is None:
            return found


@pytest.mark.parametrize("batch", [1, 2, 100])
@pytest.mark.parametrize("limit", [1, 4, 7, 20, 25])
def test_pages_are_full_until_the_last_and_hold_every_kept_row_once(
    monkeypatch: pytest.MonkeyPatch, batch: int, limit: int
) -> None:
    monkeypatch.setattr(pages, "VISIBLE_BATCH", batch)

    found = _pages(limit)

    kept = [r for r in ROWS if r % 3 != 0]
    assert [r for p in found for r in p] == kept
    assert all(len(p) == limit for p in found[:-1])
    assert 0 < len(found[-1]) <= limit


def test_a_cursor_after_a_kept_row_resumes_after_it_whatever_follows() -> None:
    rows = asyncio.run(visible_rows(_fetch, lambda r: r, _keep, 4, 3))

    assert rows == [5, 7, 8, 10]  # limit + 1: one more follows, so the page says next
