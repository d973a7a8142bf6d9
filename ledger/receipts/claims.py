"""The claim as the ledger keeps it: one model from a commit request to the event and back.

The API maps a request's claim to a :class:`~ledger.gate.ClaimDraft` (what the gate judges).
Judged, it becomes a :class:`ClaimRecord`: the draft with its id (derived from
:func:`claim_content`), ordinal, the sealed-pool source of each binding, its status, checks and
repairs. :meth:`ClaimRecord.to_event` is the JSON form the ``ClaimsCommitted`` and
``ClaimsRejected`` events carry (unchanged: no schema change); :meth:`ClaimRecord.from_event`
reads a stored record back (for repair).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ledger.gate import Binding, ClaimDraft, ClaimType, Role, Verdict
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_ids import claim_id_for
from ledger.registry.evidence import ResolvedSpan


def claim_content(claim: ClaimDraft, via: Sequence[str | None] = ()) -> dict[str, Any]:
    """A claim as submitted, in JSON form (what its id is derived from). A binding that came
    from a transformation's output (``via``, per binding) names it: ``transformation_id``."""
    bindings: list[dict[str, Any]] = []
    for index, b in enumerate(claim.bindings):
        binding: dict[str, Any] = {"span_id": b.span_id, "role": b.role.value, "quote": b.quote}
        through = via[index] if index < len(via) else None
        if through is not None:
            binding["transformation_id"] = through
        bindings.append(binding)
    return {
        "client_ref": claim.client_ref,
        "text": claim.text,
        "type": claim.type.value,
        "material": claim.material,
        "bindings": bindings,
    }


def _draft_from_event(claim: Mapping[str, Any]) -> ClaimDraft:
    """Rebuild a draft from its JSON form (schema already validated)."""
    return ClaimDraft(
        text=claim["text"],
        type=ClaimType(claim.get("type", "factual")),
        material=bool(claim.get("material", True)),
        bindings=tuple(
            Binding(b["span_id"], Role(b.get("role", "primary_support")), b.get("quote"))
            for b in claim.get("bindings", [])
        ),
        client_ref=claim.get("client_ref"),
    )


@dataclass(frozen=True)
class ClaimRecord:
    """A judged claim: its draft, where it stands in its receipt, and the gate's verdict.

    ``sources`` holds, per binding, the ``source_id``, ``version`` and ``version_hash`` of the
    span in the receipt's sealed pool (all None for a span outside it); ``via``, per binding,
    the transformation whose input it is, or None (empty: no binding came from one).
    """

    claim_id: str
    ordinal: int
    draft: ClaimDraft
    sources: tuple[Mapping[str, Any], ...]
    status: str
    checks: tuple[Mapping[str, Any], ...]
    repairs: tuple[Mapping[str, Any], ...] = ()
    via: tuple[str | None, ...] = ()

    @classmethod
    def judged(
        cls,
        receipt: Receipt,
        ordinal: int,
        draft: ClaimDraft,
        verdict: Verdict,
        via: tuple[str | None, ...] = (),
    ) -> ClaimRecord:
        """The record of ``draft`` judged as the ``ordinal``-th claim of ``receipt``."""
        via = via if any(v is not None for v in via) else ()
        claim_id = claim_id_for(receipt.receipt_id, ordinal, claim_content(draft, via))
        record = cls(claim_id, ordinal, draft, (), "", (), via=via)
        return record.rebound(receipt, draft, verdict)

    @property
    def transformed(self) -> bool:
        """Whether a binding of this claim came from a transformation's output."""
        return bool(self.via)

    def rebound(self, receipt: Receipt, draft: ClaimDraft, verdict: Verdict) -> ClaimRecord:
        """This claim (same id) with ``draft``'s bindings and their verdict (a repair)."""
        return replace(
            self,
            draft=draft,
            sources=tuple(
                _binding_source(receipt.pool_index.get(b.span_id)) for b in draft.bindings
            ),
            status=verdict.status.value,
            checks=tuple(check.to_json() for check in verdict.checks),
        )

    def to_event(self) -> dict[str, Any]:
        """The claim's JSON form, as the events carry it."""
        content = claim_content(self.draft, self.via)
        record = {
            "claim_id": self.claim_id,
            "ordinal": self.ordinal,
            **content,
            "bindings": [
                {**binding, **source}
                for binding, source in zip(content["bindings"], self.sources, strict=True)
            ],
            "status": self.status,
            "checks": [dict(check) for check in self.checks],
        }
        if self.repairs:
            record["repairs"] = [dict(repair) for repair in self.repairs]
        return record

    @classmethod
    def from_event(cls, record: Mapping[str, Any]) -> ClaimRecord:
        """A claim read back from its JSON form (schema already validated)."""
        return cls(
            claim_id=record["claim_id"],
            ordinal=record["ordinal"],
            draft=_draft_from_event(record),
            sources=tuple(
                {key: b.get(key) for key in ("source_id", "version", "version_hash")}
                for b in record.get("bindings", [])
            ),
            status=record["status"],
            checks=tuple(record.get("checks", [])),
            repairs=tuple(record.get("repairs", [])),
            via=_via(record.get("bindings", [])),
        )


def _via(bindings: Sequence[Mapping[str, Any]]) -> tuple[str | None, ...]:
    via = tuple(b.get("transformation_id") for b in bindings)
    return via if any(v is not None for v in via) else ()


def pool_entry(span: ResolvedSpan) -> dict[str, Any]:
    """What a sealed pool records of one span."""
    return {
        "span_id": span.span_id,
        "source_id": span.source_id,
        "version": span.version,
        "version_hash": span.version_hash,
        "text_sha256": span.text_sha256,
    }


def _binding_source(entry: dict[str, Any] | None) -> dict[str, Any]:
    if entry is None:
        return {"source_id": None, "version": None, "version_hash": None}
    return {
        "source_id": entry["source_id"],
        "version": entry["version"],
        "version_hash": entry["version_hash"],
    }
