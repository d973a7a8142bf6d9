"""The calls of an answer's path: retrieval, the router, receipts, their transformations,
claims and outcome, repair and locating spans (docs/receipts.md, docs/retrieval.md,
docs/router.md, docs/corrections.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from provledger._operations import (
    Listing,
    Moment,
    get_listing,
    idempotency,
    json_answer,
    model_answer,
    model_item,
    present,
    segment,
    time_param,
)
from provledger._transport import Request
from provledger.models import (
    Claim,
    CommitResult,
    Outcome,
    Receipt,
    Retrieval,
    Transformation,
)


def retrieve(
    query: str,
    *,
    principal: Mapping[str, Any],
    k: int = 10,
    as_of: Moment = None,
    filters: Mapping[str, Any] | None = None,
    policy_version: str | None = None,
) -> Request[Retrieval]:
    """Hybrid retrieval over the versions in force at ``as_of``, for what ``principal``
    (``{roles, units, groups, purpose, destination}``) may see, recorded as a signed event;
    pass its ``retrieval_id`` to :meth:`open_receipt` (``POST /v1/retrieve``)."""
    body = {
        "query": query,
        "principal": dict(principal),
        "k": k,
        "as_of": time_param(as_of),
        "filters": None if filters is None else dict(filters),
        "policy_version": policy_version,
    }
    return Request("POST", "/v1/retrieve", model_answer(Retrieval), json=present(body))


def decide_route(
    *,
    task: str,
    corpus_tokens: int,
    operating_length_tokens: int,
    authoritative_source: bool,
    entitlement: str,
    temporal_conflict: bool = False,
    untrusted_instructions: bool = False,
    compression_drops_exception: bool = False,
) -> Request[dict[str, Any]]:
    """The router's decision: route, gates and budget split (``POST /v1/route``,
    docs/router.md)."""
    body = {
        "task": task,
        "corpus_tokens": corpus_tokens,
        "operating_length_tokens": operating_length_tokens,
        "authoritative_source": authoritative_source,
        "entitlement": entitlement,
        "temporal_conflict": temporal_conflict,
        "untrusted_instructions": untrusted_instructions,
        "compression_drops_exception": compression_drops_exception,
    }
    return Request("POST", "/v1/route", json_answer, json=body)


def open_receipt(
    *,
    request: str,
    actor: str,
    purpose: str,
    model: Mapping[str, str],
    evidence: Sequence[str] = (),
    retrieval_id: str | None = None,
    routing: Mapping[str, Any] | None = None,
    route: str | None = None,
    principal: Mapping[str, Any] | None = None,
    candidates: Sequence[str] = (),
    policy_version: str | None = None,
    inference_id: str | None = None,
    tools: Sequence[str] = (),
    excluded: Sequence[Mapping[str, str]] = (),
    as_of: Moment = None,
    expires_at: Moment = None,
    budget: Mapping[str, Any] | None = None,
    context_assembly: Mapping[str, str] | None = None,
    memory: Sequence[str] = (),
    idempotency_key: str | None = None,
) -> Request[Receipt]:
    """Open a receipt and seal its evidence pool (``POST /v1/receipts``): ``evidence``, the
    span ids the model was shown, or ``retrieval_id``, a retrieval of this key whose spans
    are the pool. ``model`` is ``{"name", "version"}``; ``routing`` the router's input (the
    ledger decides the route and records it; ``route`` declares one, deprecated);
    ``principal`` on whose behalf, bounded by the key's pins; ``candidates`` spans a search
    surfaced (denied ones are recorded as safe exclusions); ``policy_version`` left out: the
    policy in force; ``context_assembly`` (``{"name", "version"}``) the version of the code
    that assembled the context; ``memory`` memory item ids the model is shown beside the
    evidence (docs/memory.md)."""
    body = {
        "request": request,
        "actor": actor,
        "purpose": purpose,
        "model": dict(model),
        "evidence": list(evidence),
        "retrieval_id": retrieval_id,
        "routing": None if routing is None else dict(routing),
        "route": route,
        "principal": None if principal is None else dict(principal),
        "candidates": list(candidates),
        "policy_version": policy_version,
        "inference_id": inference_id,
        "tools": list(tools),
        "excluded": [dict(item) for item in excluded],
        "as_of": time_param(as_of),
        "expires_at": time_param(expires_at),
        "budget": None if budget is None else dict(budget),
        "context_assembly": None if context_assembly is None else dict(context_assembly),
        "memory": list(memory) or None,
    }
    return Request(
        "POST",
        "/v1/receipts",
        model_answer(Receipt),
        json=present(body),
        headers=idempotency(idempotency_key),
    )


def _commit_result(response: httpx.Response) -> CommitResult:
    replayed = response.headers.get("idempotency-replayed") == "true"
    return CommitResult.model_validate({**response.json(), "replayed": replayed})


def commit_claims(
    receipt_id: str,
    claims: Sequence[Mapping[str, Any]],
    *,
    mode: str = "atomic",
    rendered_answer: str | None = None,
    repair: bool = False,
    idempotency_key: str | None = None,
    usage: Mapping[str, int] | None = None,
) -> Request[CommitResult]:
    """Run claims (``{"text", "bindings": [{"span_id", "quote"?}], "type"?}``) through the
    gate and commit them (``POST /v1/receipts/{receipt_id}/claims``); raises
    :class:`provledger.ClaimsRejected` when the gate refuses the commit. ``usage``: the
    inference's prompt-cache token counts (``input_tokens``,
    ``cache_creation_input_tokens``, ``cache_read_input_tokens``), recorded with it."""
    body: dict[str, Any] = {"mode": mode, "claims": [dict(claim) for claim in claims]}
    if rendered_answer is not None:
        body["rendered_answer"] = rendered_answer
    if repair:
        body["repair"] = True
    if usage is not None:
        body["usage"] = dict(usage)
    return Request(
        "POST",
        f"/v1/receipts/{segment(receipt_id)}/claims",
        _commit_result,
        json=body,
        headers=idempotency(idempotency_key),
    )


def record_transformation(
    receipt_id: str,
    *,
    method: str,
    inputs: Sequence[str],
    output: str,
    must_keep: Sequence[str],
    may_remove: Sequence[str] = (),
) -> Request[Transformation]:
    """Record what was done to evidence of the receipt's pool before the model saw it
    (``method``: compression, summary, deduplication or translation) once ``output`` keeps
    every ``must_keep`` item of the ``inputs`` spans; raises :class:`provledger.LossBoundary`
    naming each item it dropped. Sending the same transformation again answers the recorded
    one (``POST /v1/receipts/{receipt_id}/transformations``)."""
    body = {
        "method": method,
        "inputs": list(inputs),
        "output": output,
        "may_remove": list(may_remove),
        "must_keep": list(must_keep),
    }
    path = f"/v1/receipts/{segment(receipt_id)}/transformations"
    return Request("POST", path, model_answer(Transformation), json=body)


def record_usage(
    receipt_id: str,
    input_tokens: int,
    *,
    cache_creation_input_tokens: int = 0,
    cache_read_input_tokens: int = 0,
    idempotency_key: str | None = None,
) -> Request[dict[str, Any]]:
    """Record one inference's prompt-cache usage on its receipt, against its stable-prefix
    hash (for a commit, pass ``usage`` to :meth:`commit_claims` instead); answers the record
    (``POST /v1/receipts/{receipt_id}/usage``)."""
    body = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": cache_creation_input_tokens,
        "cache_read_input_tokens": cache_read_input_tokens,
    }
    path = f"/v1/receipts/{segment(receipt_id)}/usage"
    return Request("POST", path, json_answer, json=body, headers=idempotency(idempotency_key))


def record_outcome(
    receipt_id: str,
    decision: str,
    *,
    actions: Sequence[Mapping[str, str]] = (),
    reviewer: str | None = None,
) -> Request[Outcome]:
    """Record the decision taken on a receipt's answer, its reviewer and the downstream
    actions (``{"action_id", "kind", "target"}``); a later outcome amends the decision
    (``POST /v1/receipts/{receipt_id}/outcome``)."""
    body: dict[str, Any] = {"decision": decision, "actions": [dict(a) for a in actions]}
    if reviewer is not None:
        body["reviewer"] = reviewer
    path = f"/v1/receipts/{segment(receipt_id)}/outcome"
    return Request("POST", path, model_answer(Outcome), json=body)


def get_receipt(
    receipt_id: str, *, known_at: Moment = None, valid_at: Moment = None
) -> Request[Receipt]:
    """A receipt with its pool, claims (in commit order) and status, as known at
    ``known_at`` (``GET /v1/receipts/{receipt_id}``)."""
    params = {"known_at": time_param(known_at), "valid_at": time_param(valid_at)}
    path = f"/v1/receipts/{segment(receipt_id)}"
    return Request("GET", path, model_answer(Receipt), params=params)


def receipts(
    *,
    actor: str | None = None,
    purpose: str | None = None,
    policy_version: str | None = None,
    status: str | None = None,
    opened_after: Moment = None,
    opened_before: Moment = None,
    page_size: int = 100,
) -> Listing[Receipt]:
    """Every receipt matching the filters (``status``: ``open`` or ``expired``; the times
    exclusive), in opening order, as summaries, following the list's cursor
    (``GET /v1/receipts``)."""
    params = {
        "actor": actor,
        "purpose": purpose,
        "policy_version": policy_version,
        "status": status,
        "opened_after": time_param(opened_after),
        "opened_before": time_param(opened_before),
    }
    return get_listing("/v1/receipts", params, page_size, model_item(Receipt))


def get_claim(claim_id: str, *, known_at: Moment = None, valid_at: Moment = None) -> Request[Claim]:
    """A committed claim rendered with its bindings and warnings, as known at ``known_at``
    (``GET /v1/claims/{claim_id}``)."""
    params = {"known_at": time_param(known_at), "valid_at": time_param(valid_at)}
    return Request("GET", f"/v1/claims/{segment(claim_id)}", model_answer(Claim), params=params)


def claims(
    *,
    receipt_id: str | None = None,
    source_id: str | None = None,
    status: str | None = None,
    page_size: int = 100,
) -> Listing[Claim]:
    """Every claim matching the filters (``source_id``: a binding to it; ``status``:
    ``verified``, ``unverified`` or ``rejected``), as summaries, in log order (one
    receipt's: in commit order), following the list's cursor (``GET /v1/claims``)."""
    params = {"receipt_id": receipt_id, "source_id": source_id, "status": status}
    return get_listing("/v1/claims", params, page_size, model_item(Claim))


def context_packet(receipt_id: str) -> Request[dict[str, Any]]:
    """The receipt's sealed pool as the context packet the model is shown
    (``GET /v1/receipts/{receipt_id}/context``)."""
    return Request("GET", f"/v1/receipts/{segment(receipt_id)}/context", json_answer)


def receipt_access(receipt_id: str) -> Request[dict[str, Any]]:
    """The receipt's recorded entitlement decisions (``GET /v1/receipts/{receipt_id}/access``,
    scope ``audit:read``)."""
    return Request("GET", f"/v1/receipts/{segment(receipt_id)}/access", json_answer)


def repair_claim(receipt_id: str, claim_id: str) -> Request[dict[str, Any]]:
    """Re-attribute a claim that failed within the receipt's sealed pool
    (``POST /v1/receipts/{receipt_id}/claims/{claim_id}/repair``)."""
    path = f"/v1/receipts/{segment(receipt_id)}/claims/{segment(claim_id)}/repair"
    return Request("POST", path, json_answer)


def locate(
    answer: str,
    chunks: Mapping[str, Mapping[str, Any]],
    *,
    threshold: float | None = None,
    confidence: float | None = None,
) -> Request[dict[str, Any]]:
    """For each sentence of an answer with ``[n]`` markers, the span of the cited chunks
    behind it, or none (``POST /v1/locate``)."""
    body = {
        "answer": answer,
        "chunks": {name: dict(chunk) for name, chunk in chunks.items()},
        "threshold": threshold,
        "confidence": confidence,
    }
    return Request("POST", "/v1/locate", json_answer, json=present(body))
