"""``POST /v1/retrieve``: hybrid retrieval over the registry, recorded in the ledger."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from api.bodies import PrincipalIn
from api.deps import RetrievalDeskDep, Rfc3339, require
from ledger.keys.api_keys import Caller, Scope
from ledger.retrieval.retrieval_desk import RetrievalRequest
from ledger.retrieval.retriever import MAX_K

router = APIRouter(tags=["retrieval"])

Retriever = Annotated[Caller, Depends(require(Scope.RETRIEVE))]
_PROBLEMS: dict[int | str, dict[str, Any]] = {
    401: {"description": "no or unknown API key (problem+json)"},
    403: {
        "description": "the key lacks the retrieve scope, or the principal claims more than "
        "the key pins: principal-not-pinned (problem+json)"
    },
    409: {"description": "the policy version named does not govern, or is retired (problem+json)"},
    413: {"description": "body too large (problem+json)"},
    422: {"description": "invalid input, naming the field and the rule (problem+json)"},
    500: {"description": "a served span failed verification: nothing was served"},
}


class FiltersIn(BaseModel):
    """Narrow the candidates before ranking."""

    model_config = ConfigDict(extra="forbid")
    source_ids: list[Annotated[str, Field(max_length=128)]] | None = Field(
        default=None, max_length=1000
    )
    authorities: list[Annotated[str, Field(max_length=32)]] | None = Field(
        default=None, max_length=10
    )


class RetrieveIn(BaseModel):
    """``POST /v1/retrieve``."""

    model_config = ConfigDict(extra="forbid")
    query: str = Field(max_length=4000)
    principal: PrincipalIn
    k: int = Field(default=10, strict=True, ge=1, le=MAX_K)
    as_of: Rfc3339 | None = Field(default=None, description="versions in force then; default now")
    filters: FiltersIn | None = None
    policy_version: str | None = Field(
        default=None,
        max_length=128,
        description="the access policy version the principal's entitlements are decided "
        "under: leave it out for the policy in force (recorded with the retrieval); naming "
        "another version is 409, one never published 422 (docs/access.md)",
    )


class Placement(BaseModel):
    """A span's place in one ranker's list."""

    rank: int
    score: float


class Scores(BaseModel):
    """Where each ranker put the span (null: not among its candidates) and its RRF score."""

    bm25: Placement | None
    dense: Placement | None
    rrf: float


class TableCell(BaseModel):
    """A table cell's reference and its citeable envelope."""

    table_id: str
    row: int
    col: int
    envelope: str | None


class ResultOut(BaseModel):
    """One retrieved span, verified against its source version's signed events."""

    span_id: str
    source_id: str
    version: int
    version_hash: str
    text: str
    breadcrumb: list[str]
    table: TableCell | None
    scores: Scores


class ExclusionOut(BaseModel):
    """How many candidates were withheld under one safe code."""

    code: str
    count: int


class RetrievalOut(BaseModel):
    """The recorded retrieval: pass ``retrieval_id`` to ``POST /v1/receipts``."""

    retrieval_id: str
    as_of: str
    results: list[ResultOut]
    exclusions: list[ExclusionOut]
    rankers: list[dict[str, str]]


@router.post("/v1/retrieve", response_model=RetrievalOut, responses=_PROBLEMS)
def retrieve(body: RetrieveIn, desk: RetrievalDeskDep, caller: Retriever) -> dict[str, Any]:
    """Rank the spans in force at ``as_of`` by BM25 and dense similarity, fuse by RRF
    (k = 60), withhold what the principal may not see and what fails the lexical gate, and
    record the retrieval as a signed event."""
    filters = body.filters
    request = RetrievalRequest(
        body.query,
        body.principal.as_stated(),
        body.k,
        body.as_of,
        None if filters is None or filters.source_ids is None else tuple(filters.source_ids),
        None if filters is None or filters.authorities is None else tuple(filters.authorities),
        None if filters is None else filters.model_dump(exclude_none=True),
        body.policy_version,
    )
    # The principal, bounded by the key's pins (403 before anything is read), is decided by
    # the policy in force against each source's verified access attributes (docs/access.md).
    answer = desk.answer(request, caller.pins, caller.actor)
    return {
        "retrieval_id": answer.retrieval_id,
        "as_of": answer.as_of,
        "results": [
            {
                "span_id": span.span_id,
                "source_id": span.source_id,
                "version": span.version,
                "version_hash": span.version_hash,
                "text": span.text,
                "breadcrumb": list(span.heading_path),
                "table": (
                    None
                    if hit.span.table_ref is None
                    else {**hit.span.table_ref, "envelope": span.envelope}
                ),
                "scores": hit.scores(),
            }
            for hit, span in answer.hits
        ],
        "exclusions": answer.exclusions,
        "rankers": answer.rankers,
    }
