"""The response bodies of what hangs off a receipt and of the changes that expire receipts: its
outcome and downstream actions, the receipts a change touches or expired."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api.schemas import SourceOut


class ActionOut(BaseModel):
    """A downstream action a receipt's outcome named, and when it was first recorded."""

    action_id: str
    kind: str
    target: str
    recorded_at: str


class OutcomeSummary(BaseModel):
    """A receipt's latest outcome: the decision, the reviewer, who recorded it and when."""

    decision: str
    reviewer: str | None
    recorded_by: str
    at: str


class AffectedReceipt(BaseModel):
    """A receipt a change touches: its status and what hangs off it, from its verified
    events, so an operator can replay, remedy or document non-impact."""

    receipt_id: str
    status: str = Field(description="open or expired")
    expiry_reason: str | None = Field(description="the first expiry's reason")
    outcome: OutcomeSummary | None = Field(description="null when none was recorded")
    actions: list[ActionOut] = Field(description="every downstream action its outcomes named")


class ExpiredReceipt(AffectedReceipt):
    """A receipt one change expired, with the reason that change gave it."""

    reason: str


class ExpiredList(BaseModel):
    """The receipts one change expired (its cause, ``n<log position>``), a page at a time:
    page on with ``GET /v1/expiries?cause=<cause>&after=<next>``."""

    cause: str | None = Field(description="null when the write changed nothing")
    items: list[ExpiredReceipt]
    next: str | None = Field(description="pass as ?after= for the next page; null on the last")


class WithdrawnOut(SourceOut):
    """A withdrawn source, and the receipts its withdrawal expired."""

    expired: ExpiredList


class PolicyRetired(BaseModel):
    """A retired policy version and the receipts that expired with it."""

    policy_version: str
    status: str
    receipts_expired: int
    expired: ExpiredList
