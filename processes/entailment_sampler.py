"""Background entailment sampling of committed claims (never in the request path).

Follows ``claims_committed`` events; for each claim picked by the sampling rate (a
deterministic function of the claim id), asks the configured verifier whether the bound
spans support the claim and records the verdict as a signed ``entailment_judged`` event.
Verdicts ``no`` and ``partial`` appear in the review queue (``GET /v1/review``). A verdict is
recorded once per claim and verifier model, so redelivery after a restart repeats nothing.
"""

from __future__ import annotations

import threading
from uuid import UUID

import structlog
from eventsourcing.application import AggregateNotFoundError

from ledger.errors import Conflict, EntailmentError
from ledger.receipts.entailment import EntailmentVerifier, sampled
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_ids import receipt_aggregate_id
from projections.service import ReadSide
from projections.tracking import advance
from projections.tracking import position as tracking_position

log = structlog.get_logger("provledger.entailment")
NAME = "entailment"
ACTOR = "process:entailment"
SAMPLE_BATCH = 50
"""Commits read per query."""


class EntailmentSampler:
    """Runs the verifier over sampled claims; one instance per process."""

    def __init__(self, read_side: ReadSide, verifier: EntailmentVerifier, rate: float) -> None:
        self.read_side = read_side
        self.ledger = read_side.ledger
        self.verifier = verifier
        self.rate = rate
        self._lock = threading.Lock()
        self.judged = 0

    def position(self) -> int:
        """The last notification id handled."""
        return tracking_position(self.read_side.db.sync, NAME)

    def run_once(self) -> int:
        """Handle the commits written before this pass; returns the position."""
        if self.rate <= 0:
            return self.position()
        with self._lock:
            end = self.ledger.last_position()  # this pass handles commits up to here
            while True:
                start = self.position()
                if end <= start:
                    return start
                batch = self.ledger.recorder.select_notifications(
                    start=start,
                    limit=SAMPLE_BATCH,
                    stop=end,
                    topics=[Receipt.ClaimsCommitted.TOPIC],
                    inclusive_of_start=False,
                )
                for notification in batch:
                    event = self.ledger.verified_event(notification)  # judged and signed
                    receipt_id = self._receipt_id(str(notification.originator_id))
                    for claim in event.claims:
                        if claim["bindings"] and sampled(claim["claim_id"], self.rate):
                            self._judge(receipt_id, claim)
                    self._save(start, notification.id)
                    start = notification.id
                if len(batch) < SAMPLE_BATCH:
                    # Every commit up to ``end`` is handled: move past the other events too.
                    self._save(start, end)
                    return end  # later commits are the next pass's

    def _receipt_id(self, aggregate_id: str) -> str:
        receipt: Receipt = self.ledger.repository.get(UUID(aggregate_id))
        return receipt.receipt_id

    def _judge(self, receipt_id: str, claim: dict[str, object]) -> None:
        bindings = claim["bindings"]
        assert isinstance(bindings, list)
        resolved = self.read_side.span_resolver.resolve(b["span_id"] for b in bindings)
        texts = []
        for binding in bindings:
            for span in resolved.get(binding["span_id"], ()):
                if span.version == binding["version"]:
                    texts.append(span.envelope or span.text)
        if not texts:
            return
        try:
            result = self.verifier.check(str(claim["text"]), "\n".join(texts))
        except EntailmentError as exc:
            log.warning("entailment_failed", claim_id=claim["claim_id"], error=str(exc))
            return
        for _ in range(10):
            try:
                receipt: Receipt = self.ledger.repository.get(receipt_aggregate_id(receipt_id))
            except AggregateNotFoundError:
                return
            recorded = receipt.judge_entailment(
                str(claim["claim_id"]),
                result.verdict.value,
                result.verifier,
                result.model,
                result.raw,
                ACTOR,
            )
            if not recorded:
                return
            try:
                self.ledger.commit(receipt)
            except Conflict:
                continue
            self.judged += 1
            return

    def _save(self, start: int, end: int) -> None:
        advance(self.read_side.db.sync, NAME, end)
