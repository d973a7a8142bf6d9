"""Context receipts: the sealed record of one inference and the claims committed under it.

A receipt is opened with the evidence pool the model was shown (sealed: span ids, their
source versions, version hashes and hashes of the verbatim span text) and then receives
claims. Every commit attempt leaves a signed event: accepted claims in ``ClaimsCommitted``,
rejected ones in ``ClaimsRejected``, so auditors can count both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eventsourcing.domain import Aggregate

from ledger.eventlog.aggregate import LedgerAggregate, fork_state
from ledger.eventlog.topics import aggregate_topic
from ledger.receipts import folds
from ledger.receipts.receipt_ids import receipt_aggregate_id, receipt_id_for_inference
from ledger.receipts.receipt_state import ReceiptState
from ledger.receipts.repair_records import stored_repair
from ledger.receipts.transformations import recorded_transformation
from ledger.receipts.upcasts import upcast_idempotency, upcast_opening


@aggregate_topic("provledger.receipt")
class Receipt(ReceiptState, LedgerAggregate):
    """One inference's receipt and its claims."""

    class Opened(Aggregate.Created, LedgerAggregate.Event):
        """The receipt was opened and its evidence pool sealed."""

        TOPIC = "provledger.receipt.opened"
        class_version = 2
        receipt_id: str
        context: dict[str, Any]
        pool: list[dict[str, Any]]
        excluded: list[dict[str, str]]
        as_of: str
        expires_at: str | None
        inference_id: str | None
        request_fingerprint: str | None

        upcast_v1_v2 = staticmethod(upcast_opening)

    class AccessDecided(LedgerAggregate.Event):
        """The protected record of the entitlement gate at opening, written in the same save
        as ``Opened``: the principal, the governing policy and, for each evidence and
        candidate span, the source, the decision and the rule that made it. The receipt
        document shows only safe exclusion codes; ``audit:read`` reads this record."""

        TOPIC = "provledger.receipt.access_decided"
        policy_version: str
        rules_from: str
        principal: dict[str, Any]
        decisions: list[dict[str, Any]]

        def apply(self, aggregate: Receipt) -> None:
            aggregate.access_record = folds.access_entry(self)

    class ClaimsCommitted(LedgerAggregate.Event):
        """Claims passed the gate (verified or unverified) and were committed together."""

        TOPIC = "provledger.receipt.claims_committed"
        class_version = 2
        mode: str
        claims: list[dict[str, Any]]
        rendered_answer: str | None
        render_check: dict[str, Any] | None
        idempotency: dict[str, Any] | None

        def apply(self, aggregate: Receipt) -> None:
            aggregate.claims.extend(self.claims)
            aggregate.remember(self.idempotency)

        upcast_v1_v2 = staticmethod(upcast_idempotency)

    class ClaimsRejected(LedgerAggregate.Event):
        """Claims the gate rejected: quarantined, never committed, kept for audit."""

        TOPIC = "provledger.receipt.claims_rejected"
        class_version = 2
        mode: str
        claims: list[dict[str, Any]]
        render_check: dict[str, Any] | None
        idempotency: dict[str, Any] | None

        def apply(self, aggregate: Receipt) -> None:
            aggregate.rejected.extend(self.claims)
            aggregate.remember(self.idempotency)

        upcast_v1_v2 = staticmethod(upcast_idempotency)

    class Expired(LedgerAggregate.Event):
        """The receipt no longer stands: its evidence changed, its time passed or its policy
        was retired. ``cause`` identifies what caused it, so each cause expires it once."""

        TOPIC = "provledger.receipt.expired"
        reason: str
        cause: str
        detail: dict[str, Any]

        def apply(self, aggregate: Receipt) -> None:
            aggregate.expiries.append(folds.expiry_entry(self))

    class OutcomeRecorded(LedgerAggregate.Event):
        """What was decided on the receipt's answer, by which reviewer, and the downstream
        actions taken on it. A later outcome amends the decision; every one stays recorded,
        and an action id names the same action in every outcome (``ledger.receipts.outcomes``)."""

        TOPIC = "provledger.receipt.outcome_recorded"
        decision: str
        reviewer: str | None
        actions: list[dict[str, str]]

        def apply(self, aggregate: Receipt) -> None:
            aggregate.outcomes.append(folds.outcome_entry(self))

    class ClaimRepaired(LedgerAggregate.Event):
        """A misattributed claim's binding was moved to a span of the sealed pool."""

        TOPIC = "provledger.receipt.claim_repaired"
        claim_id: str
        binding_index: int
        previous_binding: dict[str, Any]
        new_binding: dict[str, Any]
        ranker: str
        ranker_version: str
        rank: int | None
        score: float | None
        attempts: list[dict[str, Any]]
        status: str
        checks: list[dict[str, Any]]

        def apply(self, aggregate: Receipt) -> None:
            claim = aggregate.claim(self.claim_id)
            bindings = list(claim["bindings"])
            bindings[self.binding_index] = self.new_binding
            claim.update(bindings=bindings, status=self.status, checks=self.checks)
            claim["repairs"] = [*claim.get("repairs", []), stored_repair(self, repaired=True)]
            aggregate.recommit(self.claim_id)

    class RepairFailed(LedgerAggregate.Event):
        """No candidate of the pool passed the gate: the claim is flagged unverified."""

        TOPIC = "provledger.receipt.repair_failed"
        claim_id: str
        binding_index: int
        ranker: str
        ranker_version: str
        attempts: list[dict[str, Any]]

        def apply(self, aggregate: Receipt) -> None:
            claim = aggregate.claim(self.claim_id)
            if claim["status"] == "verified":  # never: verified claims are not repaired
                claim["status"] = "unverified"
            claim["repairs"] = [*claim.get("repairs", []), stored_repair(self, repaired=False)]

    class TransformationRecorded(LedgerAggregate.Event):
        """What the application did to evidence of the pool before the model saw it: the
        method, the input spans (as the pool sealed them), the output text, the declared loss
        boundary and what the loss-boundary check found (``ledger.lossboundary``)."""

        TOPIC = "provledger.receipt.transformation_recorded"
        transformation_id: str
        method: str
        inputs: list[dict[str, Any]]
        output: str
        may_remove: list[str]
        must_keep: list[str]
        check: dict[str, Any]

        def apply(self, aggregate: Receipt) -> None:
            aggregate.transformations.append(recorded_transformation(self))

    class EntailmentJudged(LedgerAggregate.Event):
        """A sampled entailment check of a committed claim (advisory; status unchanged)."""

        TOPIC = "provledger.receipt.entailment_judged"
        claim_id: str
        claim_text: str
        verdict: str
        verifier: str
        model: str
        raw: str

        def apply(self, aggregate: Receipt) -> None:
            claim = aggregate.claim(self.claim_id)
            claim["entailment"] = [*claim.get("entailment", []), folds.entailment_entry(self)]

    class UsageRecorded(LedgerAggregate.Event):
        """What one inference under the receipt consumed of the provider's prompt cache
        (``usage``: ``input_tokens``, ``cache_creation_input_tokens``,
        ``cache_read_input_tokens``), tied to the receipt's stable-prefix hash (the context
        packet's, recorded at opening; None for a receipt opened before packets)."""

        TOPIC = "provledger.receipt.usage_recorded"
        usage: dict[str, int]
        prefix_sha256: str | None
        idempotency: dict[str, Any] | None

        def apply(self, aggregate: Receipt) -> None:
            folds.add_usage(aggregate.usage, aggregate.usage_keys, self)

    def __init__(
        self,
        receipt_id: str,
        context: dict[str, Any],
        pool: list[dict[str, Any]],
        excluded: list[dict[str, str]],
        as_of: str,
        expires_at: str | None,
        actor: str,
        inference_id: str | None = None,
        request_fingerprint: str | None = None,
    ) -> None:
        self.receipt_id = receipt_id
        self.opened_by = actor
        self.inference_id = inference_id
        self.request_fingerprint = request_fingerprint
        self.context = context
        self.pool = pool
        self.pool_index = {entry["span_id"]: entry for entry in pool}
        self.excluded = excluded
        self.as_of = as_of
        self.expires_at = expires_at
        self.claims: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        self.idempotency: dict[str, dict[str, Any]] = {}
        self.expiries: list[dict[str, Any]] = []
        self.outcomes: list[dict[str, Any]] = []
        self.access_record: dict[str, Any] | None = None
        self.transformations: list[dict[str, Any]] = []
        self.usage: list[dict[str, Any]] = []
        self.usage_keys: dict[str, dict[str, Any]] = {}

    @classmethod
    def open(
        cls,
        context: dict[str, Any],
        pool: list[dict[str, Any]],
        excluded: list[dict[str, str]],
        as_of: str,
        expires_at: str | None,
        actor: str,
        inference_id: str,
        request_fingerprint: str,
    ) -> Receipt:
        """Open a receipt for one inference: its id names the opener and the inference."""
        receipt_id = receipt_id_for_inference(actor, inference_id)
        return cls._create(
            cls.Opened,
            id=receipt_aggregate_id(receipt_id),
            receipt_id=receipt_id,
            context=context,
            pool=pool,
            excluded=excluded,
            as_of=as_of,
            expires_at=expires_at,
            actor=actor,
            inference_id=inference_id,
            request_fingerprint=request_fingerprint,
        )

    def record_access(
        self,
        policy_version: str,
        rules_from: str,
        principal: dict[str, Any],
        decisions: list[dict[str, Any]],
        actor: str,
    ) -> None:
        """Record the entitlement gate's decisions (once, at opening)."""
        self.trigger_event(
            self.AccessDecided,
            policy_version=policy_version,
            rules_from=rules_from,
            principal=principal,
            decisions=decisions,
            actor=actor,
        )

    def fork(self) -> Receipt:
        """A copy a command may change without touching this receipt: the lists and the dict
        that events extend are copied; a claim dict is replaced, never edited (:meth:`claim`);
        the sealed pool, context and exclusions never change after opening."""
        return fork_state(
            self,
            ("claims", "rejected", "expiries", "transformations", "outcomes", "usage"),
            ("idempotency", "usage_keys"),
        )

    def record_transformation(self, transformation: Mapping[str, Any], actor: str) -> None:
        """Record a transformation whose output kept its loss boundary: its
        ``transformation_id``, ``method``, ``inputs``, ``output``, ``may_remove``,
        ``must_keep`` and ``check``."""
        self.trigger_event(self.TransformationRecorded, **transformation, actor=actor)

    def claim(self, claim_id: str) -> dict[str, Any]:
        """A committed or quarantined claim, as a fresh dict that replaces the stored one
        (so a change never writes through into an event's payload)."""
        for claims in (self.claims, self.rejected):
            for index, claim in enumerate(claims):
                if claim["claim_id"] == claim_id:
                    copy = dict(claim)
                    claims[index] = copy
                    return copy
        raise KeyError(claim_id)

    def recommit(self, claim_id: str) -> None:
        """Move a quarantined claim that a repair made acceptable into the committed claims,
        at its place in commit order (its ordinal), not after the claims committed since."""
        folds.recommit(self.claims, self.rejected, claim_id)

    def judge_entailment(
        self, claim_id: str, verdict: str, verifier: str, model: str, raw: str, actor: str
    ) -> bool:
        """Record a sampled entailment verdict once per claim and verifier model."""
        claim = next(c for c in self.claims if c["claim_id"] == claim_id)
        if folds.judged_by(claim, verifier, model):
            return False
        self.trigger_event(
            self.EntailmentJudged,
            claim_id=claim_id,
            claim_text=claim["text"],
            verdict=verdict,
            verifier=verifier,
            model=model,
            raw=raw,
            actor=actor,
        )
        return True

    def record_usage(
        self, usage: dict[str, int], idempotency: dict[str, Any] | None, actor: str
    ) -> None:
        """Record one inference's prompt-cache usage against the stable prefix."""
        self.trigger_event(
            self.UsageRecorded,
            usage=usage,
            prefix_sha256=self.prefix_sha256,
            idempotency=idempotency,
            actor=actor,
        )

    def expire(self, reason: str, cause: str, detail: dict[str, Any], actor: str) -> bool:
        """Record an expiry unless one with the same cause exists; returns whether it did."""
        if self.has_cause(cause):
            return False
        self.trigger_event(self.Expired, reason=reason, cause=cause, detail=detail, actor=actor)
        return True

    def record_outcome(
        self, decision: str, reviewer: str | None, actions: list[dict[str, str]], actor: str
    ) -> None:
        """Record an outcome (the rules are checked by ``ledger.receipts.outcomes``)."""
        self.trigger_event(
            self.OutcomeRecorded, decision=decision, reviewer=reviewer, actions=actions, actor=actor
        )

    def remember(self, idempotency: dict[str, Any] | None) -> None:
        """Keep the first answer given under an idempotency key."""
        if idempotency is not None:
            self.idempotency.setdefault(idempotency["key"], idempotency)

    def commit(
        self,
        mode: str,
        accepted: list[dict[str, Any]],
        rejected: list[dict[str, Any]],
        rendered_answer: str | None,
        render_check: dict[str, Any] | None,
        idempotency: dict[str, Any] | None,
        actor: str,
    ) -> None:
        """Record one commit attempt: accepted and rejected claims in their own events."""
        if accepted:
            self.trigger_event(
                self.ClaimsCommitted,
                mode=mode,
                claims=accepted,
                rendered_answer=rendered_answer,
                render_check=render_check,
                idempotency=None if rejected else idempotency,
                actor=actor,
            )
        if rejected:
            self.trigger_event(
                self.ClaimsRejected,
                mode=mode,
                claims=rejected,
                render_check=render_check,
                idempotency=idempotency,
                actor=actor,
            )
