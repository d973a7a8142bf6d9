"""The loss-boundary check: every must-keep item of a transformation's inputs that its
declared boundary does not release survives in its output.

Deterministic and pure: the same inputs, output and boundary give the same report. The report
names every item found, which were released (and by what), and which the output dropped; a
transformation with a dropped item is refused, so what the ledger records is only ever an
output that kept every item it had to.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.lossboundary.items import MustKeepItem, must_keep_items, read_output
from ledger.lossboundary.vocabulary import MayRemove, MustKeep

CHECKER = "provledger.loss-boundary/1"
"""The name and version of this check, recorded with every transformation it accepted: a
change to what it finds or how it decides is a new version."""


@dataclass(frozen=True, slots=True)
class InputText:
    """One input of a transformation: a span's id and verbatim text, and whether its source is
    of low weight (advisory or fallback: the receipts room decides)."""

    span_id: str
    text: str
    low_weight: bool = False


@dataclass(frozen=True)
class LossReport:
    """What the check found: every must-keep item, and of them those the boundary released
    and those the output dropped (in input order)."""

    must_keep: tuple[MustKeep, ...]
    items: tuple[MustKeepItem, ...]
    released: tuple[MustKeepItem, ...]
    dropped: tuple[MustKeepItem, ...]

    @property
    def kept(self) -> bool:
        """Whether the output kept every item it had to."""
        return not self.dropped

    def record(self) -> dict[str, Any]:
        """What the transformation's event records of the check: the checker, how many items
        of each kind were found, released and kept, and each released item."""
        by_kind = {}
        for kind in self.must_keep:
            found = sum(1 for item in self.items if item.kind is kind)
            released = sum(1 for item in self.released if item.kind is kind)
            dropped = sum(1 for item in self.dropped if item.kind is kind)
            by_kind[kind.value] = {
                "found": found,
                "released": released,
                "kept": found - released - dropped,
            }
        return {
            "checker": CHECKER,
            "items": by_kind,
            "released": [item.to_json() for item in self.released],
        }


def check_loss(
    inputs: Sequence[InputText],
    output: str,
    must_keep: Collection[MustKeep],
    may_remove: Collection[MayRemove] = (),
) -> LossReport:
    """Check ``output`` against ``inputs`` under the declared boundary."""
    kinds = tuple(kind for kind in MustKeep if kind in must_keep)
    reading = read_output(output)
    items: list[MustKeepItem] = []
    released: list[MustKeepItem] = []
    dropped: list[MustKeepItem] = []
    for source in inputs:
        found = must_keep_items(
            source.span_id, source.text, kinds, may_remove, low_weight=source.low_weight
        )
        for item in found:
            items.append(item)
            if item.released_by is not None:
                released.append(item)
            elif not item.kept_in(reading):
                dropped.append(item)
    return LossReport(kinds, tuple(items), tuple(released), tuple(dropped))
