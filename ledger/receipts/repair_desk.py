"""Re-attribution of committed or quarantined claims: ``POST .../claims/{id}/repair``.

Candidates come only from the receipt's sealed pool (see :mod:`ledger.attribution.repair`);
the claim's text never changes. A success is a signed ``claim_repaired`` event with the
previous and new binding, the ranker's name and version, the winning rank and score and every
attempt; a failure is a signed ``repair_failed`` event that flags the claim unverified.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ledger.access.attributes import Pins
from ledger.attribution.ranker import Bm25Ranker
from ledger.attribution.repair import RepairOutcome, find_repair
from ledger.errors import ConcurrentWrite, Conflict, NotFound
from ledger.gate import ClaimDraft, GateConfig, SpanFacts, judge
from ledger.receipts.claims import ClaimRecord
from ledger.receipts.commit_checks import check_open
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.repair_records import binding_to_repair, repair_record

ATTEMPTS = 10


class RepairDesk:
    """Runs repairs against the gate and records them."""

    def __init__(self, receipts: ReceiptDesk, ranker: Bm25Ranker | None = None) -> None:
        self.receipts = receipts
        self.ranker = ranker or Bm25Ranker()

    @property
    def config(self) -> GateConfig:
        """The gate configuration repairs are judged with."""
        return self.receipts.config

    def attempt(
        self, receipt: Receipt, draft: ClaimDraft, index: int, pool: dict[str, SpanFacts]
    ) -> tuple[RepairOutcome, ClaimDraft | None]:
        """Try to rebind ``draft``'s binding ``index``; returns the outcome and the new draft."""
        outcome = find_repair(draft, index, pool, self.ranker, self.config)
        if outcome.new_binding is None:
            return outcome, None
        bindings = list(draft.bindings)
        bindings[index] = outcome.new_binding
        return outcome, replace(draft, bindings=tuple(bindings))

    def repair(
        self, receipt_id: str, claim_id: str, actor: str, pins: Pins | None = None
    ) -> dict[str, Any]:
        """Repair one claim of a receipt; returns the repair record and the claim after it.
        A receipt a key with ``pins`` may not read is refused as a missing one; an expired
        receipt is 409 ``receipt-expired`` (as a commit to it is); a claim citing a
        transformation's output is 409 (its bindings are the transformation's inputs)."""
        for _ in range(ATTEMPTS):
            receipt = self.receipts.read(receipt_id, pins)
            claim = next(
                (c for c in receipt.claims + receipt.rejected if c["claim_id"] == claim_id), None
            )
            if claim is None:
                raise NotFound(f"receipt {receipt_id} has no claim {claim_id!r}")
            if claim["status"] == "verified":
                raise Conflict(f"claim {claim_id} is verified; there is nothing to repair")
            if ClaimRecord.from_event(claim).transformed:
                raise Conflict(
                    f"claim {claim_id} cites a transformation's output: its bindings are the "
                    "transformation's inputs, and are not re-attributed"
                )
            check_open(receipt)
            index = binding_to_repair(claim)
            pool = self.receipts.pool_facts(receipt)
            stored = ClaimRecord.from_event(claim)
            outcome, repaired = self.attempt(receipt, stored.draft, index, pool)
            record = repair_record(outcome, index, claim["bindings"][index])
            if repaired is not None and outcome.new_binding is not None:
                verdict = judge(repaired, pool, self.config)
                rebound = stored.rebound(receipt, repaired, verdict)
                new_binding = rebound.to_event()["bindings"][index]
                if new_binding["source_id"] is None:  # never: candidates come from the pool
                    raise AssertionError("a repair bound a span outside the sealed pool")
                record["new_binding"] = new_binding
                receipt.trigger_event(
                    receipt.ClaimRepaired,
                    claim_id=claim_id,
                    binding_index=index,
                    previous_binding=record["previous_binding"],
                    new_binding=new_binding,
                    ranker=outcome.ranker,
                    ranker_version=outcome.ranker_version,
                    rank=outcome.rank,
                    score=outcome.score,
                    attempts=record["attempts"],
                    status=verdict.status.value,
                    checks=[check.to_json() for check in verdict.checks],
                    actor=actor,
                )
            else:
                receipt.trigger_event(
                    receipt.RepairFailed,
                    claim_id=claim_id,
                    binding_index=index,
                    ranker=outcome.ranker,
                    ranker_version=outcome.ranker_version,
                    attempts=record["attempts"],
                    actor=actor,
                )
            try:
                self.receipts.ledger.commit(receipt)
            except Conflict:
                continue
            after = next(c for c in receipt.claims + receipt.rejected if c["claim_id"] == claim_id)
            return {"receipt_id": receipt_id, "repair": record, "claim": after}
        raise ConcurrentWrite(f"receipt {receipt_id} is being written by others; retry")
