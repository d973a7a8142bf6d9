"""Request flows the end-to-end tests share: register a source, open a receipt, commit."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def register(
    client: TestClient, headers: dict[str, str], source_id: str, text: str, **extra: Any
) -> list[dict[str, Any]]:
    """Register a source (201 expected) and return its spans."""
    body = {
        "source_id": source_id,
        "title": source_id.upper(),
        "authority": "derived",
        "text": text,
        **extra,
    }
    response = client.post("/v1/sources", json=body, headers=headers)
    assert response.status_code == 201, response.text
    spans: list[dict[str, Any]] = response.json()["spans"]
    return spans


def receipt_body(evidence: list[str], **extra: Any) -> dict[str, Any]:
    """A ``POST /v1/receipts`` body over ``evidence``; ``extra`` adds or replaces fields."""
    return {
        "request": "q",
        "actor": "u",
        "purpose": "p",
        "policy_version": "default",
        "route": "long_context",
        "model": {"name": "m", "version": "1"},
        "evidence": evidence,
        **extra,
    }


def open_receipt(
    client: TestClient, headers: dict[str, str], evidence: list[str], **extra: Any
) -> str:
    """Open a receipt over ``evidence`` (201 expected) and return its id."""
    body = receipt_body(evidence, **extra)
    response = client.post("/v1/receipts", json=body, headers=headers)
    assert response.status_code == 201, response.text
    receipt_id: str = response.json()["receipt_id"]
    return receipt_id


def commit_verbatim(
    client: TestClient, headers: dict[str, str], receipt_id: str, span: dict[str, Any]
) -> dict[str, Any]:
    """Commit one claim that repeats ``span`` verbatim; return the committed claim."""
    body = {"claims": [{"text": span["text"], "bindings": [{"span_id": span["span_id"]}]}]}
    response = client.post(f"/v1/receipts/{receipt_id}/claims", json=body, headers=headers)
    assert response.status_code == 201, response.text
    claim: dict[str, Any] = response.json()["committed"][0]
    return claim
