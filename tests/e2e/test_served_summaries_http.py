"""The receipt and claim lists serve their rows only as the signed events hold them: attackers
first.

An attacker with write access to the read-model database edits a receipt's row (its request,
actor, purpose, context, times, expiry), a claim's row (status, receipt, client reference,
whether it was committed, a row the events never wrote), a claim's cited source and a review
entry's text and verdict. Every list that renders those rows (``GET /v1/receipts``,
``GET /v1/claims`` and its filters, the affected lists, the review queue, the console's
receipts, replay and source pages) must refuse with ``ledger-integrity`` or serve exactly what
it served before the edit. A row an edit moves out of a list cannot be seen missing by the
list (``provledger verify --read-models`` names it); nothing edited is ever served.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.access.attributes import Pins
from ledger.receipts.receipt_ids import receipt_aggregate_id
from ledger.runtime import LedgerRuntime
from tests.e2e.console.conftest import HTML, sign_in
from tests.e2e.flows import commit_verbatim, open_receipt, receipt_body, register
from tests.tamper import Tamperer

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice."
OTHER = "The refund policy allows reversal within 30 days of the charge."
OLD = "Headcount was 41 at the end of 2022."
EDITED = "FORGED"


@dataclass
class Ledger:
    """Three sources; receipt ``a`` (one verified claim on ``memo``, judged ``no`` by a
    sampled entailment check) and receipt ``b`` (one claim on ``old``, expired when ``old``
    was superseded)."""

    headers: dict[str, str]
    a: str
    b: str
    claim: str


def _seed(client: TestClient, auth: Any, runtime: LedgerRuntime) -> Ledger:
    headers = auth("ingest", "read", "claims:write", "audit:read", name="app")
    memo = register(client, headers, "memo", TEXT)
    register(client, headers, "other", OTHER)
    old = register(client, headers, "old", OLD)
    a = open_receipt(
        client, headers, [memo[0]["span_id"]], request="What did revenue do?", actor="alice"
    )
    claim = commit_verbatim(client, headers, a, memo[0])["claim_id"]
    b = open_receipt(client, headers, [old[0]["span_id"]], actor="bob", purpose="hr")
    commit_verbatim(client, headers, b, old[0])
    added = client.post(
        "/v1/sources/old/versions", json={"text": "Headcount was 44."}, headers=headers
    )
    assert added.status_code == 201, added.text
    receipt = runtime.ledger.repository.get(receipt_aggregate_id(a))
    assert receipt.judge_entailment(claim, "no", "http", "fake-1", "No.", "entailment:sampler")
    runtime.ledger.commit(receipt)
    client.app.state.services.read_side.catch_up()  # type: ignore[attr-defined]
    expired = client.get("/v1/receipts", params={"status": "expired"}, headers=headers).json()
    assert [r["receipt_id"] for r in expired["items"]] == [b]
    return Ledger(headers, a, b, claim)


def _reads(client: TestClient, seeded: Ledger) -> dict[str, Any]:
    headers = seeded.headers
    api = {
        "receipts": "/v1/receipts",
        "claims": "/v1/claims",
        "claims of a": f"/v1/claims?receipt_id={seeded.a}",
        "claims on memo": "/v1/claims?source_id=memo",
        "claims on other": "/v1/claims?source_id=other",
        "affected memo": "/v1/sources/memo/versions/1/affected",
        "affected other": "/v1/sources/other/versions/1/affected",
        "affected old": "/v1/sources/old/versions/1/affected",
        "review": "/v1/review",
    }
    console = {
        "console receipts": "/console/receipts",
        "console replay": "/console/replay?at=2999-01-01",
        "console memo": "/console/sources/memo",
        "console other": "/console/sources/other",
        "console old": "/console/sources/old",
    }
    reads: dict[str, Any] = {name: client.get(path, headers=headers) for name, path in api.items()}
    reads.update({name: client.get(path, headers=HTML) for name, path in console.items()})
    return reads


@dataclass(frozen=True)
class Edit:
    """An edit of the read model and the reads it moves a row out of (left out there, the
    row cannot be seen missing; ``verify --read-models`` names it)."""

    apply: Callable[[Tamperer, Ledger], None]
    omits: frozenset[str] = frozenset()


def _rows(table: str, assignments: str, where: str) -> Callable[[Tamperer, Ledger], None]:
    """UPDATE ``table`` SET ``assignments`` WHERE ``where`` (``{a}``, ``{b}``, ``{claim}``
    in either name the seeded ids)."""

    def apply(tamper: Tamperer, seeded: Ledger) -> None:
        ids = {"a": seeded.a, "b": seeded.b, "claim": seeded.claim}
        tamper.read_model(f"UPDATE {table} SET {assignments} WHERE {where}".format(**ids))

    return apply


def _claim_inserted(tamper: Tamperer, seeded: Ledger) -> None:
    tamper.read_model(
        "INSERT INTO receipt_claims (claim_id, receipt_id, ordinal, status, committed, "
        "client_ref, claim_type, recorded_at, position) VALUES "
        "(%s, %s, 7, 'verified', 1, NULL, 'factual', '2030-01-01T00:00:00.000000Z', 99999)",
        f"clm_{EDITED}",
        seeded.a,
    )


EDITS: dict[str, Edit] = {
    "request-edited": Edit(
        _rows("receipts", f"request = '{EDITED} question'", "receipt_id = '{a}'")
    ),
    "actor-edited": Edit(_rows("receipts", f"actor = '{EDITED}'", "receipt_id = '{a}'")),
    "purpose-edited": Edit(_rows("receipts", f"purpose = '{EDITED}'", "receipt_id = '{a}'")),
    "context-edited": Edit(
        _rows(
            "receipts",
            f"policy_version = '{EDITED}', route = '{EDITED}', opened_by = '{EDITED}', "
            f"inference_id = '{EDITED}', as_of = '2001-01-01T00:00:00.000000Z'",
            "receipt_id = '{a}'",
        )
    ),
    "times-edited": Edit(
        _rows(
            "receipts",
            "opened_at = '2001-01-01T00:00:00.000000Z', expires_at = '2998-12-31T00:00:00.000000Z'",
            "receipt_id = '{a}'",
        )
    ),
    "expiry-invented": Edit(
        _rows(
            "receipts",
            "expired_at = '2001-01-01T00:00:00.000000Z', expiry_reason = 'policy_retired'",
            "receipt_id = '{a}'",
        )
    ),
    "expiry-erased": Edit(
        _rows("receipts", "expired_at = NULL, expiry_reason = NULL", "receipt_id = '{b}'")
    ),
    "claim-status-edited": Edit(
        _rows("receipt_claims", "status = 'unverified'", "claim_id = '{claim}'")
    ),
    "claim-moved-to-another-receipt": Edit(
        _rows("receipt_claims", "receipt_id = '{b}'", "claim_id = '{claim}'"),
        frozenset({"claims of a"}),
    ),
    "claim-reference-edited": Edit(
        _rows(
            "receipt_claims",
            f"client_ref = '{EDITED}', claim_type = 'numeric', ordinal = 5, "
            "recorded_at = '2001-01-01T00:00:00.000000Z'",
            "claim_id = '{claim}'",
        )
    ),
    "claim-uncommitted": Edit(
        _rows("receipt_claims", "committed = 0", "claim_id = '{claim}'"),
        frozenset({"affected memo", "console memo"}),
    ),
    "claim-row-inserted": Edit(_claim_inserted),
    "cited-source-edited": Edit(
        _rows("claim_bindings", "source_id = 'other'", "claim_id = '{claim}'"),
        frozenset({"claims on memo", "affected memo", "console memo"}),
    ),
    "cited-span-edited": Edit(
        _rows("claim_bindings", f"span_id = '{EDITED}'", "claim_id = '{claim}'")
    ),
    "review-text-edited": Edit(
        _rows("review_queue", f"claim_text = '{EDITED} revenue rose'", "claim_id = '{claim}'")
    ),
    "review-verdict-edited": Edit(
        _rows("review_queue", "verdict = 'partial', model = 'other-1'", "claim_id = '{claim}'")
    ),
}


def _items(body: Any) -> list[str]:
    return [json.dumps(item, sort_keys=True) for item in body.get("items", [])]


def _served_only_what_was(name: str, before: Any, after: Any, omits: bool) -> None:
    """``after`` (a 200) serves nothing ``before`` did not: the same answer, or, where the
    edit moves a row out of the list, a part of it."""
    if not omits:
        assert after.text == before.text, name
        return
    if name.startswith("console"):
        assert EDITED not in after.text, name  # a page missing a row: nothing edited on it
        return
    left, right = before.json(), after.json()
    assert set(_items(right)) <= set(_items(left)), name


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_receipt_or_claim_row_edited_in_the_read_model_is_never_listed(
    client: TestClient, auth: Any, runtime: LedgerRuntime, edit: str
) -> None:
    seeded = _seed(client, auth, runtime)
    sign_in(client, seeded.headers["Authorization"].split()[1])
    before = _reads(client, seeded)
    for name, response in before.items():
        assert response.status_code == 200, (name, response.text[:300])

    EDITS[edit].apply(Tamperer(runtime), seeded)
    after = _reads(client, seeded)

    refused = []
    for name, response in after.items():
        assert response.status_code in (200, 500), (edit, name, response.text[:300])
        if response.status_code == 500:
            assert "ledger-integrity" in response.text, (edit, name, response.text[:300])
            refused.append(name)
        else:
            _served_only_what_was(name, before[name], response, name in EDITS[edit].omits)
    assert refused, edit  # every edit here shows in some list: it is refused there


def _pinned(runtime: LedgerRuntime, name: str, **pins: list[str]) -> dict[str, str]:
    secret = runtime.api_keys.issue(name, ["claims:write", "read"], "test:suite", Pins.parse(pins))
    return {"Authorization": f"Bearer {secret}"}


def test_a_pinned_key_cannot_tell_a_hidden_receipts_edited_row_from_an_intact_one(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    ingest = auth("ingest", "read", name="ingester")
    restricted = {"groups": ["investigations"], "purposes": ["fraud-review"]}
    secret = register(client, ingest, "case", TEXT, access=restricted)[0]
    public = register(client, ingest, "refunds", OTHER)[0]
    case_app = _pinned(runtime, "case-app", groups=["investigations"], purposes=["fraud-review"])
    support = _pinned(runtime, "support-app", groups=["support"], purposes=["fraud-review"])
    principal = {"purpose": "fraud-review"}
    hidden = client.post(
        "/v1/receipts",
        json=receipt_body(
            [secret["span_id"], public["span_id"]],
            purpose="fraud-review",
            principal={**principal, "groups": ["investigations"]},
        ),
        headers=case_app,
    ).json()["receipt_id"]
    hidden_claim = commit_verbatim(client, case_app, hidden, public)["claim_id"]
    seen = client.post(
        "/v1/receipts",
        json=receipt_body(
            [public["span_id"]],
            purpose="fraud-review",
            principal={**principal, "groups": ["support"]},
        ),
        headers=support,
    ).json()["receipt_id"]
    commit_verbatim(client, support, seen, public)
    paths = (
        "/v1/receipts",
        "/v1/claims",
        "/v1/claims?source_id=refunds",
        "/v1/sources/refunds/versions/1/affected",
    )
    before = {path: client.get(path, headers=support) for path in paths}

    tamper = Tamperer(runtime)
    tamper.read_model(
        "UPDATE receipts SET actor = %s, expired_at = %s, expiry_reason = %s WHERE receipt_id = %s",
        EDITED,
        "2001-01-01T00:00:00.000000Z",
        "policy_retired",
        hidden,
    )
    tamper.read_model(
        "UPDATE receipt_claims SET status = 'unverified', client_ref = %s WHERE claim_id = %s",
        EDITED,
        hidden_claim,
    )

    for path in paths:
        response = client.get(path, headers=support)
        assert response.status_code == 200, (path, response.text[:300])
        assert response.text == before[path].text, path
        assert hidden not in response.text, path
        assert client.get(path, headers=case_app).status_code == 500, path
