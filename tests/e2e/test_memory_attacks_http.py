"""Memory items against their attackers: a pinned key probing, a principal outside an item's
scope, memory laundering protected text, bad input, and memory that no longer stands.

The world of ``tests/e2e/attacks.py``: ``case-4471`` is for group ``investigations`` and
purpose ``fraud-review``, ``refund-policy`` is open; ``support`` is a key pinned to group
``support`` and purpose ``fraud-review``, ``trusted`` a key without pins. Every refusal about
an item the caller may not see must be the refusal a missing one gets, and write nothing.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from ledger.runtime import LedgerRuntime
from tests.e2e.attacks import SECRET_TEXT, SUPPORT, World, leaks, same_refusal, world
from tests.e2e.flows import commit_verbatim, open_receipt, receipt_body

MISSING = "mem_no-such-item"
FUTURE = "2999-01-01T00:00:00Z"
INVESTIGATOR = {**SUPPORT, "groups": ["investigations"]}


def remember(
    client: TestClient, headers: dict[str, str], memory_id: str, source: list[str], **extra: Any
) -> dict[str, Any]:
    """Record a memory item (201 expected)."""
    body = {
        "memory_id": memory_id,
        "purpose": "fraud-review",
        "scope": {},
        "source": source,
        "text": "The customer disputes the charge of 12 March.",
        "expires_at": FUTURE,
        **extra,
    }
    response = client.post("/v1/memory", json=body, headers=headers)
    assert response.status_code == 201, response.text
    item: dict[str, Any] = response.json()
    return item


def _laundered(client: TestClient, w: World) -> str:
    """An item with an open scope whose text came from the restricted source."""
    remember(client, w.trusted, "mem_laundered", [w.secret_span["span_id"]], text=SECRET_TEXT)
    return "mem_laundered"


def _scoped(client: TestClient, w: World) -> str:
    """An item from the open source, scoped to group ``investigations``."""
    remember(
        client,
        w.trusted,
        "mem_scoped",
        [w.open_span["span_id"]],
        scope={"groups": ["investigations"]},
    )
    return "mem_scoped"


def test_every_read_of_a_memory_item_a_pinned_key_may_not_see_answers_as_for_a_missing_one(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    for hidden in (_laundered(client, w), _scoped(client, w)):
        for path in ("/v1/memory/{}", "/v1/memory/{}/affected"):
            denied = client.get(path.format(hidden), headers=w.support)
            missing = client.get(path.format(MISSING), headers=w.support)

            assert denied.status_code == 404, (path, denied.text)
            assert same_refusal(denied, missing, hidden, MISSING), (path, denied.text)
            assert leaks(denied.json()) == [], path

    listed = client.get("/v1/memory", headers=w.support)
    assert listed.status_code == 200, listed.text
    assert listed.json()["items"] == []
    assert [
        i["memory_id"] for i in client.get("/v1/memory", headers=w.trusted).json()["items"]
    ] == [
        "mem_laundered",
        "mem_scoped",
    ]


def test_a_pinned_key_cannot_correct_or_revoke_an_item_it_may_not_see_and_learns_nothing(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    hidden = _laundered(client, w)
    before = w.position()
    for path, body in (
        ("/v1/memory/{}/versions", {"reason": "probe", "text": "Overwritten."}),
        ("/v1/memory/{}/revoke", {"reason": "probe"}),
    ):
        denied = client.post(path.format(hidden), json=body, headers=w.support)
        missing = client.post(path.format(MISSING), json=body, headers=w.support)

        assert denied.status_code == 404, (path, denied.text)
        assert same_refusal(denied, missing, hidden, MISSING), path
    taken = client.post(
        "/v1/memory",
        json={
            "memory_id": hidden,
            "purpose": "fraud-review",
            "scope": {},
            "source": [w.open_span["span_id"]],
            "text": "x",
            "expires_at": FUTURE,
        },
        headers=w.support,
    )
    assert taken.status_code == 409, taken.text
    assert leaks(taken.json()) == []
    assert w.position() == before


def test_a_receipt_naming_memory_its_key_or_principal_may_not_see_answers_as_for_a_missing_id(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    laundered, scoped = _laundered(client, w), _scoped(client, w)
    before = w.position()
    cases = [
        (w.support, laundered, SUPPORT),  # the key's pins may not see its source
        (w.support, scoped, SUPPORT),  # ... nor its scope
        (w.trusted, laundered, SUPPORT),  # a trusted key, a principal outside the source
        (w.trusted, scoped, SUPPORT),  # ... outside the scope
    ]
    for headers, hidden, principal in cases:
        answers = []
        for memory_id in (hidden, MISSING):
            body = receipt_body(
                [w.open_span["span_id"]],
                principal=principal,
                purpose="fraud-review",
                memory=[memory_id],
            )
            answers.append(client.post("/v1/receipts", json=body, headers=headers))
        denied, missing = answers

        assert denied.status_code == 422, denied.text
        assert denied.json()["errors"][0]["field"] == "memory[0]"
        assert denied.json()["errors"][0]["rule"] == "exists"
        assert same_refusal(denied, missing, hidden, MISSING), denied.text
    assert w.position() == before


def test_an_investigator_sees_the_laundered_item_so_the_refusals_above_were_the_gate(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    laundered = _laundered(client, w)
    body = receipt_body(
        [w.open_span["span_id"]],
        principal=INVESTIGATOR,
        purpose="fraud-review",
        memory=[laundered],
    )
    opened = client.post("/v1/receipts", json=body, headers=w.trusted)

    assert opened.status_code == 201, opened.text
    assert opened.json()["memory"][0]["memory_id"] == laundered
    assert client.get(f"/v1/memory/{laundered}", headers=w.trusted).status_code == 200


def test_a_pinned_key_cannot_keep_memory_from_a_span_or_claim_it_may_not_see(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    receipt_id = open_receipt(
        client,
        w.trusted,
        [w.secret_span["span_id"]],
        principal=INVESTIGATOR,
        purpose="fraud-review",
    )
    claim_id = commit_verbatim(client, w.trusted, receipt_id, w.secret_span)["claim_id"]
    before = w.position()
    for hidden, missing_id in (
        (w.secret_span["span_id"], "sp_" + "0" * 24),
        (claim_id, "clm_" + "0" * 24),
    ):
        answers = []
        for source in (hidden, missing_id):
            body = {
                "purpose": "fraud-review",
                "scope": {},
                "source": [source],
                "text": "Kept.",
                "expires_at": FUTURE,
            }
            answers.append(client.post("/v1/memory", json=body, headers=w.support))
        denied, missing = answers

        assert denied.status_code == 422, denied.text
        assert denied.json()["errors"] == [
            {
                "field": "source[0]",
                "rule": "exists",
                "message": denied.json()["errors"][0]["message"],
            }
        ]
        assert same_refusal(denied, missing, hidden, missing_id)
    assert w.position() == before


def test_bad_memory_input_is_422_naming_every_field_and_rule_and_writes_nothing(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    before = w.position()
    good = {
        "purpose": "fraud-review",
        "scope": {},
        "source": [w.open_span["span_id"]],
        "text": "Kept.",
        "expires_at": FUTURE,
    }
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({**good, "expires_at": "2001-01-01T00:00:00Z"}, "expires_at", "future"),
        ({**good, "expires_at": "2031-01-01T00:00:00"}, "expires_at", "timezone"),
        ({**good, "purpose": "not a token"}, "purpose", "attribute-value"),
        ({**good, "text": "   "}, "text", "non-empty"),
        ({**good, "text": "x" * 4001}, "text", "max-length"),
        ({**good, "source": []}, "source", "count"),
        ({**good, "source": ["doc-9"]}, "source[0]", "pattern"),
        ({**good, "source": [w.open_span["span_id"]] * 2}, "source", "unique"),
        ({**good, "memory_id": "item-1"}, "memory_id", "pattern"),
        ({**good, "scope": {"groups": ["has space"]}}, "scope.groups[0]", "attribute-value"),
        ({**good, "secret": True}, "secret", "extra_forbidden"),
        ({key: v for key, v in good.items() if key != "expires_at"}, "expires_at", "missing"),
    ]
    for body, field, rule in cases:
        response = client.post("/v1/memory", json=body, headers=w.trusted)

        assert response.status_code == 422, (field, response.text)
        assert response.headers["content-type"] == "application/problem+json"
        assert {"field": field, "rule": rule} in [
            {"field": e["field"], "rule": e["rule"]} for e in response.json()["errors"]
        ], (field, response.json())
    for body, field in (
        ({"memory": ["not-memory"]}, "memory[0]"),
        ({"memory": ["mem_a", "mem_a"]}, "memory"),
    ):
        opening = receipt_body([w.open_span["span_id"]], **body)
        response = client.post("/v1/receipts", json=opening, headers=w.trusted)
        assert response.status_code == 422, response.text
        assert response.json()["errors"][0]["field"] == field
    assert w.position() == before


def test_revoked_corrected_and_expired_memory_is_refused_at_opening_as_not_citable(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    span = [w.open_span["span_id"]]
    revoked = remember(client, w.trusted, "mem_revoked", span)["memory_id"]
    client.post(f"/v1/memory/{revoked}/revoke", json={"reason": "withdrawn"}, headers=w.trusted)
    corrected = remember(client, w.trusted, "mem_corrected", span)
    client.post(
        "/v1/memory/mem_corrected/versions",
        json={"reason": "state changed", "text": "The dispute was settled."},
        headers=w.trusted,
    )
    short = remember(client, w.trusted, "mem_short", span, expires_at="2999-01-01T00:00:00Z")
    before = w.position()
    cases = [
        (revoked, None, "was revoked"),
        # As of before its correction: the version then is no longer the item's.
        ("mem_corrected", corrected["recorded_at"], "was corrected by version 2"),
        # As of after its expiry.
        (short["memory_id"], "2999-06-01T00:00:00Z", "expired at 2999-01-01"),
    ]
    for memory_id, as_of, words in cases:
        extra: dict[str, Any] = {"memory": [memory_id], "purpose": "fraud-review"}
        if as_of is not None:
            extra["as_of"] = as_of
        body = receipt_body(span, **extra)
        body.pop("policy_version")
        response = client.post("/v1/receipts", json=body, headers=w.trusted)

        assert response.status_code == 422, response.text
        error = response.json()["errors"][0]
        assert (error["field"], error["rule"]) == ("memory[0]", "citable"), error
        assert words in error["message"], error
    assert w.position() == before


def test_a_claim_bound_to_a_memory_item_is_refused_before_the_gate(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    item = remember(client, w.trusted, "mem_note", [w.open_span["span_id"]])
    receipt_id = open_receipt(
        client, w.trusted, [w.open_span["span_id"]], purpose="fraud-review", memory=["mem_note"]
    )
    before = w.position()
    body = {"claims": [{"text": item["text"], "bindings": [{"span_id": "mem_note"}]}]}

    response = client.post(f"/v1/receipts/{receipt_id}/claims", json=body, headers=w.trusted)

    assert response.status_code == 422, response.text
    assert response.json()["errors"][0] == {
        "field": "claims[0].bindings[0].span_id",
        "rule": "memory-not-citable",
        "message": "a memory item is not evidence: bind the spans it came from (its source), "
        "opened as the receipt's evidence (docs/memory.md)",
    }
    assert w.position() == before


def test_a_receipt_whose_memory_was_revoked_serves_no_packet_and_takes_no_claims(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    remember(client, w.trusted, "mem_soon_gone", [w.open_span["span_id"]])
    receipt_id = open_receipt(
        client,
        w.trusted,
        [w.open_span["span_id"]],
        purpose="fraud-review",
        memory=["mem_soon_gone"],
    )
    assert client.get(f"/v1/receipts/{receipt_id}/context", headers=w.trusted).status_code == 200

    revoked = client.post(
        "/v1/memory/mem_soon_gone/revoke", json={"reason": "consent withdrawn"}, headers=w.trusted
    )
    packet = client.get(f"/v1/receipts/{receipt_id}/context", headers=w.trusted)
    commit = client.post(
        f"/v1/receipts/{receipt_id}/claims",
        json={"claims": [{"text": w.open_span["text"], "bindings": []}]},
        headers=w.trusted,
    )

    assert revoked.json()["receipts_expired"] == 1
    assert packet.status_code == 409, packet.text
    assert packet.json()["type"].endswith("/receipt-expired")
    assert "consent withdrawn" not in packet.text
    assert commit.status_code == 409
    status = client.get(f"/v1/receipts/{receipt_id}", headers=w.trusted).json()["status"]
    assert (status["status"], status["reason"]) == ("expired", "memory_revoked")
    assert status["expiries"][0]["detail"] == {"memory_id": "mem_soon_gone"}


def test_bad_usage_is_422_naming_the_field_and_a_pinned_key_probing_usage_learns_nothing(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    w = world(client, auth, runtime)
    receipt_id = open_receipt(
        client,
        w.trusted,
        [w.secret_span["span_id"]],
        principal=INVESTIGATOR,
        purpose="fraud-review",
    )
    before = w.position()
    for usage, field, rule in (
        ({"input_tokens": -1}, "input_tokens", "greater_than_equal"),
        ({"input_tokens": 1.5}, "input_tokens", "int_type"),
        ({"input_tokens": True}, "input_tokens", "int_type"),
        ({"input_tokens": "12"}, "input_tokens", "int_type"),
        ({"input_tokens": 2**31}, "input_tokens", "less_than_equal"),
        ({"input_tokens": 1, "cache_read_input_tokens": -5}, "cache_read_input_tokens", None),
        ({"input_tokens": 1, "output_tokens": 3}, "output_tokens", "extra_forbidden"),
        ({}, "input_tokens", "missing"),
    ):
        alone = client.post(f"/v1/receipts/{receipt_id}/usage", json=usage, headers=w.trusted)
        commit = client.post(
            f"/v1/receipts/{receipt_id}/claims",
            json={"claims": [{"text": "x", "bindings": []}], "usage": usage},
            headers=w.trusted,
        )
        for response, where in ((alone, field), (commit, f"usage.{field}")):
            assert response.status_code == 422, response.text
            error = response.json()["errors"][0]
            assert error["field"] == where, error
            assert rule is None or error["rule"] == rule, error
    assert w.position() == before

    other = "rcpt_" + "0" * 32
    denied = client.post(
        f"/v1/receipts/{receipt_id}/usage", json={"input_tokens": 5}, headers=w.support
    )
    missing = client.post(
        f"/v1/receipts/{other}/usage", json={"input_tokens": 5}, headers=w.support
    )
    assert denied.status_code == 404, denied.text
    assert same_refusal(denied, missing, receipt_id, other)
    assert w.position() == before
