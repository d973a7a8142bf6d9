"""Counting a reader's engagement with a citation: the console's beacon
(docs/console.md, "Citation engagement"; the counts in ``projections/engagement.py``)."""

from __future__ import annotations

from ledger.errors import NotFound
from projections.engagement import Engagement, cites, record
from projections.service import ReadSide


class EngagementDesk:
    """Counts citations expanded in place or followed to their source."""

    def __init__(self, read_side: ReadSide) -> None:
        self.read_side = read_side

    def count(self, claim_id: str, source_id: str, kind: Engagement) -> None:
        """Count one engagement with claim ``claim_id``'s citation of ``source_id``; NotFound
        unless the claim binds a span of that source."""
        with self.read_side.db.reads.connect() as conn:
            cited = cites(conn, claim_id, source_id)
        if not cited:
            raise NotFound(f"claim {claim_id!r} cites no source {source_id!r}")
        record(self.read_side.db.sync, claim_id, source_id, kind)
