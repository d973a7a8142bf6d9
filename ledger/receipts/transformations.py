"""Transformations: what the application did to a receipt's evidence before the model saw it.

A transformation (a compression, summary, deduplication or translation) names its inputs,
spans of the receipt's sealed pool, its output text, and a declared loss boundary: what it
``may_remove`` and what it ``must_keep`` (:mod:`ledger.lossboundary`). Its id is derived from
the receipt and its content, so recording the same transformation again names the same one.

A claim binds a transformation's output with a binding whose id is the transformation's
(``tfm_...``); :func:`expand_transformations` turns it into one binding per input span, each
marked with the transformation, so the gate judges the claim against the text the
transformation consumed, never against its output.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ledger.crypto.canonical import canonical_json
from ledger.errors import InvalidInput
from ledger.eventlog.clock import format_time
from ledger.gate import Binding, ClaimDraft
from ledger.lossboundary import MayRemove, MustKeep
from ledger.receipts.validation import CommitRequest

TRANSFORMATION_PREFIX = "tfm_"
SPAN_ID = re.compile(r"^sp_[0-9a-f]{24}$")
MAX_INPUTS = 100
MAX_OUTPUT = 20_000
LOW_WEIGHT_AUTHORITIES = frozenset({"advisory", "fallback"})
"""Source authorities whose spans are low-weight sources (``ledger.registry.source.Authority``:
advisory and fallback sources, below a source of record and a derived one)."""


class Method(StrEnum):
    """What a transformation did to its inputs."""

    COMPRESSION = "compression"
    SUMMARY = "summary"
    DEDUPLICATION = "deduplication"
    TRANSLATION = "translation"


@dataclass(frozen=True)
class TransformationRequest:
    """``POST /v1/receipts/{id}/transformations`` after schema validation."""

    method: str
    inputs: list[str]
    output: str
    may_remove: list[str]
    must_keep: list[str]

    def content(self) -> dict[str, Any]:
        """What the transformation's id is derived from (in the order given)."""
        return {
            "method": self.method,
            "inputs": list(self.inputs),
            "output": self.output,
            "may_remove": list(self.may_remove),
            "must_keep": list(self.must_keep),
        }


def transformation_id_for(receipt_id: str, request: TransformationRequest) -> str:
    """``tfm_`` + 24 hex digits of SHA-256 of the receipt id and the RFC 8785 form of the
    transformation's content."""
    digest = hashlib.sha256(receipt_id.encode() + b"\x00" + canonical_json(request.content()))
    return TRANSFORMATION_PREFIX + digest.hexdigest()[:24]


def _vocabulary(
    errors: list[dict[str, str]], name: str, values: list[str], known: type[StrEnum]
) -> None:
    allowed = [item.value for item in known]
    for index, value in enumerate(values):
        if value not in allowed:
            errors.append(
                {
                    "field": f"{name}[{index}]",
                    "rule": "known-item",
                    "message": f"{name}[{index}] is {value!r}; {name} items are {allowed}",
                }
            )
    if len(set(values)) != len(values):
        errors.append({"field": name, "rule": "unique", "message": f"{name} lists an item twice"})


def check_transformation_request(request: TransformationRequest) -> list[dict[str, str]]:
    """Every rule a transformation request breaks (empty when it is sound)."""
    errors: list[dict[str, str]] = []
    methods = [method.value for method in Method]
    if request.method not in methods:
        errors.append(
            {
                "field": "method",
                "rule": "known-method",
                "message": f"method is one of {methods}",
            }
        )
    if not 1 <= len(request.inputs) <= MAX_INPUTS:
        errors.append(
            {"field": "inputs", "rule": "count", "message": f"1 to {MAX_INPUTS} input spans"}
        )
    for index, span_id in enumerate(request.inputs):
        if not SPAN_ID.match(span_id):
            errors.append(
                {
                    "field": f"inputs[{index}]",
                    "rule": "pattern",
                    "message": "an input is a span id: sp_ followed by 24 hex digits",
                }
            )
    if len(set(request.inputs)) != len(request.inputs):
        errors.append({"field": "inputs", "rule": "unique", "message": "inputs lists a span twice"})
    if not request.output.strip():
        errors.append({"field": "output", "rule": "non-empty", "message": "output is empty"})
    if len(request.output) > MAX_OUTPUT:
        errors.append(
            {
                "field": "output",
                "rule": "max-length",
                "message": f"output is at most {MAX_OUTPUT} chars",
            }
        )
    _vocabulary(errors, "may_remove", request.may_remove, MayRemove)
    _vocabulary(errors, "must_keep", request.must_keep, MustKeep)
    if not request.must_keep:
        errors.append(
            {
                "field": "must_keep",
                "rule": "non-empty",
                "message": "must_keep names at least one item: a boundary that keeps nothing "
                "bounds no loss",
            }
        )
    return errors


def expand_transformations(
    transformations: dict[str, dict[str, Any]], request: CommitRequest
) -> CommitRequest:
    """The request with every binding to a transformation (its id in ``span_id``) replaced by
    one binding per input span in the same role, each marked with the transformation
    (``via``) and the index of the binding it came from (``origins``); 422
    ``known-transformation`` for an id the receipt has not recorded."""
    errors: list[dict[str, str]] = []
    claims: list[ClaimDraft] = []
    vias: list[tuple[str | None, ...]] = []
    origins: list[tuple[int, ...]] = []
    for index, claim in enumerate(request.claims):
        bindings: list[Binding] = []
        via: list[str | None] = []
        origin: list[int] = []
        for b_index, binding in enumerate(claim.bindings):
            if not binding.span_id.startswith(TRANSFORMATION_PREFIX):
                bindings.append(binding)
                via.append(None)
                origin.append(b_index)
                continue
            recorded = transformations.get(binding.span_id)
            if recorded is None:
                errors.append(
                    {
                        "field": f"claims[{index}].bindings[{b_index}].transformation_id",
                        "rule": "known-transformation",
                        "message": f"the receipt has no transformation {binding.span_id}",
                    }
                )
                continue
            for item in recorded["inputs"]:
                bindings.append(Binding(item["span_id"], binding.role, None))
                via.append(binding.span_id)
                origin.append(b_index)
        claims.append(replace(claim, bindings=tuple(bindings)))
        vias.append(tuple(via))
        origins.append(tuple(origin))
    if errors:
        raise InvalidInput.many(errors)
    return replace(request, claims=claims, via=tuple(vias), origins=tuple(origins))


def recorded_transformation(event: Any) -> dict[str, Any]:
    """The transformation a ``TransformationRecorded`` event adds to its receipt as the
    receipt folds it: the event's fields and when it was recorded."""
    return {
        "transformation_id": event.transformation_id,
        "method": event.method,
        "inputs": event.inputs,
        "output": event.output,
        "may_remove": event.may_remove,
        "must_keep": event.must_keep,
        "check": event.check,
        "at": format_time(event.timestamp),
    }
