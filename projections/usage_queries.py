"""Read-only queries of prompt-cache usage per stable prefix: ``/metrics`` and the console.

Each row sums the usage recorded on receipts whose context packets share one stable-prefix
hash (``prompt_cache``, written by the receipts projection). The read/write ratio of a prefix
is its cache-read tokens over its cache-write tokens; docs/observability.md#prompt-cache says
how to hold it as an SLO and why 0.28 is the 5-minute tier's break-even.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, func, select

from projections.schema import prompt_cache

CACHE_WRITE_PRICE = 1.25
"""A 5-minute cache write, in multiples of the base input price."""
CACHE_READ_PRICE = 0.1
"""A cache read, in multiples of the base input price."""
BREAK_EVEN = (CACHE_WRITE_PRICE - 1) / (1 - CACHE_READ_PRICE)
"""Reads per write at which a cached prefix costs what an uncached one does:
(1.25 - 1) / (1 - 0.1) = 0.25 / 0.9 = 0.2777..."""


@dataclass(frozen=True)
class PrefixUsage:
    """Usage summed over one stable prefix."""

    prefix_sha256: str
    calls: int
    input_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    first_at: str
    last_at: str

    @property
    def label(self) -> str:
        """The prefix as a metric label: the first 16 hex digits of its hash."""
        return self.prefix_sha256.removeprefix("sha256:")[:16]

    @property
    def ratio(self) -> float | None:
        """Cache-read over cache-write tokens (None when nothing was written)."""
        if self.cache_write_tokens == 0:
            return None
        return self.cache_read_tokens / self.cache_write_tokens

    @property
    def verdict(self) -> str:
        """``never-cached`` (neither written nor read: under the provider's minimum cacheable
        length, or not marked), ``no-writes`` (reads only: written before usage was recorded),
        ``pays-back`` (ratio at or over :data:`BREAK_EVEN`) or ``below-break-even``."""
        if self.cache_write_tokens == 0:
            return "no-writes" if self.cache_read_tokens else "never-cached"
        ratio = self.ratio
        assert ratio is not None
        return "pays-back" if ratio >= BREAK_EVEN else "below-break-even"


_TOKENS = (
    prompt_cache.c.input_tokens
    + prompt_cache.c.cache_write_tokens
    + prompt_cache.c.cache_read_tokens
)


def top_prefixes(conn: Connection, limit: int) -> list[PrefixUsage]:
    """The ``limit`` prefixes with the most tokens (ties by hash), most first."""
    rows = conn.execute(
        select(prompt_cache).order_by(_TOKENS.desc(), prompt_cache.c.prefix_sha256).limit(limit)
    ).mappings()
    return [
        PrefixUsage(
            prefix_sha256=str(row["prefix_sha256"]),
            calls=int(row["calls"]),
            input_tokens=int(row["input_tokens"]),
            cache_write_tokens=int(row["cache_write_tokens"]),
            cache_read_tokens=int(row["cache_read_tokens"]),
            first_at=str(row["first_at"]),
            last_at=str(row["last_at"]),
        )
        for row in rows
    ]


def totals(conn: Connection) -> PrefixUsage:
    """Usage summed over every prefix (``prefix_sha256`` ``all``)."""
    row = conn.execute(
        select(
            func.count(),
            func.coalesce(func.sum(prompt_cache.c.calls), 0),
            func.coalesce(func.sum(prompt_cache.c.input_tokens), 0),
            func.coalesce(func.sum(prompt_cache.c.cache_write_tokens), 0),
            func.coalesce(func.sum(prompt_cache.c.cache_read_tokens), 0),
            func.min(prompt_cache.c.first_at),
            func.max(prompt_cache.c.last_at),
        )
    ).one()
    _, calls, input_tokens, write, read, first, last = row
    return PrefixUsage(
        "all", int(calls), int(input_tokens), int(write), int(read), first or "", last or ""
    )


def prefix_count(conn: Connection) -> int:
    """How many distinct prefixes have usage."""
    return int(conn.execute(select(func.count()).select_from(prompt_cache)).scalar_one())
