"""Validation of receipt and commit requests: every rule, each named by field and rule."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from ledger.access.attributes import Principal
from ledger.crypto.canonical import canonical_json
from ledger.errors import InvalidInput
from ledger.gate import ClaimDraft
from ledger.memory.item import MEMORY_ID
from ledger.receipts.usage import Usage
from ledger.router import RouteRequest

MAX_POOL = 1000
MAX_CLAIMS = 100
MAX_BINDINGS = 20
MAX_TEXT = 4000
MAX_RENDERED = 100_000
MAX_MEMORY = 100

_REASON_CODE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
_SPAN_ID = re.compile(r"^sp_[0-9a-f]{24}$")
_TRANSFORMATION_ID = re.compile(r"^tfm_[0-9a-f]{24}$")
INFERENCE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_RETRIEVAL_ID = re.compile(r"^rtv_[0-9a-f]{32}$")


class Route(StrEnum):
    """A route declared by the client (without ``routing``): the router's five outcomes and
    the older ``abstain``, read as ``ask_abstain_escalate``."""

    DETERMINISTIC_STATE = "deterministic_state"
    HYBRID_RETRIEVAL = "hybrid_retrieval"
    LONG_CONTEXT = "long_context"
    ASK_ABSTAIN_ESCALATE = "ask_abstain_escalate"
    ABSTAIN = "abstain"
    REDESIGN = "redesign"


class Mode(StrEnum):
    """``atomic``: all claims or none; ``independent``: rejected claims are quarantined."""

    ATOMIC = "atomic"
    INDEPENDENT = "independent"


@dataclass(frozen=True)
class ReceiptRequest:
    """``POST /v1/receipts`` after schema validation."""

    request: str
    actor: str
    purpose: str
    policy_version: str | None
    """The access policy version the caller expects to be decided under (None: whichever is in
    force; a version that does not govern is refused, ``ledger/access/policy_desk.py``)."""
    route: str
    model: dict[str, str]
    tools: list[str]
    evidence: list[str]
    excluded: list[dict[str, str]]
    as_of: datetime | None = None
    expires_at: datetime | None = None
    budget: dict[str, Any] | None = None
    inference_id: str | None = None
    principal: Principal | None = None
    """On whose behalf (checked against the key's pins); None: only the receipt's purpose."""
    candidates: list[str] = field(default_factory=list)
    """Spans a search surfaced for this request; the entitlement gate records the denied
    ones as safe exclusions."""
    routing: RouteRequest | None = None
    """The router's input: the ledger decides the route and records the decision (signed);
    ``route`` may then be empty or must equal the decision's outcome."""
    retrieval_id: str | None = None
    """A recorded retrieval whose spans are the pool, in place of ``evidence``."""
    context_assembly: dict[str, str] | None = None
    """The application's context assembly (``{name, version}``) that built what the model was
    shown; recorded when given (``ledger/receipts/components.py``)."""
    memory: list[str] = field(default_factory=list)
    """Memory item ids sealed into the pool beside the evidence (docs/memory.md)."""


@dataclass(frozen=True)
class CommitRequest:
    """``POST /v1/receipts/{id}/claims`` after schema validation."""

    claims: list[ClaimDraft]
    mode: str = Mode.ATOMIC.value
    rendered_answer: str | None = None
    fingerprint: str = ""
    repair: bool = False
    via: tuple[tuple[str | None, ...], ...] = ()
    """Per claim, per binding: the transformation it is an input of, or None (set when the
    receipt desk expands the bindings to transformations: ``receipts/transformations.py``)."""
    origins: tuple[tuple[int, ...], ...] = ()
    """Per claim, per binding: the index of the binding of the request it came from."""

    def binding_field(self, claim: int, binding: int) -> str:
        """The request field a (possibly expanded) binding came from."""
        origin = self.origins[claim][binding] if self.origins else binding
        through = self.via[claim][binding] if self.via else None
        name = "span_id" if through is None else "transformation_id"
        return f"claims[{claim}].bindings[{origin}].{name}"

    usage: Usage | None = None
    """The inference's prompt-cache usage, recorded with the commit."""


def _text(errors: list[dict[str, str]], name: str, value: str, limit: int = MAX_TEXT) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        errors.append({"field": name, "rule": "utf-8", "message": f"{name} has a lone surrogate"})
        return
    if len(value) > limit:
        errors.append(
            {"field": name, "rule": "max-length", "message": f"{name} is at most {limit} chars"}
        )


def check_receipt_request(request: ReceiptRequest) -> list[dict[str, str]]:
    """Every rule a receipt request breaks (empty when it is sound)."""
    errors: list[dict[str, str]] = []
    for name in ("request", "actor", "purpose", "policy_version"):
        value = getattr(request, name)
        if value is None:
            continue
        if not value.strip():
            errors.append({"field": name, "rule": "non-empty", "message": f"{name} is empty"})
        _text(errors, name, value, 20_000 if name == "request" else 500)
    if request.routing is not None:
        try:
            request.routing.check("routing.")
        except InvalidInput as exc:
            errors.extend(exc.errors)
    elif request.route not in {route.value for route in Route}:
        errors.append(
            {
                "field": "route",
                "rule": "known-route",
                "message": f"route must be one of {[r.value for r in Route]}",
            }
        )
    parts = [("model", request.model)]
    if request.context_assembly is not None:
        parts.append(("context_assembly", request.context_assembly))
    for part, given in parts:
        for key in ("name", "version"):
            value = given.get(key)
            if not isinstance(value, str) or not value.strip():
                errors.append(
                    {
                        "field": f"{part}.{key}",
                        "rule": "non-empty",
                        "message": f"{part}.{key} is required",
                    }
                )
    if len(request.evidence) > MAX_POOL:
        errors.append(
            {"field": "evidence", "rule": "max-items", "message": f"at most {MAX_POOL} spans"}
        )
    if request.retrieval_id is not None and request.evidence:
        errors.append(
            {
                "field": "evidence",
                "rule": "one-of",
                "message": "give evidence or retrieval_id, not both",
            }
        )
    if request.retrieval_id is not None and not _RETRIEVAL_ID.match(request.retrieval_id):
        errors.append(
            {
                "field": "retrieval_id",
                "rule": "pattern",
                "message": "retrieval_id is rtv_ followed by 32 hex digits",
            }
        )
    if len(set(request.evidence)) != len(request.evidence):
        errors.append(
            {"field": "evidence", "rule": "unique", "message": "evidence lists a span twice"}
        )
    if len(request.candidates) > MAX_POOL:
        errors.append(
            {"field": "candidates", "rule": "max-items", "message": f"at most {MAX_POOL} spans"}
        )
    if request.principal is not None and request.principal.purpose != request.purpose:
        errors.append(
            {
                "field": "principal.purpose",
                "rule": "matches-purpose",
                "message": "principal.purpose must be the receipt's purpose",
            }
        )
    for index, item in enumerate(request.excluded):
        if not _REASON_CODE.match(item.get("reason_code", "")):
            errors.append(
                {
                    "field": f"excluded[{index}].reason_code",
                    "rule": "reason-code",
                    "message": "reason_code is a non-sensitive code: [a-z0-9_.-], 1-64 chars",
                }
            )
        _text(errors, f"excluded[{index}].ref", item.get("ref", ""), 500)
    if request.inference_id is not None and not INFERENCE_ID.match(request.inference_id):
        errors.append(
            {
                "field": "inference_id",
                "rule": "pattern",
                "message": f"inference_id must match {INFERENCE_ID.pattern}",
            }
        )
    errors.extend(_memory_errors(request.memory))
    if request.budget is not None and len(canonical_json(request.budget)) > 4096:
        errors.append({"field": "budget", "rule": "max-size", "message": "budget is at most 4 KiB"})
    return errors


def _memory_errors(memory: list[str]) -> list[dict[str, str]]:
    errors = [
        {
            "field": f"memory[{index}]",
            "rule": "pattern",
            "message": f"a memory item id matches {MEMORY_ID.pattern}",
        }
        for index, memory_id in enumerate(memory)
        if not MEMORY_ID.match(memory_id)
    ]
    if len(memory) > MAX_MEMORY:
        errors.append(
            {"field": "memory", "rule": "max-items", "message": f"at most {MAX_MEMORY} items"}
        )
    if len(set(memory)) != len(memory):
        errors.append(
            {"field": "memory", "rule": "unique", "message": "memory lists an item twice"}
        )
    return errors


def check_commit_request(request: CommitRequest) -> None:
    """Refuse a malformed commit before the gate runs, naming every bad field."""
    errors: list[dict[str, str]] = []
    if request.mode not in {mode.value for mode in Mode}:
        errors.append(
            {"field": "mode", "rule": "known-mode", "message": "mode is atomic or independent"}
        )
    if not 1 <= len(request.claims) <= MAX_CLAIMS:
        errors.append({"field": "claims", "rule": "count", "message": f"1 to {MAX_CLAIMS} claims"})
    for index, claim in enumerate(request.claims):
        name = f"claims[{index}]"
        if not claim.text.strip():
            errors.append(
                {"field": f"{name}.text", "rule": "non-empty", "message": "text is empty"}
            )
        _text(errors, f"{name}.text", claim.text)
        if len(claim.bindings) > MAX_BINDINGS:
            errors.append(
                {
                    "field": f"{name}.bindings",
                    "rule": "max-items",
                    "message": f"at most {MAX_BINDINGS}",
                }
            )
        for b_index, binding in enumerate(claim.bindings):
            at = f"{name}.bindings[{b_index}]"
            if binding.span_id.startswith("tfm_"):
                # A binding to a transformation's output (``receipts/transformations.py``).
                if not _TRANSFORMATION_ID.match(binding.span_id):
                    errors.append(
                        {
                            "field": f"{at}.transformation_id",
                            "rule": "pattern",
                            "message": "transformation_id is tfm_ followed by 24 hex digits",
                        }
                    )
                if binding.quote is not None:
                    errors.append(
                        {
                            "field": f"{at}.quote",
                            "rule": "span-binding",
                            "message": "a quote is of one span; a binding to a "
                            "transformation quotes none",
                        }
                    )
                continue
            if MEMORY_ID.match(binding.span_id):
                errors.append(
                    {
                        "field": f"{at}.span_id",
                        "rule": "memory-not-citable",
                        "message": "a memory item is not evidence: bind the spans it came from "
                        "(its source), opened as the receipt's evidence (docs/memory.md)",
                    }
                )
            elif not _SPAN_ID.match(binding.span_id):
                errors.append(
                    {
                        "field": f"{at}.span_id",
                        "rule": "pattern",
                        "message": "span_id is sp_ followed by 24 hex digits",
                    }
                )
            if binding.quote is not None:
                _text(errors, f"{at}.quote", binding.quote)
    if request.rendered_answer is not None:
        _text(errors, "rendered_answer", request.rendered_answer, MAX_RENDERED)
    if request.usage is not None:
        errors.extend(request.usage.errors())
    if errors:
        raise InvalidInput.many(errors)


@dataclass(frozen=True)
class CommitResult:
    """The answer to a commit, replayed on retries: whether any claim was committed (in atomic
    mode: all of them), and the body listing committed, quarantined and rejected claims."""

    accepted: bool
    body: dict[str, Any]
    replayed: bool = False
    position: int = 0
