"""Transformations of a receipt's evidence: recorded when their output keeps their declared
loss boundary (docs/receipts.md#transformations)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from api.deps import TransformationDeskDep, require
from api.errors import Problem
from api.openapi import answers
from ledger.keys.api_keys import Caller, Scope
from ledger.lossboundary import MayRemove, MustKeep
from ledger.receipts.transformations import MAX_INPUTS, Method, TransformationRequest

router = APIRouter(tags=["receipts"])

Writer = Annotated[Caller, Depends(require(Scope.CLAIMS_WRITE))]


def _listed(values: type[Method] | type[MayRemove] | type[MustKeep]) -> str:
    return ", ".join(f"`{item.value}`" for item in values)


class TransformationIn(BaseModel):
    """``POST /v1/receipts/{receipt_id}/transformations``."""

    model_config = ConfigDict(extra="forbid")
    method: str = Field(description=f"what was done to the inputs: {_listed(Method)}")
    inputs: list[str] = Field(
        max_length=MAX_INPUTS,
        description="the span ids it consumed, all of the receipt's sealed pool",
    )
    output: str = Field(description="the text it produced, as the model was shown it")
    may_remove: list[str] = Field(
        default_factory=list,
        max_length=len(MayRemove),
        description=f"what it may remove: {_listed(MayRemove)}",
    )
    must_keep: list[str] = Field(
        max_length=len(MustKeep),
        description=f"what it must keep of its inputs (at least one): {_listed(MustKeep)}",
    )


class TransformationInputOut(BaseModel):
    """One input span, as the receipt's pool sealed it."""

    span_id: str
    source_id: str
    version: int
    text_sha256: str


class LossCheckOut(BaseModel):
    """What the loss-boundary check found."""

    checker: str = Field(description="the check and its version")
    items: dict[str, dict[str, int]] = Field(
        description="per must-keep kind: how many items were found, released and kept"
    )
    released: list[dict[str, Any]] = Field(
        description="each item the boundary released: {must_keep, cue, item, span_id, released_by}"
    )


class TransformationOut(BaseModel):
    """A recorded transformation."""

    receipt_id: str
    transformation_id: str = Field(description="tfm_ + 24 hex digits, derived from its content")
    method: str
    inputs: list[TransformationInputOut]
    output: str
    may_remove: list[str]
    must_keep: list[str]
    check: LossCheckOut
    at: str = Field(description="when it was recorded (ledger time)")


class DroppedItem(BaseModel):
    """A must-keep item the output dropped."""

    must_keep: str
    cue: str = Field(
        description="figure, date, exception, condition, negation, hedge or minority view"
    )
    item: str = Field(description="the item as the input writes it")
    span_id: str
    input: int = Field(description="the span's index in `inputs`")


class LossBoundaryProblem(Problem):
    """A transformation's 422: ``loss-boundary`` (the output dropped must-keep items, each in
    ``dropped``) or ``invalid-input``."""

    dropped: list[DroppedItem] | None = Field(
        default=None, description="`loss-boundary` only: every must-keep item the output dropped"
    )


@router.post(
    "/v1/receipts/{receipt_id}/transformations",
    status_code=201,
    response_model=None,
    responses={
        **answers(TransformationOut, 404, 409, statuses=(201, 200)),
        422: {
            "model": LossBoundaryProblem,
            "description": "`loss-boundary`: the output dropped must-keep items of its inputs "
            "(each in `dropped`); `invalid-input`: a malformed request or an input outside the "
            "sealed pool",
        },
    },
)
def record_transformation(
    receipt_id: str, body: TransformationIn, desk: TransformationDeskDep, principal: Writer
) -> JSONResponse:
    """Record what the application did to evidence of the sealed pool before the model saw it,
    once its output keeps every must-keep item of its inputs (201); the same transformation
    sent again answers the recorded one (200)."""
    request = TransformationRequest(
        method=body.method,
        inputs=list(body.inputs),
        output=body.output,
        may_remove=list(body.may_remove),
        must_keep=list(body.must_keep),
    )
    recorded = desk.record(receipt_id, request, principal.actor, principal.pins)
    return JSONResponse(
        {"receipt_id": recorded.receipt_id, **recorded.transformation},
        status_code=201 if recorded.created else 200,
    )
