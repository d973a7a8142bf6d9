"""Context receipts: open, commit claims through the gate, read, and seal as DSSE envelopes."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from api.bodies import checked_idempotency_key
from api.deps import (
    AsOfDep,
    ReceiptDeskDep,
    ReceiptReadDeskDep,
    Rfc3339,
    UsageDeskDep,
    require,
)
from api.errors import PROBLEM_JSON
from api.openapi import answers, problem_responses
from api.pages import After, Limit, Page, decode_cursor, encode_cursor
from api.receipt_bodies import CommitIn, ReceiptIn, UsageIn
from api.rejections import ClaimsRejectedProblem, rejection_problem
from api.schemas import CommitOut, Envelope, ReceiptOut
from ledger.eventlog.clock import ledger_time, parse_time
from ledger.keys.api_keys import Caller, Scope
from ledger.receipts.document import receipt_document
from ledger.receipts.receipt_desk import (
    CommitRequest,
    ReceiptRequest,
    request_fingerprint,
)

router = APIRouter(tags=["receipts"])

Writer = Annotated[Caller, Depends(require(Scope.CLAIMS_WRITE))]
Reader = Annotated[Caller, Depends(require(Scope.READ))]


@router.post(
    "/v1/receipts",
    status_code=201,
    response_model=None,
    responses={
        **answers(ReceiptOut, statuses=(201, 200)),
        **problem_responses(409),
    },
)
def open_receipt(
    body: ReceiptIn,
    desk: ReceiptDeskDep,
    principal: Writer,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
) -> JSONResponse:
    """Open a new receipt for one inference and seal its evidence pool (201). A retry with the
    same ``Idempotency-Key`` or ``inference_id`` and the same body answers that receipt (200)."""
    key = checked_idempotency_key(idempotency_key)
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
        inference_id=body.inference_id,
        principal=None if body.principal is None else body.principal.to_principal(),
        candidates=list(body.candidates),
        routing=None if body.routing is None else body.routing.to_request(),
        retrieval_id=body.retrieval_id,
        context_assembly=(
            None if body.context_assembly is None else body.context_assembly.model_dump()
        ),
        memory=list(body.memory),
    )
    receipt, created = desk.open(request, principal.actor, key, principal.pins)
    return JSONResponse(receipt_document(receipt), status_code=201 if created else 200)


@router.post(
    "/v1/receipts/{receipt_id}/claims",
    status_code=201,
    response_model=None,
    responses={
        **answers(CommitOut, 404, 409, statuses=(201,)),
        422: {
            "model": ClaimsRejectedProblem,
            "description": "`claims-rejected`: the gate refused the commit (every claim's "
            "verdict in `claims`); `invalid-input`: a malformed request",
        },
    },
)
def commit_claims(
    receipt_id: str,
    body: CommitIn,
    desk: ReceiptDeskDep,
    principal: Writer,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
) -> JSONResponse:
    """Run each claim through the gate; commit per ``mode``; replay on a repeated key."""
    idempotency_key = checked_idempotency_key(idempotency_key)
    request = CommitRequest(
        claims=[claim.to_draft() for claim in body.claims],
        mode=body.mode,
        rendered_answer=body.rendered_answer,
        # A body without usage keeps the fingerprint it had before usage existed.
        fingerprint=request_fingerprint(
            body.model_dump(mode="json", exclude=None if body.usage else {"usage"})
        ),
        repair=body.repair,
        usage=None if body.usage is None else body.usage.to_usage(),
    )
    result = desk.commit(receipt_id, request, principal.actor, idempotency_key, principal.pins)
    headers = {"Idempotency-Replayed": "true"} if result.replayed else None
    if result.accepted:
        return JSONResponse(result.body, status_code=201, headers=headers)
    return JSONResponse(
        rejection_problem(result.body), status_code=422, media_type=PROBLEM_JSON, headers=headers
    )


class UsageOut(BaseModel):
    """``POST /v1/receipts/{receipt_id}/usage``: what was recorded."""

    receipt_id: str
    prefix_sha256: str | None = Field(
        description="the receipt's stable-prefix hash (its context packet's; null for a "
        "receipt opened before packets)"
    )
    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    at: str = Field(description="when the ledger recorded it")


@router.post(
    "/v1/receipts/{receipt_id}/usage",
    status_code=201,
    response_model=None,
    responses=answers(UsageOut, 404, 409, statuses=(201,)),
)
def record_usage(
    receipt_id: str,
    body: UsageIn,
    desk: UsageDeskDep,
    principal: Writer,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
) -> JSONResponse:
    """Record one inference's prompt-cache usage on its receipt, against the receipt's
    stable-prefix hash (a signed ``usage_recorded`` event); a repeated ``Idempotency-Key``
    answers the first record."""
    key = checked_idempotency_key(idempotency_key)
    result = desk.record(
        receipt_id,
        body.to_usage(),
        principal.actor,
        key,
        request_fingerprint(body.model_dump(mode="json")),
        principal.pins,
    )
    headers = {"Idempotency-Replayed": "true"} if result.replayed else None
    return JSONResponse(
        {"receipt_id": receipt_id, **result.record}, status_code=201, headers=headers
    )


class ReceiptSummary(BaseModel):
    """A receipt as ``GET /v1/receipts`` lists it (from the read model; the receipt itself is
    ``GET /v1/receipts/{receipt_id}``)."""

    receipt_id: str
    inference_id: str | None
    opened_by: str | None
    actor: str | None
    purpose: str | None
    policy_version: str
    route: str
    as_of: str
    expires_at: str | None
    opened_at: str
    status: str = Field(description="open or expired")
    expiry_reason: str | None
    position: int = Field(description="the log position of its opening")


@router.get(
    "/v1/receipts",
    response_model=Page[ReceiptSummary],
)
async def list_receipts_route(
    desk: ReceiptReadDeskDep,
    caller: Reader,
    limit: Limit = 100,
    after: After = None,
    actor: Annotated[str | None, Query(max_length=500)] = None,
    purpose: Annotated[str | None, Query(max_length=500)] = None,
    policy_version: Annotated[str | None, Query(max_length=500)] = None,
    status: Annotated[Literal["open", "expired"] | None, Query()] = None,
    opened_after: Annotated[Rfc3339 | None, Query(description="RFC 3339, exclusive")] = None,
    opened_before: Annotated[Rfc3339 | None, Query(description="RFC 3339, exclusive")] = None,
) -> dict[str, Any]:
    """Receipts in the order they were opened, filtered, a page at a time (a pinned key:
    only receipts opened for a principal it could claim, docs/access.md)."""
    key = decode_cursor("receipts", after, (int,))
    items, last = await desk.receipts_page(
        key,
        limit,
        caller.pins,
        actor=actor,
        purpose=purpose,
        policy_version=policy_version,
        status=status,
        opened_after=None if opened_after is None else ledger_time("opened_after", opened_after),
        opened_before=(
            None if opened_before is None else ledger_time("opened_before", opened_before)
        ),
    )
    return {"items": items, "next": None if last is None else encode_cursor("receipts", [last])}


@router.get("/v1/receipts/{receipt_id}", response_model=None, responses=answers(ReceiptOut, 404))
def get_receipt(
    receipt_id: str, desk: ReceiptDeskDep, caller: Reader, as_of: AsOfDep
) -> dict[str, Any]:
    """The receipt, its sealed pool, committed claims with every check, quarantined claims,
    as the ledger knew it at ``known_at`` (status, expiry and claims as they stood)."""
    receipt = desk.read(receipt_id, caller.pins, as_of.known_at)
    now = None if as_of.known_at is None else parse_time(as_of.known_at)
    body = receipt_document(receipt, now)
    if as_of.known_at is not None:
        body["as_of"] = {"known_at": as_of.known_at, "valid_at": as_of.valid_at}
    return body


@router.get(
    "/v1/receipts/{receipt_id}/envelope", response_model=None, responses=answers(Envelope, 404)
)
def get_envelope(receipt_id: str, desk: ReceiptReadDeskDep, caller: Reader) -> dict[str, Any]:
    """The receipt as a DSSE envelope signed with HMAC-SHA256 and Ed25519."""
    return desk.envelope(receipt_id, caller.pins)
