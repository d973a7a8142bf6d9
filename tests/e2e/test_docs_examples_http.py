"""The examples of docs/receipts.md, sent as written (their shell variables filled in)."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_the_receipts_guide_example_opens_a_receipt_and_commits_a_verified_claim(
    client: TestClient, auth
) -> None:  # type: ignore[no-untyped-def]
    headers = auth("ingest", "claims:write", name="app")
    source = {
        "source_id": "report-2023",
        "title": "Annual report",
        "authority": "source_of_record",
        "text": (
            "Revenue rose 2.2% to $4.5 million in fiscal 2023. "
            "The board did not approve a dividend."
        ),
        "effective_from": "2024-01-01T00:00:00Z",
    }
    span = client.post("/v1/sources", json=source, headers=headers).json()["spans"][0]["span_id"]
    opening = {
        "request": "How did revenue develop in 2023?",
        "actor": "user-42",
        "purpose": "analyst-qa",
        "route": "hybrid_retrieval",
        "model": {"name": "example-model", "version": "2026-10"},
        "tools": ["search"],
        "evidence": [span],
        "excluded": [{"ref": "doc-9", "reason_code": "access_denied"}],
        "as_of": "2024-03-01T00:00:00Z",
        "expires_at": "2030-03-01T00:00:00Z",
        "budget": {"max_tokens": 4000},
    }
    opened = client.post("/v1/receipts", json=opening, headers=headers)
    assert opened.status_code == 201, opened.text
    commit = {
        "mode": "atomic",
        "claims": [
            {
                "client_ref": "c1",
                "text": "Revenue rose 2.2% to $4.5 million in fiscal 2023.",
                "type": "factual",
                "material": True,
                "bindings": [
                    {
                        "span_id": span,
                        "role": "primary_support",
                        "quote": "Revenue rose 2.2% to $4.5 million",
                    }
                ],
            }
        ],
        "rendered_answer": f"Revenue grew 2.2% [{span}].",
    }

    response = client.post(
        f"/v1/receipts/{opened.json()['receipt_id']}/claims",
        json=commit,
        headers={**headers, "Idempotency-Key": "answer-7781"},
    )

    assert response.status_code == 201, response.text
    assert response.json()["committed"][0]["status"] == "verified"
