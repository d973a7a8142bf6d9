"""The receipt desk: open a receipt (sealing its pool) and commit claims through the gate."""

from __future__ import annotations

import hmac
import random
import time
from dataclasses import replace
from itertools import takewhile
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from ledger import tracing
from ledger.access.attributes import Pins
from ledger.access.policy_desk import PolicyDesk
from ledger.attribution.ranker import Bm25Ranker
from ledger.attribution.repair import find_repair
from ledger.errors import ConcurrentWrite, Conflict, ConflictingRequest, InvalidInput, NotFound
from ledger.eventlog.application import project
from ledger.eventlog.clock import format_time
from ledger.eventlog.snapshots import Snapshots
from ledger.gate import GateConfig, Outcome, SpanFacts, Status, judge
from ledger.receipts.claims import ClaimRecord
from ledger.receipts.commit_checks import check_in_pool, check_open, refuse_unseen, span_facts
from ledger.receipts.component_desk import ComponentDesk
from ledger.receipts.entitlement import pins_may_read_receipt
from ledger.receipts.expiry_desk import ExpiryDesk
from ledger.receipts.open_keys import OpenKey, open_key_aggregate_id
from ledger.receipts.opening import PoolSealer, opening_fingerprint, request_fingerprint
from ledger.receipts.prepared import OpeningParts, prepare_receipt
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_ids import receipt_aggregate_id, receipt_id_for_inference
from ledger.receipts.render_check import check_render
from ledger.receipts.repair_records import binding_to_repair, repair_record
from ledger.receipts.transformations import expand_transformations
from ledger.receipts.validation import (
    CommitRequest,
    CommitResult,
    Mode,
    ReceiptRequest,
    check_commit_request,
    check_receipt_request,
)
from ledger.registry.evidence import SpanResolver

if TYPE_CHECKING:
    from ledger.eventlog.application import Ledger
    from ledger.memory.memory_desk import MemoryDesk

__all__ = [
    "CommitRequest",
    "CommitResult",
    "Mode",
    "ReceiptDesk",
    "ReceiptRequest",
    "request_fingerprint",
]

COMMIT_ATTEMPTS = 10
RECEIPT_SNAPSHOTS = 256
"""Receipts kept folded in memory per process (each read still asks the store for newer
events)."""


class ReceiptDesk:
    """Opens receipts and commits claims (``ledger.receipts.receipt``)."""

    def __init__(
        self,
        ledger: Ledger,
        resolver: SpanResolver,
        config: GateConfig,
        expiry: ExpiryDesk,
        policies: PolicyDesk,
        components: ComponentDesk,
        memory: MemoryDesk | None = None,
    ) -> None:
        self.ledger = ledger
        self.memory = memory
        """Memory items a receipt's pool may seal (None: every memory id is unknown)."""
        self.expiry = expiry
        self.resolver = resolver
        self.sealer = PoolSealer(resolver)
        self.config = config
        self.ranker = Bm25Ranker()
        self.snapshots: Snapshots[Receipt] = Snapshots(ledger, RECEIPT_SNAPSHOTS)
        self.policies = policies
        self.components = components
        self.opening = OpeningParts(ledger, resolver, policies, components, self.sealer, memory)

    # Opening --------------------------------------------------------------------------------

    def open(
        self,
        request: ReceiptRequest,
        actor: str,
        idempotency_key: str | None = None,
        pins: Pins | None = None,
    ) -> tuple[Receipt, bool]:
        """Gate the principal's entitlement, seal the evidence pool and open a new receipt;
        returns (receipt, created).

        Every evidence span must exist, be citable at ``as_of`` and be visible to the
        principal (bounded by ``pins``, the caller's API key's); otherwise the error names each
        bad id. Each call opens a new receipt, named by ``actor`` and the request's
        ``inference_id`` (made here when the request has none). A known ``inference_id`` or
        ``idempotency_key`` of ``actor`` answers its receipt when the request is the same
        one, and is refused (:class:`ConflictingRequest`) when it is not.
        """
        errors = check_receipt_request(request)
        if errors:
            raise InvalidInput.many(errors)
        fingerprint = opening_fingerprint(request)
        for _ in range(2):  # a second pass only after losing a race to the same key or id
            found = self._known_opening(request, actor, idempotency_key, fingerprint)
            if found is not None:
                return found, False
            receipt, key = prepare_receipt(
                self.opening, request, actor, idempotency_key, fingerprint, pins
            )
            try:
                self.ledger.commit(receipt, *([] if key is None else [key]))
            except Conflict:
                continue
            # A retirement or declaration committed since _prepare checked: the expiry
            # process may have looked before this receipt was in its read model.
            for reason, cause, detail in self.components.changes(receipt.context):
                self.expiry.expire(receipt.receipt_id, reason, cause, detail)
            # Read back: the opening time is the one the store recorded and signed.
            return self.get(receipt.receipt_id), True
        raise Conflict("this receipt is being opened by another request; retry")

    def _known_opening(
        self, request: ReceiptRequest, actor: str, key: str | None, fingerprint: str
    ) -> Receipt | None:
        """The receipt this request already opened (same key or inference id, same body)."""
        if key is not None:
            record = self._open_key(actor, key)
            if record is not None:
                if not hmac.compare_digest(record.request_fingerprint, fingerprint):
                    raise ConflictingRequest(
                        "Idempotency-Key",
                        "same-request",
                        "this Idempotency-Key opened a receipt for a different request",
                    )
                return self.get(record.receipt_id)
        if request.inference_id is None:
            return None
        existing = self.find(receipt_id_for_inference(actor, request.inference_id))
        if existing is None:
            return None
        if not hmac.compare_digest(existing.request_fingerprint or "", fingerprint):
            raise ConflictingRequest(
                "inference_id",
                "unique-per-caller",
                f"inference_id {request.inference_id!r} already names a receipt of this "
                f"caller ({existing.receipt_id}) opened for a different request",
            )
        return existing

    def _open_key(self, actor: str, key: str) -> OpenKey | None:
        """The verified record of ``key`` (read through the signed, checked event store)."""
        try:
            record: OpenKey = self.ledger.repository.get(open_key_aggregate_id(actor, key))
        except AggregateNotFoundError:
            return None
        return record

    # Reading --------------------------------------------------------------------------------

    def find(self, receipt_id: str) -> Receipt | None:
        """The receipt, or None."""
        try:
            return self.snapshots.get(receipt_aggregate_id(receipt_id))
        except AggregateNotFoundError:
            return None

    def get_as_of(self, receipt_id: str, known_at: str | None) -> Receipt:
        """The receipt as the ledger knew it at ``known_at`` (ledger time), or now."""
        if known_at is None:
            return self.get(receipt_id)
        known = list(
            takewhile(
                lambda event: format_time(event.timestamp) <= known_at,  # type: ignore[attr-defined]
                self.ledger.events.get(receipt_aggregate_id(receipt_id)),
            )
        )
        if not known:
            raise self._missing(receipt_id, known_at)
        receipt: Receipt = project(None, known)
        return receipt

    def get(self, receipt_id: str) -> Receipt:
        """The receipt, or NotFound."""
        receipt = self.find(receipt_id)
        if receipt is None:
            raise NotFound(f"no receipt {receipt_id!r}")
        return receipt

    def read(self, receipt_id: str, pins: Pins | None, known_at: str | None = None) -> Receipt:
        """The receipt (as known at ``known_at``) for a key with ``pins``: one opened for a
        principal the key could not have claimed is refused as a missing one is, since its
        claims quote its evidence (``ledger/receipts/sight.py``)."""
        try:
            receipt = self.get_as_of(receipt_id, known_at)
        except NotFound:
            raise self._missing(receipt_id, known_at) from None
        if not pins_may_read_receipt(receipt.context, pins):
            raise self._missing(receipt_id, known_at)
        return receipt

    def read_claim(
        self, receipt_id: str, claim_id: str, pins: Pins | None, known_at: str | None = None
    ) -> tuple[Receipt, dict[str, Any], bool]:
        """A claim of ``receipt_id`` (as known at ``known_at``) with its receipt and whether
        it is committed, for a key with ``pins``: a claim of a receipt the key may not read
        is refused as a missing claim is."""
        try:
            receipt = self.read(receipt_id, pins, known_at)
        except NotFound:  # what an unknown claim id gets
            raise NotFound(f"no claim {claim_id!r}") from None
        when = "" if known_at is None else f" at {known_at}"
        for committed, claims in ((True, receipt.claims), (False, receipt.rejected)):
            claim = next((c for c in claims if c["claim_id"] == claim_id), None)
            if claim is not None:
                return receipt, claim, committed
        raise NotFound(f"no claim {claim_id!r}{when}")

    def access_record(self, receipt_id: str) -> dict[str, Any]:
        """The entitlement gate's protected record of ``receipt_id`` (its verified events):
        NotFound for a receipt the ledger does not hold, or for one with no record (nothing
        was decided)."""
        record = self.get(receipt_id).access_record
        if record is None:
            raise NotFound(f"receipt {receipt_id!r} has no access record (nothing was decided)")
        return record

    @staticmethod
    def _missing(receipt_id: str, known_at: str | None) -> NotFound:
        if known_at is None:
            return NotFound(f"no receipt {receipt_id!r}")
        return NotFound(f"receipt {receipt_id!r} did not exist at {known_at}")

    # Committing -----------------------------------------------------------------------------

    def commit(
        self,
        receipt_id: str,
        request: CommitRequest,
        actor: str,
        idempotency_key: str | None,
        pins: Pins | None = None,
    ) -> CommitResult:
        """Run every claim through the gate and record the outcome.

        Atomic mode commits all claims in one event or none (a rejection is still recorded,
        in its own event). Independent mode commits verified and unverified claims and
        quarantines rejected ones. Concurrent commits to one receipt are serialised by the
        aggregate's version: a loser re-reads the receipt and runs again.

        Before any check reads a span's text, and with nothing written: a receipt a key with
        ``pins`` may not read is refused as a missing one; an expired receipt is 409
        ``receipt-expired``; a binding to a transformation the receipt has not recorded is 422
        (``known-transformation``); a binding outside the sealed pool is 422 (``in-pool``); a
        binding to a pool span the receipt's principal may not see now, under the policy in
        force, is 403 ``entitlement-denied`` naming only the binding and the safe code. A
        binding to a transformation is judged as its input spans
        (``receipts/transformations.py``).
        """
        check_commit_request(request)
        for attempt in range(COMMIT_ATTEMPTS):
            receipt = self.read(receipt_id, pins)
            if idempotency_key is not None and idempotency_key in receipt.idempotency:
                return self._replay(receipt.idempotency[idempotency_key], request)
            check_open(receipt)
            expanded = expand_transformations(receipt.transformation_index, request)
            check_in_pool(receipt, expanded)
            result, accepted, rejected, render = self._judge(receipt, expanded)
            idempotency = None
            if idempotency_key is not None:
                idempotency = {
                    "key": idempotency_key,
                    "fingerprint": request.fingerprint,
                    "accepted": result.accepted,
                    "body": result.body,
                }
            receipt.commit(
                request.mode,
                accepted,
                rejected,
                request.rendered_answer,
                None if render is None else render,
                idempotency,
                actor,
            )
            if request.usage is not None:
                receipt.record_usage(request.usage.to_json(), None, actor)
            try:
                recordings = self.ledger.commit(receipt)
                self.snapshots.keep(receipt)
            except Conflict:
                # Another commit to this receipt won the race: back off briefly, re-read, rerun.
                time.sleep(random.uniform(0, 0.002 * (attempt + 1)))  # noqa: S311 - jitter only
                continue
            return CommitResult(
                result.accepted,
                result.body,
                position=recordings[-1].notification.id,
            )
        raise ConcurrentWrite(f"receipt {receipt_id} is being written by others; retry")

    def _replay(self, record: dict[str, Any], request: CommitRequest) -> CommitResult:
        if record["fingerprint"] != request.fingerprint:
            raise InvalidInput(
                "Idempotency-Key",
                "same-request",
                "this Idempotency-Key was used for a different request",
            )
        return CommitResult(record["accepted"], record["body"], replayed=True)

    def _judge(
        self, receipt: Receipt, request: CommitRequest
    ) -> tuple[CommitResult, list[dict[str, Any]], list[dict[str, Any]], dict[str, Any] | None]:
        span_ids = {b.span_id for claim in request.claims for b in claim.bindings}
        facts, unseen = span_facts(
            self.resolver, self.policies.in_force().policy, receipt, span_ids
        )
        refuse_unseen(request, unseen)
        ordinal = receipt.next_ordinal
        judged: list[dict[str, Any]] = []
        pool: dict[str, SpanFacts] | None = None
        for index, claim in enumerate(request.claims):
            with tracing.span("gate.judge", {"claim.ordinal": ordinal}) as span:
                verdict = judge(claim, facts, self.config)
                span.set("gate.status", verdict.status.value)
            via = request.via[index] if request.via else ()
            record = ClaimRecord.judged(receipt, ordinal, claim, verdict, via)
            # A claim bound to a transformation is judged on its inputs: not re-attributed.
            repairable = claim.bindings and not record.transformed
            if request.repair and verdict.status != Status.VERIFIED and repairable:
                pool = pool if pool is not None else self.pool_facts(receipt)
                record = self._repair(receipt, record, pool)
            judged.append(record.to_event())
            ordinal += 1
        accepted = [c for c in judged if c["status"] != Status.REJECTED.value]
        rejected = [c for c in judged if c["status"] == Status.REJECTED.value]
        render = None
        if request.rendered_answer is not None:
            bound = {b["span_id"] for c in receipt.claims + accepted for b in c["bindings"]}
            render = check_render(request.rendered_answer, bound).to_json()
        render_failed = render is not None and render["outcome"] == Outcome.FAIL.value
        if request.mode == Mode.ATOMIC.value and (rejected or render_failed):
            rejected, accepted = judged, []
        body = {
            "receipt_id": receipt.receipt_id,
            "mode": request.mode,
            "committed": accepted,
            # independent: the claims the gate rejected are set aside for audit (quarantined)
            # and named as rejected; atomic: every claim of a refused commit is rejected
            "quarantined": rejected if request.mode == Mode.INDEPENDENT.value else [],
            "rejected": rejected,
            "render_check": render,
        }
        return CommitResult(bool(accepted), body), accepted, rejected, render

    def _repair(
        self, receipt: Receipt, record: ClaimRecord, pool: dict[str, SpanFacts]
    ) -> ClaimRecord:
        """Commit-time re-attribution (``repair: true``): on success the claim commits with
        the new binding; either way the attempt is recorded in the claim's ``repairs``."""
        claim, current = record.draft, record.to_event()
        index = binding_to_repair(current)
        outcome = find_repair(claim, index, pool, self.ranker, self.config)
        repair = repair_record(outcome, index, current["bindings"][index])
        if outcome.new_binding is not None:
            rebound = list(claim.bindings)
            rebound[index] = outcome.new_binding
            draft = replace(claim, bindings=tuple(rebound))
            record = record.rebound(receipt, draft, judge(draft, pool, self.config))
            repair["new_binding"] = record.to_event()["bindings"][index]
        elif record.status == Status.VERIFIED.value:  # never: only failures are repaired
            record = replace(record, status=Status.UNVERIFIED.value)
        return replace(record, repairs=(repair,))

    def pool_facts(self, receipt: Receipt) -> dict[str, SpanFacts]:
        """Facts for every span of the receipt's sealed pool that its principal may still
        see under the policy in force (the repair candidates)."""
        facts, unseen = span_facts(
            self.resolver, self.policies.in_force().policy, receipt, set(receipt.pool_index)
        )
        return {span_id: f for span_id, f in facts.items() if span_id not in unseen}
