"""Provenance exports: a receipt's or a source's history as W3C PROV-JSON, or as the signed
events it was built from (``GET /v1/receipts/{id}/provenance``,
``GET /v1/sources/{id}/provenance`` and the console's downloads).

The documents are built from the verified events (``projections/provenance.py``); the
receipts read model only names which receipts stood on a source, and is brought up to the
end of the log first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledger.eventlog.application import Ledger
from projections.provenance import jsonl, receipt_provenance, source_provenance
from projections.service import ReadSide


@dataclass(frozen=True)
class ProvenanceExport:
    """A PROV-JSON document and the signed events it was built from, in its order."""

    document: dict[str, Any]
    states: list[bytes]

    @property
    def lines(self) -> str:
        """The signed events, one stored form per line (JSON lines)."""
        return jsonl(self.states)


class ProvenanceReadDesk:
    """Exports the provenance of receipts and sources."""

    def __init__(self, ledger: Ledger, read_side: ReadSide) -> None:
        self.ledger = ledger
        self.read_side = read_side

    def receipt(self, receipt_id: str) -> ProvenanceExport:
        """The receipt's claims, spans, source versions, activities and agents."""
        return ProvenanceExport(*receipt_provenance(self.ledger, receipt_id))

    def source(self, source_id: str) -> ProvenanceExport:
        """The source's versions, supersessions, and the claims that stood on it."""
        self.read_side.receipts.catch_up()
        return ProvenanceExport(*source_provenance(self.ledger, self.read_side.db.sync, source_id))
