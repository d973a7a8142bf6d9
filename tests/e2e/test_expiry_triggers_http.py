"""More expiry triggers over HTTP: a revoked API key, a retired model or tool version, a new
context-assembly version in force. Attackers and bad input first.

A retirement or declaration is a signed admin write: a key without ``admin`` (a pinned key
can never hold it), a malformed body and a repeat are refused and write nothing. Each trigger
then expires the receipts that recorded what changed, with its reason code, before its answer;
the answer, ``GET /v1/expiries`` and the trigger's ``affected`` list name each receipt with its
downstream actions; a read as of before the change shows the receipt open; and no receipt
opens again with what was retired.
"""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from api.cli import main
from api.settings import Settings
from ledger.runtime import LedgerRuntime
from tests.e2e.attacks import pinned
from tests.e2e.flows import commit_verbatim, open_receipt, receipt_body, register
from tests.tamper import Tamperer

TEXT = "Refunds are allowed within 30 days of the charge. Disputed charges are excluded."
ACTIONS = [{"action_id": "act-1", "kind": "refund", "target": "charge-881"}]


@pytest.fixture
def app(auth: Any) -> dict[str, str]:
    """The application's key: ingests, opens receipts, reads."""
    headers: dict[str, str] = auth("ingest", "read", "claims:write", name="app")
    return headers


@pytest.fixture
def admin(auth: Any) -> dict[str, str]:
    """An operator's key."""
    headers: dict[str, str] = auth("admin", name="ops")
    return headers


def _decided(client: TestClient, headers: dict[str, str], source_id: str, **extra: Any) -> str:
    """A receipt with a committed claim and an outcome naming ``ACTIONS``."""
    spans = register(client, headers, source_id, TEXT)
    receipt_id = open_receipt(client, headers, [spans[0]["span_id"]], **extra)
    commit_verbatim(client, headers, receipt_id, spans[0])
    outcome = {"decision": "refund approved", "reviewer": "rev-1", "actions": ACTIONS}
    recorded = client.post(f"/v1/receipts/{receipt_id}/outcome", json=outcome, headers=headers)
    assert recorded.status_code == 201, recorded.text
    return receipt_id


def _status(client: TestClient, headers: dict[str, str], receipt_id: str, **params: str) -> Any:
    return client.get(f"/v1/receipts/{receipt_id}", params=params, headers=headers).json()["status"]


def _named(items: list[dict[str, Any]]) -> dict[str, list[str]]:
    return {item["receipt_id"]: [a["action_id"] for a in item["actions"]] for item in items}


# Attackers and bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/v1/models/retire", "/v1/tools/retire", "/v1/context-assemblies/declare"]
)
def test_a_key_without_admin_changes_nothing_a_receipt_records(
    client: TestClient, auth: Any, runtime: LedgerRuntime, path: str
) -> None:
    body = {"name": "m", "version": "1", "reason": "unsafe"}
    writer = auth("ingest", "read", "claims:write", "audit:read", name="writer")
    support = pinned(runtime, "support-app", ["read", "claims:write"], groups=["support"])
    before = runtime.ledger.last_position()

    for headers in (writer, support):
        refused = client.post(path, json=body, headers=headers)
        assert refused.status_code == 403, refused.text
        assert refused.json()["detail"] == "this API key lacks the 'admin' scope"
    assert client.post(path, json=body).status_code == 401
    assert runtime.ledger.last_position() == before


@pytest.mark.parametrize(
    ("body", "field", "rule"),
    [
        ({"name": " ", "version": "1", "reason": "r"}, "name", "non-empty"),
        ({"name": "m", "version": "v" * 201, "reason": "r"}, "version", "max-length"),
        ({"name": "m\n", "version": "1", "reason": "r"}, "name", "printable"),
        ({"name": "m", "version": "1", "reason": ""}, "reason", "length"),
        ({"name": "m", "version": "1", "reason": "r" * 2001}, "reason", "length"),
        ({"name": "m", "version": "1"}, "reason", "missing"),
        ({"name": "m", "version": "1", "reason": "r", "kind": "model"}, "kind", "extra_forbidden"),
    ],
)
@pytest.mark.parametrize(
    "path", ["/v1/models/retire", "/v1/tools/retire", "/v1/context-assemblies/declare"]
)
def test_a_malformed_change_is_422_naming_the_field_and_writes_nothing(
    client: TestClient,
    admin: dict[str, str],
    runtime: LedgerRuntime,
    path: str,
    body: dict[str, Any],
    field: str,
    rule: str,
) -> None:
    before = runtime.ledger.last_position()

    refused = client.post(path, json=body, headers=admin)

    assert refused.status_code == 422, refused.text
    assert (refused.json()["errors"][0]["field"], refused.json()["errors"][0]["rule"]) == (
        field,
        rule,
    )
    assert runtime.ledger.last_position() == before


def test_retiring_twice_or_declaring_the_version_in_force_again_is_409(
    client: TestClient, admin: dict[str, str], runtime: LedgerRuntime
) -> None:
    body = {"name": "m", "version": "1", "reason": "unsafe"}
    for path in ("/v1/models/retire", "/v1/tools/retire", "/v1/context-assemblies/declare"):
        assert client.post(path, json=body, headers=admin).status_code == 201
        before = runtime.ledger.last_position()

        again = client.post(path, json={**body, "reason": "again"}, headers=admin)

        assert again.status_code == 409, again.text
        assert runtime.ledger.last_position() == before
    assert client.post("/v1/models/retire", json=body, headers=admin).json()["detail"] == (
        "model 'm' version '1' is already retired"
    )


def test_a_pinned_key_learns_nothing_of_receipts_it_may_not_read_from_affected_lists(
    client: TestClient, auth: Any, runtime: LedgerRuntime, admin: dict[str, str]
) -> None:
    trusted = auth("ingest", "read", "claims:write", name="trusted-app")
    investigator = {"roles": [], "groups": ["investigations"], "purpose": "fraud-review"}
    mine = {"roles": [], "groups": ["support"], "purpose": "fraud-review"}
    hidden = _decided(client, trusted, "refunds", purpose="fraud-review", principal=investigator)
    support = pinned(runtime, "support-app", ["read", "claims:write", "ingest"], groups=["support"])
    spans = register(client, trusted, "faq", "Refunds take thirty days.")
    body = receipt_body([spans[0]["span_id"]], purpose="fraud-review", principal=mine)
    seen = client.post("/v1/receipts", json=body, headers=support).json()["receipt_id"]
    commit_verbatim(client, support, seen, spans[0])
    retired = client.post(
        "/v1/models/retire", json={"name": "m", "version": "1", "reason": "x"}, headers=admin
    ).json()
    assert set(_named(retired["expired"]["items"])) == {hidden, seen}

    lists = [
        client.get("/v1/models/affected", params={"name": "m", "version": "1"}, headers=support),
        client.get("/v1/expiries", params={"cause": retired["expired"]["cause"]}, headers=support),
        client.get("/v1/policies/default/affected", headers=support),
        client.get("/v1/api-keys/trusted-app/affected", headers=support),
        client.get("/v1/sources/refunds/versions/1/affected", headers=support),
    ]

    for listed in lists[:3]:
        assert listed.status_code == 200, listed.text
        assert [item["receipt_id"] for item in listed.json()["items"]] == [seen]
        assert "act-1" not in listed.text
        assert hidden not in listed.text
    assert lists[3].json() == {"items": [], "next": None}
    assert lists[4].status_code == 200  # refunds is open: only the hidden receipt stood on it
    assert lists[4].json()["items"] == []
    assert lists[4].json()["receipt_count"] == 0


def test_a_pinned_keys_correction_answer_names_only_receipts_it_may_read(
    client: TestClient, auth: Any, runtime: LedgerRuntime
) -> None:
    trusted = auth("ingest", "read", "claims:write", name="trusted-app")
    investigator = {"roles": [], "groups": ["investigations"], "purpose": "fraud-review"}
    hidden = _decided(client, trusted, "refunds", purpose="fraud-review", principal=investigator)
    support = pinned(runtime, "support-app", ["read", "ingest"], groups=["support"])

    superseded = client.post(
        "/v1/sources/refunds/versions", json={"text": "No refunds."}, headers=support
    )
    withdrawn = client.post(
        "/v1/sources/refunds/withdraw", json={"reason": "retracted"}, headers=trusted
    )

    assert superseded.status_code == 201, superseded.text
    assert superseded.json()["expired"]["items"] == []
    assert hidden not in superseded.text
    assert "act-1" not in superseded.text
    assert _status(client, trusted, hidden)["reason"] == "source_superseded"
    # the trusted key's withdrawal expires it again, for its own cause, and may name it
    assert _named(withdrawn.json()["expired"]["items"]) == {hidden: ["act-1"]}


# The triggers ----------------------------------------------------------------------------


def test_a_retired_model_version_expires_its_receipts_and_names_their_actions(
    client: TestClient, app: dict[str, str], admin: dict[str, str]
) -> None:
    retired_one = _decided(client, app, "refunds", model={"name": "gpt-x", "version": "2026-01"})
    current = open_receipt(client, app, [], model={"name": "gpt-x", "version": "2026-02"})

    answer = client.post(
        "/v1/models/retire",
        json={"name": "gpt-x", "version": "2026-01", "reason": "safety advisory"},
        headers=admin,
    )

    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert (body["kind"], body["status"], body["receipts_expired"]) == ("model", "retired", 1)
    assert _named(body["expired"]["items"]) == {retired_one: ["act-1"]}
    assert body["expired"]["items"][0]["reason"] == "model_retired"
    assert body["expired"]["items"][0]["outcome"]["decision"] == "refund approved"
    status = _status(client, app, retired_one)
    assert (status["status"], status["reason"]) == ("expired", "model_retired")
    assert status["expiries"][0]["detail"] == {
        "kind": "model",
        "name": "gpt-x",
        "version": "2026-01",
        "recorded": "2026-01",
        "reason": "safety advisory",
    }
    assert status["expiries"][0]["cause"] == body["expired"]["cause"] == f"n{body['position']}"
    assert _status(client, app, current)["status"] == "open"
    affected = client.get(
        "/v1/models/affected", params={"name": "gpt-x", "version": "2026-01"}, headers=app
    ).json()
    assert _named(affected["items"]) == {retired_one: ["act-1"]}
    assert affected["items"][0]["status"] == "expired"
    listed = client.get("/v1/expiries", params={"cause": body["expired"]["cause"]}, headers=app)
    assert _named(listed.json()["items"]) == {retired_one: ["act-1"]}
    # as the ledger knew it before the retirement, the receipt stood
    decided_at = client.get(f"/v1/receipts/{retired_one}", headers=app).json()["outcome"]["at"]
    assert decided_at < status["at"]
    assert _status(client, app, retired_one, known_at=decided_at)["status"] == "open"
    assert _status(client, app, retired_one, known_at=status["at"])["status"] == "expired"
    refused = client.post(
        "/v1/receipts",
        json=receipt_body([], model={"name": "gpt-x", "version": "2026-01"}),
        headers=app,
    )
    assert refused.status_code == 409, refused.text
    assert refused.json()["errors"][0]["field"] == "model.version"
    assert refused.json()["errors"][0]["rule"] == "not-retired"


def test_a_retired_tool_version_expires_receipts_recording_it_or_the_bare_tool(
    client: TestClient, app: dict[str, str], admin: dict[str, str]
) -> None:
    versioned = _decided(client, app, "refunds", tools=["search@2.1", "calc@1"])
    bare = open_receipt(client, app, [], tools=["search"])
    other = open_receipt(client, app, [], tools=["search@2.2"])

    answer = client.post(
        "/v1/tools/retire",
        json={"name": "search", "version": "2.1", "reason": "index bug"},
        headers=admin,
    ).json()

    assert answer["receipts_expired"] == 2
    assert _named(answer["expired"]["items"]) == {versioned: ["act-1"], bare: []}
    recorded = {
        rid: _status(client, app, rid)["expiries"][0]["detail"]["recorded"]
        for rid in (versioned, bare)
    }
    assert recorded == {versioned: "search@2.1", bare: "search"}
    assert _status(client, app, bare)["reason"] == "tool_retired"
    assert _status(client, app, other)["status"] == "open"
    affected = client.get(
        "/v1/tools/affected", params={"name": "search", "version": "2.1"}, headers=app
    ).json()
    assert set(_named(affected["items"])) == {versioned, bare}
    refused = client.post(
        "/v1/receipts", json=receipt_body([], tools=["calc@1", "search@2.1"]), headers=app
    )
    assert refused.status_code == 409
    assert refused.json()["errors"][0]["field"] == "tools[1]"
    assert open_receipt(client, app, [], tools=["search"])  # a bare name still opens


def test_a_new_context_assembly_version_in_force_expires_receipts_of_the_others(
    client: TestClient, app: dict[str, str], admin: dict[str, str]
) -> None:
    first = _decided(
        client, app, "refunds", context_assembly={"name": "support-rag", "version": "1"}
    )
    other_assembly = open_receipt(
        client, app, [], context_assembly={"name": "report-rag", "version": "1"}
    )
    none = open_receipt(client, app, [])
    declare = {"name": "support-rag", "version": "2", "reason": "exceptions kept first"}

    answer = client.post("/v1/context-assemblies/declare", json=declare, headers=admin)

    assert answer.status_code == 201, answer.text
    assert (answer.json()["status"], answer.json()["receipts_expired"]) == ("in_force", 1)
    assert _named(answer.json()["expired"]["items"]) == {first: ["act-1"]}
    status = _status(client, app, first)
    assert status["reason"] == "context_assembly_changed"
    assert status["expiries"][0]["detail"] == {
        "name": "support-rag",
        "version": "1",
        "in_force": "2",
        "reason": "exceptions kept first",
    }
    assert _status(client, app, other_assembly)["status"] == "open"
    assert _status(client, app, none)["status"] == "open"
    receipt = client.get(f"/v1/receipts/{first}", headers=app).json()
    assert receipt["context_assembly"] == {"name": "support-rag", "version": "1"}
    current = open_receipt(
        client, app, [], context_assembly={"name": "support-rag", "version": "2"}
    )
    stale = client.post(
        "/v1/receipts",
        json=receipt_body([], context_assembly={"name": "support-rag", "version": "1"}),
        headers=app,
    )
    assert stale.status_code == 409
    assert stale.json()["errors"][0]["field"] == "context_assembly.version"
    assert stale.json()["errors"][0]["rule"] == "in-force"
    # a third version: the receipts of version 2 expire in turn
    client.post("/v1/context-assemblies/declare", json={**declare, "version": "3"}, headers=admin)
    assert _status(client, app, current)["reason"] == "context_assembly_changed"
    affected = client.get(
        "/v1/context-assemblies/affected",
        params={"name": "support-rag", "version": "1"},
        headers=app,
    ).json()
    assert _named(affected["items"]) == {first: ["act-1"]}


def test_a_revoked_api_key_expires_the_receipts_it_opened_before_the_cli_returns(
    client: TestClient, auth: Any, settings_env: Settings, app: dict[str, str]
) -> None:
    opened = _decided(client, app, "refunds")
    others = auth("read", "claims:write", name="other-app")
    kept = open_receipt(client, others, [])

    result = CliRunner().invoke(main, ["keys", "revoke", "app", "--reason", "leaked in INC-7"])

    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("1 receipts expired (cause n")
    status = _status(client, others, opened)
    assert (status["status"], status["reason"]) == ("expired", "api_key_revoked")
    assert status["expiries"][0]["detail"] == {"opened_by": "key:app"}  # never the reason
    assert _status(client, others, kept)["status"] == "open"
    affected = client.get("/v1/api-keys/app/affected", headers=others).json()
    assert _named(affected["items"]) == {opened: ["act-1"]}
    cause = status["expiries"][0]["cause"]
    listed = client.get("/v1/expiries", params={"cause": cause}, headers=others).json()
    assert _named(listed["items"]) == {opened: ["act-1"]}
    assert listed["items"][0]["reason"] == "api_key_revoked"


def test_a_key_issued_again_expires_only_its_own_receipts_when_revoked_again(
    client: TestClient, auth: Any, settings_env: Settings, runtime: LedgerRuntime
) -> None:
    first_key = auth("read", "claims:write", name="app")
    first = open_receipt(client, first_key, [])
    CliRunner().invoke(main, ["keys", "revoke", "app"])
    second_key = auth("read", "claims:write", name="app")
    second = open_receipt(client, second_key, [], request="again")

    result = CliRunner().invoke(main, ["keys", "revoke", "app"])

    assert result.output.splitlines()[-1].startswith("1 receipts expired")
    assert len(_status(client, auth("read", name="reader"), first)["expiries"]) == 1
    reader = {"Authorization": auth("read", name="reader-2")["Authorization"]}
    assert _status(client, reader, second)["reason"] == "api_key_revoked"


@pytest.mark.parametrize("change", ["version", "withdraw", "access"])
def test_a_source_corrections_answer_names_the_actions_of_every_receipt_it_expired(
    client: TestClient, app: dict[str, str], change: str
) -> None:
    receipt_id = _decided(client, app, "refunds")
    undecided = _decided(client, app, "faq")
    client.post(  # faq's receipt has an outcome naming no action
        f"/v1/receipts/{undecided}/outcome", json={"decision": "no action"}, headers=app
    )

    if change == "version":
        answer = client.post("/v1/sources/refunds/versions", json={"text": "No."}, headers=app)
    elif change == "withdraw":
        answer = client.post("/v1/sources/refunds/withdraw", json={"reason": "x"}, headers=app)
    else:
        answer = client.post("/v1/sources/refunds/access", json={"groups": ["g"]}, headers=app)

    assert answer.status_code in (200, 201), answer.text
    expired = answer.json()["expired"]
    assert _named(expired["items"]) == {receipt_id: ["act-1"]}
    assert expired["next"] is None
    assert expired["cause"] == _status(client, app, receipt_id)["expiries"][0]["cause"]
    affected = client.get("/v1/sources/refunds/versions/1/affected", headers=app).json()
    assert _named(affected["items"]) == {receipt_id: ["act-1"]}
    assert affected["items"][0]["outcome"]["reviewer"] == "rev-1"


def test_an_unchanged_write_expires_nothing_and_says_so(
    client: TestClient, app: dict[str, str]
) -> None:
    _decided(client, app, "refunds")

    same = client.post("/v1/sources/refunds/versions", json={"text": TEXT}, headers=app)
    access = client.post("/v1/sources/refunds/access", json={}, headers=app)

    assert same.status_code == 200
    assert same.json()["expired"] == {"cause": None, "items": [], "next": None}
    assert access.json()["expired"] == {"cause": None, "items": [], "next": None}


def test_a_retired_policys_answer_names_the_actions_of_its_receipts(
    client: TestClient, app: dict[str, str], admin: dict[str, str]
) -> None:
    policy = {"policy_version": "access-2", "rules": [{"id": "everyone", "effect": "allow"}]}
    client.post("/v1/policies", json=policy, headers=admin)
    receipt_id = _decided(client, app, "refunds", policy_version="access-2")

    retired = client.post(
        "/v1/policies/access-2/retire", json={"reason": "replaced"}, headers=admin
    ).json()

    assert retired["receipts_expired"] == 1
    assert _named(retired["expired"]["items"]) == {receipt_id: ["act-1"]}
    affected = client.get("/v1/policies/access-2/affected", headers=app).json()
    assert _named(affected["items"]) == {receipt_id: ["act-1"]}


def test_an_expiries_list_pages_by_receipt_id(
    client: TestClient, app: dict[str, str], admin: dict[str, str]
) -> None:
    opened = sorted(open_receipt(client, app, [], request=f"q{i}") for i in range(5))
    cause = client.post(
        "/v1/models/retire", json={"name": "m", "version": "1", "reason": "x"}, headers=admin
    ).json()["expired"]["cause"]

    pages, after = [], None
    while True:
        params = {"cause": cause, "limit": 2, **({"after": after} if after else {})}
        body = client.get("/v1/expiries", params=params, headers=app).json()
        pages.append([item["receipt_id"] for item in body["items"]])
        after = body["next"]
        if after is None:
            break

    assert pages == [opened[0:2], opened[2:4], opened[4:]]
    bad = client.get("/v1/expiries", params={"cause": "expires_at"}, headers=app)
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["field"] == "query.cause"


def test_an_affected_row_naming_a_receipt_the_ledger_lacks_is_refused_not_served(
    client: TestClient, app: dict[str, str], runtime: LedgerRuntime
) -> None:
    open_receipt(client, app, [])
    Tamperer(runtime).read_model(
        "INSERT INTO receipt_parts (receipt_id, ord, kind, name, version)"
        " VALUES (%s, 0, 'model', 'm', '1')",
        "rcpt_" + "f" * 32,
    )

    refused = client.get("/v1/models/affected", params={"name": "m", "version": "1"}, headers=app)

    assert refused.status_code == 500
    assert refused.json()["reason"] == "read_model_mismatch"
    assert refused.json()["position"] == {"table": "receipts", "receipt_id": "rcpt_" + "f" * 32}
