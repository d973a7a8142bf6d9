"""The context architecture router over HTTP: ``POST /v1/route``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from api.bodies import RouteIn
from api.deps import require
from api.openapi import access_problems
from ledger.keys.api_keys import Caller, Scope
from ledger.router import route

router = APIRouter(tags=["router"])

Reader = Annotated[Caller, Depends(require(Scope.READ))]


class BudgetOut(BaseModel):
    """Whole tokens of the operating length per budget."""

    evidence: int
    background: int
    instruction: int
    verification: int


class RouteOut(BaseModel):
    """The router's decision."""

    router: str = Field(description="the decision table's version")
    outcome: Literal[
        "deterministic_state",
        "hybrid_retrieval",
        "long_context",
        "ask_abstain_escalate",
        "redesign",
    ]
    row: str = Field(description="the deciding row of the table (docs/router.md)")
    gates: list[str]
    budget: BudgetOut
    evidence_gap: str
    reasons: list[str]
    input: RouteIn


@router.post("/v1/route", response_model=RouteOut, responses=access_problems(401, 403, 422))
def decide_route(body: RouteIn, _: Reader) -> dict[str, Any]:
    """Choose one of five context architectures by the decision table; no scores."""
    return route(body.to_request()).to_json()
