"""Prompt-cache usage per stable prefix, as the console's prompt-cache page shows it
(docs/observability.md#prompt-cache).

The receipts read model is brought up to the end of the log first, so usage recorded in this
process shows at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from projections.service import ReadSide
from projections.usage_queries import PrefixUsage, prefix_count, top_prefixes, totals


@dataclass(frozen=True)
class PromptCacheUsage:
    """Usage summed over every prefix, the prefixes with the most tokens, and how many
    prefixes there are in all."""

    everything: PrefixUsage
    prefixes: list[PrefixUsage]
    count: int


class UsageReadDesk:
    """Reads prompt-cache usage."""

    def __init__(self, read_side: ReadSide) -> None:
        self.read_side = read_side

    def prompt_cache(self, shown: int) -> PromptCacheUsage:
        """The totals over every prefix and the ``shown`` prefixes with the most tokens."""
        self.read_side.receipts.catch_up()
        with self.read_side.db.reads.connect() as conn:
            return PromptCacheUsage(totals(conn), top_prefixes(conn, shown), prefix_count(conn))
