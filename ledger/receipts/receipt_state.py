"""What a receipt's folded state shows, read without changing it: the recorded
transformations by id, the memory its pool sealed, its stable-prefix hash, whether a cause
already expired it, its outcome and downstream actions, the next claim's ordinal. The
:class:`~ledger.receipts.receipt.Receipt` aggregate records; this is what it is read as."""

from __future__ import annotations

from typing import Any

from ledger.receipts import folds


class ReceiptState:
    """The read-only views of a receipt's state (a base of ``Receipt``)."""

    context: dict[str, Any]
    claims: list[dict[str, Any]]
    rejected: list[dict[str, Any]]
    expiries: list[dict[str, Any]]
    outcomes: list[dict[str, Any]]
    transformations: list[dict[str, Any]]

    @property
    def transformation_index(self) -> dict[str, dict[str, Any]]:
        """The recorded transformations by id."""
        return {t["transformation_id"]: t for t in self.transformations}

    @property
    def memory(self) -> list[dict[str, Any]]:
        """The memory item versions its pool sealed (``{memory_id, version, text_sha256}``;
        none for a receipt opened without memory)."""
        sealed: list[dict[str, Any]] = self.context.get("memory", [])
        return sealed

    @property
    def prefix_sha256(self) -> str | None:
        """The stable-prefix hash its context packet recorded at opening (None before
        packets)."""
        packet = self.context.get("packet")
        return None if packet is None else str(packet["prefix_sha256"])

    def has_cause(self, cause: str) -> bool:
        """Tell whether an expiry with this cause was already recorded."""
        return any(expiry["cause"] == cause for expiry in self.expiries)

    @property
    def outcome(self) -> dict[str, Any] | None:
        """The latest outcome (a later one amends the decision), or None."""
        return self.outcomes[-1] if self.outcomes else None

    @property
    def actions(self) -> list[dict[str, str]]:
        """Every downstream action the outcomes named, in the order first recorded, each with
        when it was first recorded: an amended decision does not undo an action taken."""
        return folds.downstream_actions(self.outcomes)

    @property
    def next_ordinal(self) -> int:
        """Ordinal of the next claim (accepted and rejected claims share the count)."""
        return len(self.claims) + len(self.rejected)
