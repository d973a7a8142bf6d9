"""Context receipts: open, commit claims through the gate, read, and seal as DSSE envelopes."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from api.deps import AsOfDep, ReceiptDeskDep, RuntimeDep, require
from api.errors import PROBLEM_JSON
from api.routes.access import PrincipalIn, problems
from api.routes.routing import RouteIn
from ledger.crypto.dsse import RECEIPT_PAYLOAD_TYPE, seal_envelope
from ledger.errors import InvalidInput
from ledger.eventlog.clock import parse_time
from ledger.gate import Binding, ClaimDraft, ClaimType, Role
from ledger.keys.api_keys import Principal, Scope
from ledger.receipts.commands import (
    CommitRequest,
    ReceiptRequest,
    request_fingerprint,
)
from ledger.receipts.document import receipt_document, receipt_payload
from ledger.receipts.entitlement import check_receipt_reader
from ledger.receipts.packet import PACKET_FORMAT
from ledger.receipts.packet_reads import served_packet

router = APIRouter(tags=["receipts"])

Writer = Annotated[Principal, Depends(require(Scope.CLAIMS_WRITE))]
Reader = Annotated[Principal, Depends(require(Scope.READ))]
_IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


class ModelIn(BaseModel):
    """The model that answered."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)
    version: str = Field(max_length=200)


class ExcludedIn(BaseModel):
    """Evidence kept from the model, with a non-sensitive reason code only."""

    model_config = ConfigDict(extra="forbid")
    ref: str = Field(max_length=500)
    reason_code: str


class ReceiptIn(BaseModel):
    """``POST /v1/receipts``."""

    model_config = ConfigDict(extra="forbid")
    request: str = Field(description="the request the inference answered")
    actor: str = Field(description="on whose behalf (a user or agent id, not a secret)")
    purpose: str
    policy_version: str
    route: str = Field(
        default="",
        description="deprecated: a declared route (deterministic_state, hybrid_retrieval, "
        "long_context, ask_abstain_escalate, redesign); send routing instead",
    )
    routing: RouteIn | None = Field(
        default=None,
        description="the router's input: the ledger decides the route and records the "
        "decision with the receipt (docs/router.md)",
    )
    model: ModelIn
    tools: list[Annotated[str, Field(max_length=200)]] = Field(default_factory=list, max_length=100)
    evidence: list[str] = Field(description="span ids the model was shown (the sealed pool)")
    excluded: list[ExcludedIn] = Field(default_factory=list, max_length=1000)
    as_of: datetime | None = Field(default=None, description="decision time; default now")
    expires_at: datetime | None = None
    budget: dict[str, Any] | None = None
    principal: PrincipalIn | None = Field(
        default=None,
        description="on whose behalf; bounded by the API key's pins; its purpose is the "
        "receipt's (docs/access.md)",
    )
    candidates: list[str] = Field(
        default_factory=list,
        max_length=1000,
        description="spans a search surfaced; denied ones are recorded as safe exclusions",
    )


class BindingIn(BaseModel):
    """A claim's citation of one span."""

    model_config = ConfigDict(extra="forbid")
    span_id: str
    quote: str | None = None
    role: Literal["primary_support", "secondary_support", "context"] = "primary_support"


class ClaimIn(BaseModel):
    """One claim the model wrote."""

    model_config = ConfigDict(extra="forbid")
    client_ref: str | None = Field(default=None, max_length=128)
    text: str
    type: Literal["factual", "computational", "definition", "temporal", "quotation"] = "factual"
    material: bool = True
    bindings: list[BindingIn] = Field(default_factory=list)

    def to_draft(self) -> ClaimDraft:
        """The claim as the ledger judges and keeps it (``ledger.receipts.claims``)."""
        return ClaimDraft(
            text=self.text,
            type=ClaimType(self.type),
            material=self.material,
            bindings=tuple(Binding(b.span_id, Role(b.role), b.quote) for b in self.bindings),
            client_ref=self.client_ref,
        )


class CommitIn(BaseModel):
    """``POST /v1/receipts/{receipt_id}/claims``."""

    model_config = ConfigDict(extra="forbid")
    mode: Literal["atomic", "independent"] = "atomic"
    claims: list[ClaimIn]
    rendered_answer: str | None = None
    repair: bool = Field(
        default=False,
        description="try re-attribution within the sealed pool for claims that fail",
    )


@router.post("/v1/receipts", status_code=201)
def open_receipt(body: ReceiptIn, desk: ReceiptDeskDep, principal: Writer) -> JSONResponse:
    """Open a receipt and seal its evidence pool (200 if the same content was opened before)."""
    request = ReceiptRequest(
        request=body.request,
        actor=body.actor,
        purpose=body.purpose,
        policy_version=body.policy_version,
        route=body.route,
        model={"name": body.model.name, "version": body.model.version},
        tools=list(body.tools),
        evidence=list(body.evidence),
        excluded=[item.model_dump() for item in body.excluded],
        as_of=body.as_of,
        expires_at=body.expires_at,
        budget=body.budget,
        principal=None if body.principal is None else body.principal.to_principal(),
        candidates=list(body.candidates),
        routing=None if body.routing is None else body.routing.to_request(),
    )
    receipt, created = desk.open(request, principal.actor, principal.pins)
    return JSONResponse(receipt_document(receipt), status_code=201 if created else 200)


@router.post(
    "/v1/receipts/{receipt_id}/claims",
    status_code=201,
    responses={422: {"description": "claims rejected by the gate, or invalid input"}},
)
def commit_claims(
    receipt_id: str,
    body: CommitIn,
    desk: ReceiptDeskDep,
    principal: Writer,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
) -> JSONResponse:
    """Run each claim through the gate; commit per ``mode``; replay on a repeated key."""
    if idempotency_key is not None and not _IDEMPOTENCY_KEY.match(idempotency_key):
        raise InvalidInput(
            "Idempotency-Key", "pattern", "Idempotency-Key must match [A-Za-z0-9._:-]{1,128}"
        )
    request = CommitRequest(
        claims=[claim.to_draft() for claim in body.claims],
        mode=body.mode,
        rendered_answer=body.rendered_answer,
        fingerprint=request_fingerprint(body.model_dump(mode="json")),
        repair=body.repair,
    )
    result = desk.commit(receipt_id, request, principal.actor, idempotency_key)
    headers = {"Idempotency-Replayed": "true"} if result.replayed else None
    if result.accepted:
        return JSONResponse(result.body, status_code=201, headers=headers)
    return JSONResponse(
        rejection_problem(result.body), status_code=422, media_type=PROBLEM_JSON, headers=headers
    )


def rejection_problem(body: dict[str, Any]) -> dict[str, Any]:
    """A gate rejection as RFC 9457 problem details, naming each failed claim and check."""
    failed = body["rejected"] or body["quarantined"]
    errors = [
        {"field": f"claims[{index}]", "rule": check["reason"], "message": check["detail"]}
        for index, claim in enumerate(failed)
        for check in claim["checks"]
        if check["outcome"] == "fail"
    ]
    render = body.get("render_check")
    if render is not None and render["outcome"] == "fail":
        errors.append(
            {"field": "rendered_answer", "rule": render["reason"], "message": render["detail"]}
        )
    rejected = sum(1 for claim in failed if claim["status"] == "rejected")
    return {
        "type": "https://provledger.dev/problems/claims-rejected",
        "title": "Claims rejected",
        "status": 422,
        "detail": (
            f"{rejected} of {len(failed)} claims failed the gate; nothing was committed"
            if body["mode"] == "atomic"
            else f"all {len(failed)} claims failed the gate and were quarantined"
        ),
        "errors": errors,
        **body,
    }


@router.get("/v1/receipts/{receipt_id}")
def get_receipt(
    receipt_id: str, desk: ReceiptDeskDep, caller: Reader, as_of: AsOfDep
) -> dict[str, Any]:
    """The receipt, its sealed pool, committed claims with every check, quarantined claims,
    as the ledger knew it at ``known_at`` (status, expiry and claims as they stood)."""
    receipt = desk.get_as_of(receipt_id, as_of.known_at)
    check_receipt_reader(receipt.context, caller.pins)
    now = None if as_of.known_at is None else parse_time(as_of.known_at)
    body = receipt_document(receipt, now)
    if as_of.known_at is not None:
        body["as_of"] = {"known_at": as_of.known_at, "valid_at": as_of.valid_at}
    return body


@router.get("/v1/receipts/{receipt_id}/envelope")
def get_envelope(
    receipt_id: str, desk: ReceiptDeskDep, runtime: RuntimeDep, caller: Reader
) -> dict[str, Any]:
    """The receipt as a DSSE envelope signed with HMAC-SHA256 and Ed25519."""
    receipt = desk.get(receipt_id)
    check_receipt_reader(receipt.context, caller.pins)
    payload = receipt_payload(receipt)
    return seal_envelope(
        payload, RECEIPT_PAYLOAD_TYPE, runtime.hmac_key, runtime.ledger.signing_key
    )


class ManifestEntryOut(BaseModel):
    """One source version of the corpus manifest."""

    source_id: str
    version: int
    version_hash: str
    title: str
    authority: str
    effective_from: str


class EvidenceOut(BaseModel):
    """One span as the packet shows it: data, untrusted, with its id."""

    span_id: str
    source_id: str
    version: int
    type: Literal["data"]
    trust: Literal["untrusted"]
    text: str


class ContextPacketOut(BaseModel):
    """A receipt's context packet (docs/receipts.md#the-context-packet)."""

    receipt_id: str
    format: str
    packet: str = Field(description="the packet text: send it as is")
    prefix_length: int = Field(description="characters of the stable prefix (before <query>)")
    prefix_sha256: str = Field(description="sha256 of the UTF-8 stable prefix")
    recorded_prefix_sha256: str | None = Field(
        description="what the receipt recorded when it was opened (null for older receipts)"
    )
    manifest: list[ManifestEntryOut]
    evidence: list[EvidenceOut]
    query: str


@router.get(
    "/v1/receipts/{receipt_id}/context",
    response_model=ContextPacketOut,
    responses=problems(401, 403, 404, 500),
)
def get_context_packet(receipt_id: str, desk: ReceiptDeskDep, principal: Reader) -> dict[str, Any]:
    """The sealed pool as a context packet in a stable order (instructions and citation policy,
    corpus manifest, evidence spans, then the query), rendered from verified events."""
    receipt, packet = served_packet(desk, receipt_id, principal.pins)
    recorded = receipt.context.get("packet")
    return {
        "receipt_id": receipt_id,
        "format": PACKET_FORMAT,
        "packet": packet.text,
        "prefix_length": packet.prefix_length,
        "prefix_sha256": packet.prefix_sha256,
        "recorded_prefix_sha256": None if recorded is None else recorded["prefix_sha256"],
        "manifest": packet.manifest,
        "evidence": packet.evidence,
        "query": receipt.context["request"],
    }
