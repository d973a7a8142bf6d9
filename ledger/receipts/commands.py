"""Commands on receipts: open one (sealing its pool) and commit claims through the gate."""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from itertools import takewhile
from typing import TYPE_CHECKING, Any

from eventsourcing.application import AggregateNotFoundError

from ledger.attribution.ranker import Bm25Ranker
from ledger.attribution.repair import find_repair
from ledger.crypto.canonical import canonical_json
from ledger.errors import Conflict, InvalidInput, LedgerIntegrityError, NotFound
from ledger.eventlog.application import project
from ledger.eventlog.clock import format_time, ledger_time
from ledger.eventlog.snapshots import Snapshots
from ledger.gate import (
    GateConfig,
    Outcome,
    SpanFacts,
    Status,
    judge,
)
from ledger.receipts.claims import ClaimRecord, pool_entry
from ledger.receipts.expiry import ExpiryDesk
from ledger.receipts.receipt import Receipt, receipt_aggregate_id, receipt_id_for
from ledger.receipts.receipt import opening_content as _opening
from ledger.receipts.render_check import check_render
from ledger.receipts.repair_records import binding_to_repair, repair_record
from ledger.receipts.validation import (
    CommitRequest,
    Mode,
    ReceiptRequest,
    check_commit_request,
    check_receipt_request,
)
from ledger.registry.evidence import ResolvedSpan, SpanResolver, pick_version
from ledger.retrieval.desk import retrieval_for_receipt

if TYPE_CHECKING:
    from ledger.eventlog.application import Ledger

__all__ = ["CommitRequest", "CommitResult", "Mode", "ReceiptDesk", "ReceiptRequest"]

COMMIT_ATTEMPTS = 10
RECEIPT_SNAPSHOTS = 256
"""Receipts kept folded in memory per process (each read still asks the store for newer
events)."""


@dataclass(frozen=True)
class CommitResult:
    """The answer to a commit, replayed on retries: whether any claim was committed (in atomic
    mode: all of them), and the body listing committed, quarantined and rejected claims."""

    accepted: bool
    body: dict[str, Any]
    replayed: bool = False
    position: int = 0


def request_fingerprint(payload: Any) -> str:
    """SHA-256 of the RFC 8785 form of a request body (what an idempotency key is bound to)."""
    return "sha256:" + hashlib.sha256(canonical_json(payload)).hexdigest()


def _time(field_name: str, moment: datetime | None, default: datetime | None) -> str | None:
    if moment is None:
        return None if default is None else format_time(default)
    return ledger_time(field_name, moment)


class ReceiptDesk:
    """Opens receipts and commits claims (``ledger.receipts.receipt``)."""

    def __init__(
        self, ledger: Ledger, resolver: SpanResolver, config: GateConfig, expiry: ExpiryDesk
    ) -> None:
        self.ledger = ledger
        self.expiry = expiry
        self.resolver = resolver
        self.config = config
        self.ranker = Bm25Ranker()
        self.snapshots: Snapshots[Receipt] = Snapshots(ledger, RECEIPT_SNAPSHOTS)

    # Opening --------------------------------------------------------------------------------

    def open(self, request: ReceiptRequest, actor: str) -> tuple[Receipt, bool]:
        """Seal the evidence pool and open the receipt; returns (receipt, created).

        Every evidence span must exist and be citable at ``as_of``; otherwise the error names
        each bad id. Opening the same content twice returns the first receipt.
        """
        errors = check_receipt_request(request)
        as_of = _time("as_of", request.as_of, datetime.now(UTC))
        assert as_of is not None
        expires_at = _time("expires_at", request.expires_at, None)
        if expires_at is not None and expires_at <= as_of:
            errors.append(
                {
                    "field": "expires_at",
                    "rule": "after-as-of",
                    "message": "expires_at must be after as_of",
                }
            )
        retrieval = None
        if request.retrieval_id is not None and not errors:
            retrieval = retrieval_for_receipt(self.ledger, request.retrieval_id, actor)
            if request.as_of is not None and as_of != retrieval.as_of:
                errors.append(
                    {
                        "field": "as_of",
                        "rule": "retrieval-as-of",
                        "message": f"as_of must be the retrieval's ({retrieval.as_of}) or absent",
                    }
                )
            as_of = retrieval.as_of
            if expires_at is not None and expires_at <= as_of:
                errors.append(
                    {
                        "field": "expires_at",
                        "rule": "after-as-of",
                        "message": "expires_at must be after the retrieval's as_of",
                    }
                )
            pool = self._seal_retrieved(retrieval.results, as_of, errors)
        else:
            pool = self._seal(request.evidence, as_of, errors)
        if errors:
            raise InvalidInput.many(errors)
        if self.expiry.is_retired(request.policy_version):
            raise Conflict(
                f"policy {request.policy_version!r} is retired; no receipt opens under it"
            )
        context = {
            "request": request.request,
            "actor": request.actor,
            "purpose": request.purpose,
            "policy_version": request.policy_version,
            "route": request.route,
            "model": request.model,
            "tools": request.tools,
            "budget": request.budget,
        }
        if retrieval is not None:
            # In the context, not a new event field: receipts opened from evidence keep
            # exactly the content (and so the id) they had before.
            context["retrieval"] = retrieval.summary()
        receipt_id = receipt_id_for(_opening(context, pool, request.excluded, as_of, expires_at))
        existing = self.find(receipt_id)
        if existing is not None:
            return existing, False
        receipt = Receipt.open(context, pool, request.excluded, as_of, expires_at, actor)
        try:
            self.ledger.commit(receipt)
        except Conflict:
            found = self.find(receipt_id)
            if found is None:
                raise
            return found, False
        return receipt, True

    def _seal_retrieved(
        self, results: list[dict[str, Any]], as_of: str, errors: list[dict[str, str]]
    ) -> list[dict[str, Any]]:
        """Seal exactly the source versions a retrieval served (not whichever is in force
        now): each must still be citable at the retrieval's ``as_of``."""
        resolved = self.resolver.resolve([r["span_id"] for r in results])
        versions = {r["span_id"]: r["version"] for r in results}
        return self._seal(
            [r["span_id"] for r in results],
            as_of,
            errors,
            field="retrieval_id",
            resolved={
                span_id: [c for c in candidates if c.version == versions[span_id]]
                for span_id, candidates in resolved.items()
            },
            expected={r["span_id"]: r["text_sha256"] for r in results},
        )

    def _seal(
        self,
        span_ids: list[str],
        as_of: str,
        errors: list[dict[str, str]],
        field: str = "evidence",
        resolved: Mapping[str, Sequence[ResolvedSpan]] | None = None,
        expected: Mapping[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        if resolved is None:
            resolved = self.resolver.resolve(span_ids)
        pool: list[dict[str, Any]] = []
        for index, span_id in enumerate(span_ids):
            candidates = resolved.get(span_id)
            problem = None
            if not candidates:
                problem = ("exists", f"span {span_id} does not exist")
            else:
                span = pick_version(candidates, as_of)
                if expected is not None and span.text_sha256 != expected[span_id]:
                    raise LedgerIntegrityError(
                        "retrieval_mismatch",
                        f"span {span_id} of {span.source_id} version {span.version} does not "
                        "hash to the text its retrieval recorded",
                        {"span_id": span_id},
                    )
                if span.withdrawn_at is not None:
                    problem = ("citable", f"span {span_id}: source {span.source_id} is withdrawn")
                elif not span.in_force_at(as_of):
                    problem = (
                        "citable",
                        f"span {span_id}: version {span.version} of {span.source_id} was not in "
                        f"force at {as_of} (effective {span.effective_from} to "
                        f"{span.effective_to or 'now'})",
                    )
                else:
                    pool.append(pool_entry(span))
            if problem is not None:
                errors.append(
                    {"field": f"{field}[{index}]", "rule": problem[0], "message": problem[1]}
                )
        return pool

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
            raise NotFound(f"receipt {receipt_id!r} did not exist at {known_at}")
        receipt: Receipt = project(None, known)
        return receipt

    def get(self, receipt_id: str) -> Receipt:
        """The receipt, or NotFound."""
        receipt = self.find(receipt_id)
        if receipt is None:
            raise NotFound(f"no receipt {receipt_id!r}")
        return receipt

    # Committing -----------------------------------------------------------------------------

    def commit(
        self, receipt_id: str, request: CommitRequest, actor: str, idempotency_key: str | None
    ) -> CommitResult:
        """Run every claim through the gate and record the outcome.

        Atomic mode commits all claims in one event or none (a rejection is still recorded,
        in its own event). Independent mode commits verified and unverified claims and
        quarantines rejected ones. Concurrent commits to one receipt are serialised by the
        aggregate's version: a loser re-reads the receipt and runs again.
        """
        check_commit_request(request)
        for attempt in range(COMMIT_ATTEMPTS):
            receipt = self.get(receipt_id)
            if idempotency_key is not None and idempotency_key in receipt.idempotency:
                return self._replay(receipt.idempotency[idempotency_key], request)
            result, accepted, rejected, render = self._judge(receipt, request)
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
        raise Conflict(f"receipt {receipt_id} is being written by others; retry")

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
        facts = self._facts(receipt, span_ids)
        ordinal = receipt.next_ordinal
        judged: list[dict[str, Any]] = []
        pool: dict[str, SpanFacts] | None = None
        for claim in request.claims:
            verdict = judge(claim, facts, self.config)
            record = ClaimRecord.judged(receipt, ordinal, claim, verdict)
            if request.repair and verdict.status != Status.VERIFIED and claim.bindings:
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
            "quarantined": rejected if request.mode == Mode.INDEPENDENT.value else [],
            "rejected": rejected if request.mode == Mode.ATOMIC.value else [],
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
        """Facts for every span of the receipt's sealed pool (the repair candidates)."""
        return self._facts(receipt, set(receipt.pool_index))

    def _facts(self, receipt: Receipt, span_ids: set[str]) -> dict[str, SpanFacts]:
        resolved = self.resolver.resolve(span_ids) if span_ids else {}
        facts: dict[str, SpanFacts] = {}
        for span_id in span_ids:
            candidates = resolved.get(span_id, ())
            entry = receipt.pool_index.get(span_id)
            span: ResolvedSpan | None = None
            if entry is not None:
                span = next((c for c in candidates if c.version == entry["version"]), None)
            elif candidates:
                span = pick_version(candidates, receipt.as_of)
            if span is None:
                facts[span_id] = SpanFacts(span_id, False, entry is not None, False, False, "")
                continue
            intact = entry is None or span.text_sha256 == entry["text_sha256"]
            facts[span_id] = SpanFacts(
                span_id=span_id,
                exists=intact,
                in_pool=entry is not None,
                in_force=span.in_force_at(receipt.as_of),
                withdrawn=span.withdrawn_at is not None,
                text=span.text if intact else "",
                envelope=span.envelope,
                version_detail=(
                    f"{span.source_id} version {span.version}, effective "
                    f"{span.effective_from} to {span.effective_to or 'now'}"
                ),
            )
        return facts
