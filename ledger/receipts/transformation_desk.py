"""Recording transformations: ``POST /v1/receipts/{id}/transformations``.

The desk refuses, before any input text is read and leaving no trace, what a claim commit
refuses before the gate runs: a receipt a key with pins may not read (404, as a missing
one), an expired receipt (409 ``receipt-expired``), an input outside the sealed pool (422
``inputs[i]`` / ``in-pool``) and an input the receipt's principal may not see now under the
policy in force (403 ``entitlement-denied``, the field and the safe code only). Then it reads
the inputs from verified events and checks the output against them
(:func:`ledger.lossboundary.check_loss`): a dropped must-keep item is 422 ``loss-boundary``
naming it, and nothing is written. An accepted transformation is a signed
``transformation_recorded`` event on the receipt.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from ledger.access.attributes import Pins
from ledger.errors import (
    ConcurrentWrite,
    Conflict,
    InvalidInput,
    LedgerIntegrityError,
    LossBoundaryBreached,
)
from ledger.lossboundary import InputText, LossReport, MayRemove, MustKeep, check_loss
from ledger.receipts.commit_checks import check_open
from ledger.receipts.entitlement import GateRecord, receipt_principal
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_desk import COMMIT_ATTEMPTS, ReceiptDesk
from ledger.receipts.transformations import (
    LOW_WEIGHT_AUTHORITIES,
    TransformationRequest,
    check_transformation_request,
    transformation_id_for,
)
from ledger.registry.evidence import ResolvedSpan

_LISTED = 20
"""How many dropped items a refusal's detail names (``dropped`` lists every one)."""


@dataclass(frozen=True)
class Recorded:
    """A recorded transformation and whether this request recorded it (False: the receipt
    had it already, and nothing was written); ``position``: the log position after it."""

    receipt_id: str
    transformation: dict[str, Any]
    created: bool
    position: int = 0


class TransformationDesk:
    """Checks transformations against their loss boundary and records the accepted ones."""

    def __init__(self, receipts: ReceiptDesk) -> None:
        self.receipts = receipts

    def record(
        self,
        receipt_id: str,
        request: TransformationRequest,
        actor: str,
        pins: Pins | None = None,
    ) -> Recorded:
        """Check ``request`` and record it on the receipt (see the module docstring). The
        same transformation sent again names the same id and is answered as recorded."""
        errors = check_transformation_request(request)
        if errors:
            raise InvalidInput.many(errors)
        desk = self.receipts
        for attempt in range(COMMIT_ATTEMPTS):
            receipt = desk.read(receipt_id, pins)
            transformation_id = transformation_id_for(receipt.receipt_id, request)
            known = receipt.transformation_index.get(transformation_id)
            if known is not None:
                return Recorded(receipt.receipt_id, known, False)
            check_open(receipt)
            check_inputs_in_pool(receipt, request.inputs)
            spans = self._visible_inputs(receipt, request.inputs)
            report = check_loss(
                [
                    InputText(s.span_id, s.text, s.authority in LOW_WEIGHT_AUTHORITIES)
                    for s in spans
                ],
                request.output,
                [MustKeep(item) for item in request.must_keep],
                [MayRemove(item) for item in request.may_remove],
            )
            refuse_dropped(report, request.inputs)
            receipt.record_transformation(
                {
                    "transformation_id": transformation_id,
                    "method": request.method,
                    "inputs": [_input_record(receipt, span_id) for span_id in request.inputs],
                    "output": request.output,
                    "may_remove": list(request.may_remove),
                    "must_keep": list(request.must_keep),
                    "check": report.record(),
                },
                actor,
            )
            try:
                recordings = desk.ledger.commit(receipt)
                desk.snapshots.keep(receipt)
            except Conflict:
                time.sleep(random.uniform(0, 0.002 * (attempt + 1)))  # noqa: S311 - jitter only
                continue
            return Recorded(
                receipt.receipt_id,
                receipt.transformation_index[transformation_id],
                True,
                recordings[-1].notification.id,
            )
        raise ConcurrentWrite(f"receipt {receipt_id} is being written by others; retry")

    def _visible_inputs(self, receipt: Receipt, span_ids: list[str]) -> list[ResolvedSpan]:
        """The input spans from verified events, each the text the pool sealed; 403
        ``entitlement-denied`` (fields and safe codes only) when the receipt's principal may
        not see one now, under the policy in force and today's access attributes."""
        desk = self.receipts
        gate = GateRecord(desk.policies.in_force(), receipt_principal(receipt.context))
        resolved = desk.resolver.resolve(span_ids)
        spans: list[ResolvedSpan] = []
        for index, span_id in enumerate(span_ids):
            entry = receipt.pool_index[span_id]
            span = next(
                (s for s in resolved.get(span_id, ()) if s.version == entry["version"]), None
            )
            if span is None or span.text_sha256 != entry["text_sha256"]:
                raise LedgerIntegrityError(
                    "packet_mismatch",
                    f"pool span {span_id} does not resolve to the text it sealed",
                    {"receipt_id": receipt.receipt_id, "span_id": span_id},
                )
            gate.admit(f"inputs[{index}]", span, True)
            spans.append(span)
        gate.refuse_if_denied()
        return spans


def check_inputs_in_pool(receipt: Receipt, span_ids: list[str]) -> None:
    """422 ``inputs[i]`` / ``in-pool`` for every input outside the receipt's sealed pool,
    before anything reads a span."""
    errors = [
        {
            "field": f"inputs[{index}]",
            "rule": "in-pool",
            "message": f"span {span_id} is not in the receipt's sealed evidence pool",
        }
        for index, span_id in enumerate(span_ids)
        if span_id not in receipt.pool_index
    ]
    if errors:
        raise InvalidInput.many(errors)


def refuse_dropped(report: LossReport, span_ids: list[str]) -> None:
    """422 ``loss-boundary`` naming every must-keep item the output dropped."""
    if report.kept:
        return
    position = {span_id: index for index, span_id in enumerate(span_ids)}
    dropped: list[dict[str, object]] = [
        {**item.to_json(), "input": position[item.span_id]} for item in report.dropped
    ]
    named = "; ".join(
        f"{item['cue']} {item['item']!r} of span {item['span_id']}" for item in dropped[:_LISTED]
    )
    more = f" (and {len(dropped) - _LISTED} more)" if len(dropped) > _LISTED else ""
    raise LossBoundaryBreached(
        f"the output drops {len(dropped)} must-keep item{'s' if len(dropped) != 1 else ''} "
        f"of its inputs: {named}{more}; nothing was recorded",
        dropped,
    )


def _input_record(receipt: Receipt, span_id: str) -> dict[str, Any]:
    """What a transformation records of one input: the span as the pool sealed it."""
    entry = receipt.pool_index[span_id]
    return {
        "span_id": span_id,
        "source_id": entry["source_id"],
        "version": entry["version"],
        "text_sha256": entry["text_sha256"],
    }
