"""The context architecture router over HTTP: ``POST /v1/route``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from api.deps import require
from api.routes.access import problems
from ledger.keys.api_keys import Caller, Scope
from ledger.router import RouteRequest, route

router = APIRouter(tags=["router"])

Reader = Annotated[Caller, Depends(require(Scope.READ))]


class RouteIn(BaseModel):
    """What the router decides on (docs/router.md)."""

    model_config = ConfigDict(extra="forbid")
    task: Literal["lookup", "comparison", "question"]
    corpus_tokens: int = Field(
        strict=True, ge=0, le=10**12, description="tokens of the eligible corpus"
    )
    operating_length_tokens: int = Field(
        strict=True, ge=1, le=10**12, description="the length the task was tested to work at"
    )
    authoritative_source: bool = Field(
        strict=True, description="a source of record holds the facts"
    )
    entitlement: Literal["allowed", "partial", "denied"]
    temporal_conflict: bool = Field(default=False, strict=True)
    untrusted_instructions: bool = Field(default=False, strict=True)
    compression_drops_exception: bool = Field(default=False, strict=True)

    def to_request(self) -> RouteRequest:
        """The router's input."""
        return RouteRequest(**self.model_dump())


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


@router.post("/v1/route", response_model=RouteOut, responses=problems(401, 403, 422))
def decide_route(body: RouteIn, _: Reader) -> dict[str, Any]:
    """Choose one of five context architectures by the decision table; no scores."""
    return route(body.to_request()).to_json()
