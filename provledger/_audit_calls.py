"""The calls of the service's health, its keys and access policies, and of audit: envelopes,
bundles, the transparency log, the event log, the review queue and provenance
(docs/api.md, docs/access.md, docs/audit.md, docs/replay.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import httpx

from provledger._operations import (
    Listing,
    Moment,
    get_listing,
    json_answer,
    json_item,
    model_item,
    segment,
    text_answer,
    time_param,
)
from provledger._transport import Request
from provledger.models import Event

ProvenanceFormat = Literal["prov-json", "jsonl"]


def health() -> Request[dict[str, Any]]:
    """Liveness (``GET /healthz``, no API key)."""
    return Request("GET", "/healthz", json_answer)


def readiness() -> Request[dict[str, Any]]:
    """Readiness and every check behind it (``GET /readyz``, no API key); a service that
    stays not ready raises :class:`provledger.ServiceUnavailable` after the retries."""
    return Request("GET", "/readyz", json_answer)


def metrics() -> Request[str]:
    """The Prometheus exposition (``GET /metrics``, scope ``metrics``)."""
    return Request("GET", "/metrics", text_answer)


def public_keys() -> Request[dict[str, Any]]:
    """The keyring that verifies the ledger (``GET /v1/keys``, no API key); save it as the
    trust root of :func:`provledger.verify_envelope` and :func:`provledger.verify_bundle`."""
    return Request("GET", "/v1/keys", json_answer)


def publish_policy(
    policy_version: str, rules: Sequence[Mapping[str, Any]], *, description: str = ""
) -> Request[dict[str, Any]]:
    """Publish an access policy version (``POST /v1/policies``, scope ``admin``,
    docs/access.md)."""
    body = {
        "policy_version": policy_version,
        "rules": [dict(rule) for rule in rules],
        "description": description,
    }
    return Request("POST", "/v1/policies", json_answer, json=body)


def get_policy(policy_version: str) -> Request[dict[str, Any]]:
    """A published or retired policy version (``GET /v1/policies/{policy_version}``)."""
    return Request("GET", f"/v1/policies/{segment(policy_version)}", json_answer)


def retire_policy(policy_version: str, reason: str) -> Request[dict[str, Any]]:
    """Retire a policy version: every receipt opened under it expires
    (``POST /v1/policies/{policy_version}/retire``, scope ``admin``)."""
    path = f"/v1/policies/{segment(policy_version)}/retire"
    return Request("POST", path, json_answer, json={"reason": reason})


def envelope(receipt_id: str) -> Request[dict[str, Any]]:
    """The receipt's DSSE envelope, for :func:`provledger.verify_envelope`
    (``GET /v1/receipts/{receipt_id}/envelope``)."""
    return Request("GET", f"/v1/receipts/{segment(receipt_id)}/envelope", json_answer)


def check_envelope(envelope: Mapping[str, Any]) -> Request[dict[str, Any]]:
    """The service's own checks of a receipt envelope, with its keys
    (``POST /v1/envelopes/verify``, scope ``audit:read``); offline, with keys you hold:
    :func:`provledger.verify_envelope`."""
    return Request("POST", "/v1/envelopes/verify", json_answer, json=dict(envelope))


def bundle(claim_id: str, *, since_size: int | None = None) -> Request[dict[str, Any]]:
    """The claim's citation-chain bundle, for :func:`provledger.verify_bundle`
    (``GET /v1/claims/{claim_id}/bundle``; ``since_size`` adds a consistency proof)."""
    path = f"/v1/claims/{segment(claim_id)}/bundle"
    return Request("GET", path, json_answer, params={"since_size": since_size})


def checkpoint(*, at: Moment = None) -> Request[str]:
    """The latest signed checkpoint (a C2SP note), or the latest at or before ``at``
    (``GET /v1/audit/checkpoint``)."""
    return Request("GET", "/v1/audit/checkpoint", text_answer, params={"at": time_param(at)})


def inclusion_proof(
    size: int, *, index: int | None = None, notification_id: int | None = None
) -> Request[dict[str, Any]]:
    """The proof that a leaf (``index``, or the event ``notification_id``) is in the tree of
    ``size`` (``GET /v1/audit/proofs/inclusion``)."""
    params = {"size": size, "index": index, "notification_id": notification_id}
    return Request("GET", "/v1/audit/proofs/inclusion", json_answer, params=params)


def consistency_proof(first: int, second: int) -> Request[dict[str, Any]]:
    """The proof that the tree of size ``second`` extends that of size ``first``
    (``GET /v1/audit/proofs/consistency``)."""
    params = {"first": first, "second": second}
    return Request("GET", "/v1/audit/proofs/consistency", json_answer, params=params)


def events(*, after: int | str = 0, page_size: int = 100) -> Listing[Event]:
    """Every event after position ``after``, oldest first, as stored and signed
    (``GET /v1/events``)."""
    listing = get_listing("/v1/events", {}, page_size, model_item(Event))
    return Listing(listing.page, listing.item, after=str(after) if after else None)


def review(*, page_size: int = 100) -> Listing[dict[str, Any]]:
    """The claims a sampled entailment check did not fully support, oldest first
    (``GET /v1/review``, scope ``audit:read``)."""
    return get_listing("/v1/review", {}, page_size, json_item)


def _provenance(response: httpx.Response) -> dict[str, Any] | str:
    if response.headers.get("content-type", "").startswith("application/x-ndjson"):
        return response.text
    body: dict[str, Any] = response.json()
    return body


def receipt_provenance(
    receipt_id: str, *, format: ProvenanceFormat = "prov-json"
) -> Request[dict[str, Any] | str]:
    """The receipt's provenance: W3C PROV-JSON (a ``dict``), or its signed events as JSON
    lines (``format="jsonl"``, a ``str``) (``GET /v1/receipts/{receipt_id}/provenance``)."""
    path = f"/v1/receipts/{segment(receipt_id)}/provenance"
    return Request("GET", path, _provenance, params={"format": format})


def source_provenance(
    source_id: str, *, format: ProvenanceFormat = "prov-json"
) -> Request[dict[str, Any] | str]:
    """The source's provenance, with the receipts and claims that stood on it: W3C PROV-JSON
    or JSON lines (``GET /v1/sources/{source_id}/provenance``)."""
    path = f"/v1/sources/{segment(source_id)}/provenance"
    return Request("GET", path, _provenance, params={"format": format})
