"""Prompt-cache usage of one inference: the three token counts a provider reports.

``input_tokens`` were read at the full input price, ``cache_creation_input_tokens`` were
written to the provider's prompt cache (the 5-minute tier costs 1.25 times the input price, the
1-hour tier twice), ``cache_read_input_tokens`` were read from it (0.1 times). A receipt
records them against its stable-prefix hash (``ledger/receipts/packet.py``), so the read/write
ratio of each prefix can be watched as an SLO (docs/observability.md#prompt-cache).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

MAX_TOKENS = 2**31 - 1
"""The most tokens one count may report (far beyond any context window)."""


@dataclass(frozen=True)
class Usage:
    """The token counts of one inference."""

    input_tokens: int
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def errors(self, where: str = "usage") -> list[dict[str, str]]:
        """Every count that is not an integer from 0 to :data:`MAX_TOKENS`."""
        found: list[dict[str, str]] = []
        for item in fields(self):
            value: Any = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, int):
                rule, message = "integer", f"{item.name} is a whole number of tokens"
            elif not 0 <= value <= MAX_TOKENS:
                rule, message = "range", f"{item.name} is from 0 to {MAX_TOKENS}"
            else:
                continue
            found.append({"field": f"{where}.{item.name}", "rule": rule, "message": message})
        return found

    def to_json(self) -> dict[str, int]:
        """The counts as the event records them."""
        return {item.name: int(getattr(self, item.name)) for item in fields(self)}
