"""A receipt's outcome: the decision, the reviewer and the downstream actions taken on it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from api.deps import OutcomeDeskDep, require
from api.expiry_schemas import ActionOut
from api.openapi import answers
from api.schemas import ReceiptStatus
from ledger.keys.api_keys import Caller, Scope
from ledger.receipts.outcomes import (
    MAX_ACTIONS,
    MAX_DECISION,
    MAX_REVIEWER,
    MAX_TARGET,
    Action,
    OutcomeRequest,
)

router = APIRouter(tags=["receipts"])
Writer = Annotated[Caller, Depends(require(Scope.CLAIMS_WRITE))]


class ActionIn(BaseModel):
    """One downstream action taken on the receipt's answer."""

    model_config = ConfigDict(extra="forbid")
    action_id: str = Field(
        description="the caller's id of the action, unique in the request ([A-Za-z0-9._:-]"
        "{1,128}); it names the same action in every later outcome of the receipt"
    )
    kind: str = Field(description="a code: [a-z0-9][a-z0-9_.-]{0,63}, e.g. refund, email")
    target: str = Field(description=f"what it acted on, 1 to {MAX_TARGET} characters")


class OutcomeIn(BaseModel):
    """``POST /v1/receipts/{receipt_id}/outcome``."""

    model_config = ConfigDict(extra="forbid")
    decision: str = Field(description=f"what was decided, 1 to {MAX_DECISION} characters")
    actions: list[ActionIn] = Field(
        default_factory=list, description=f"downstream actions taken, at most {MAX_ACTIONS}"
    )
    reviewer: str | None = Field(
        default=None,
        description=f"who reviewed the decision (an id, not a secret), 1 to {MAX_REVIEWER} "
        "characters",
    )

    def to_request(self) -> OutcomeRequest:
        """The outcome as the desk checks it."""
        return OutcomeRequest(
            decision=self.decision,
            actions=tuple(Action(a.action_id, a.kind, a.target) for a in self.actions),
            reviewer=self.reviewer,
        )


class RecordedAction(BaseModel):
    """An action as one outcome recorded it."""

    action_id: str
    kind: str
    target: str


class OutcomeRecord(BaseModel):
    """One recorded outcome."""

    decision: str
    reviewer: str | None
    actions: list[RecordedAction]
    recorded_by: str = Field(description="the API key's actor that recorded it")
    at: str


class OutcomeOut(BaseModel):
    """The receipt's status, latest outcome, every outcome (oldest first) and every
    downstream action its outcomes named."""

    receipt_id: str
    status: ReceiptStatus
    outcome: OutcomeRecord | None
    outcomes: list[OutcomeRecord]
    actions: list[ActionOut]


@router.post(
    "/v1/receipts/{receipt_id}/outcome",
    status_code=201,
    response_model=None,
    responses=answers(OutcomeOut, 404, 409, statuses=(201, 200)),
)
async def record_outcome(
    receipt_id: str, body: OutcomeIn, desk: OutcomeDeskDep, principal: Writer
) -> JSONResponse:
    """Record the decision taken on the receipt's answer, its reviewer and the downstream
    actions, as a signed event (201). A later outcome amends the decision; the same body as
    the latest outcome answers it again and writes nothing (200)."""
    answer, recorded = await run_in_threadpool(
        desk.record, receipt_id, body.to_request(), principal.actor, principal.pins
    )
    return JSONResponse(answer, status_code=201 if recorded else 200)
