"""A commit the gate refused, as RFC 9457 problem details of type ``claims-rejected``.

Malformed requests keep ``invalid-input``; this type says the request was sound and the
claims did not stand, and carries every claim's verdict.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from api.errors import Problem


class BindingVerdict(BaseModel):
    """One binding's check results."""

    index: int
    span_id: str
    results: list[dict[str, Any]] = Field(description="[{check, outcome, reason}]")


class ClaimVerdict(BaseModel):
    """One claim's verdict in a rejection."""

    index: int = Field(description="the claim's index in the request")
    claim_id: str
    client_ref: str | None
    status: str = Field(description="verified, unverified or rejected")
    reasons: list[str] = Field(description="reason codes of its failed checks")
    bindings: list[BindingVerdict]


class ClaimsRejectedProblem(Problem):
    """A commit's 422: ``claims-rejected`` (the gate refused the commit; every claim's verdict
    and the commit body are included) or ``invalid-input`` (no ``claims``)."""

    claims: list[ClaimVerdict] | None = Field(
        default=None, description="`claims-rejected` only: every claim's verdict, in order"
    )


CLAIMS_REJECTED = "https://provledger.dev/problems/claims-rejected"


def claim_verdict(index: int, claim: dict[str, Any]) -> dict[str, Any]:
    """One claim's verdict as a rejection reports it: its index in the request, id, status,
    the reason codes of its failed checks, and each binding's check results."""
    checks = claim["checks"]
    return {
        "index": index,
        "claim_id": claim["claim_id"],
        "client_ref": claim["client_ref"],
        "status": claim["status"],
        "reasons": [c["reason"] for c in checks if c["outcome"] == "fail"],
        "bindings": [
            {
                "index": b_index,
                "span_id": binding["span_id"],
                "results": [
                    {"check": c["check"], "outcome": c["outcome"], "reason": c["reason"]}
                    for c in checks
                    if c.get("span_id") == binding["span_id"]
                ],
            }
            for b_index, binding in enumerate(claim["bindings"])
        ],
    }


def rejection_problem(body: dict[str, Any]) -> dict[str, Any]:
    """A gate rejection as RFC 9457 problem details (type ``claims-rejected``): every claim's
    verdict in ``claims``, each failed check in ``errors``, and the commit body."""
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
        "type": CLAIMS_REJECTED,
        "title": "Claims rejected",
        "status": 422,
        "detail": (
            f"{rejected} of {len(failed)} claims failed the gate; nothing was committed"
            if body["mode"] == "atomic"
            else f"all {len(failed)} claims failed the gate and were quarantined"
        ),
        "errors": errors,
        "claims": [claim_verdict(index, claim) for index, claim in enumerate(failed)],
        **body,
    }
