"""Pins bound every channel a key can read, or the key cannot hold the scope: attackers first.

``audit:read`` reads the whole log (``/v1/events``, bundles, provenance exports, protected access
records, the console) and ``admin`` holds every scope, so pins could not bound them: a key with
pins is refused those scopes when it is issued, and a key an older ledger issued with both acts
without them. Then the auth matrix: keys pinned to a group, one per scope a pinned key may
hold, call every operation of the API; each is refused the operations its scope does not
cover (403), never fails (no 5xx), and is never answered with a restricted source's words.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from api.cli import main
from ledger.access.attributes import Pins
from ledger.errors import InvalidInput
from ledger.keys.api_keys import UNPINNABLE, ApiKey, Scope, hash_secret, new_secret
from ledger.runtime import LedgerRuntime
from tests.e2e.attacks import SUPPORT, leaks, world
from tests.e2e.flows import commit_verbatim, open_receipt

PINS = Pins(groups=("support",), purposes=("fraud-review",))
INVESTIGATOR = {**SUPPORT, "groups": ["investigations"]}


@pytest.mark.parametrize("scope", sorted(UNPINNABLE))
def test_a_key_with_pins_is_refused_audit_read_and_admin_when_it_is_issued(
    runtime: LedgerRuntime, scope: str
) -> None:
    before = runtime.ledger.last_position()

    with pytest.raises(InvalidInput) as refused:
        runtime.api_keys.issue("auditor", ["read", scope], "test:suite", PINS)

    assert refused.value.errors[0]["field"] == "pins"
    assert refused.value.errors[0]["rule"] == "pinnable-scope"
    assert runtime.ledger.last_position() == before


def test_the_cli_refuses_pins_on_an_audit_key(settings_env: Any) -> None:
    result = CliRunner().invoke(
        main, ["keys", "create", "--name", "auditor", "--scopes", "audit:read", "--pin", "groups=a"]
    )

    assert result.exit_code != 0
    assert "pins cannot bound" in result.output


def _legacy_key(runtime: LedgerRuntime, name: str, scopes: list[str]) -> dict[str, str]:
    """A key issued, as an older ledger could, with pins and an unpinnable scope."""
    secret = new_secret(name)
    runtime.ledger.commit(ApiKey.issue(name, scopes, hash_secret(secret), "test:suite", PINS))
    return {"Authorization": f"Bearer {secret}"}


def test_a_pinned_key_an_older_ledger_gave_audit_read_reads_no_log_bundle_or_console(
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
    claim = commit_verbatim(client, w.trusted, receipt_id, w.secret_span)
    auditor = _legacy_key(runtime, "old-auditor", ["read", "audit:read"])
    admin = _legacy_key(runtime, "old-admin", ["admin"])

    for headers in (auditor, admin):
        for path in (
            "/v1/events",
            f"/v1/claims/{claim['claim_id']}/bundle",
            f"/v1/receipts/{receipt_id}/provenance",
            "/v1/sources/case-4471/provenance",
            f"/v1/receipts/{receipt_id}/access",
        ):
            response = client.get(path, headers=headers)
            assert response.status_code == 403, (path, response.text)
            assert leaks(response.json()) == []
        form = client.get("/console/", headers={"Accept": "text/html"})
        token = re.search(r'name="csrf" value="([^"]+)"', form.text)
        assert token is not None, form.text
        console = client.post(
            "/console/session",
            data={"csrf": token.group(1), "api_key": headers["Authorization"].split()[1]},
            follow_redirects=False,
        )
        assert console.status_code == 403, console.text


def _operations(client: TestClient) -> list[tuple[str, str, str]]:
    document = client.get("/openapi.json").json()
    return [
        (method, path, operation["security"][0]["bearer"][0])
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in {"get", "post"} and operation.get("security")
    ]


def test_the_auth_matrix_holds_for_a_pinned_key_of_every_scope(
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
    claim = commit_verbatim(client, w.trusted, receipt_id, w.secret_span)
    note = {  # a memory item kept from the restricted source: hidden from the pinned keys
        "memory_id": "mem_case-note",
        "purpose": "fraud-review",
        "scope": {},
        "source": [w.secret_span["span_id"]],
        "text": w.secret_span["text"],
        "expires_at": "2999-01-01T00:00:00Z",
    }
    assert client.post("/v1/memory", json=note, headers=w.trusted).status_code == 201
    values = {
        "memory_id": "mem_case-note",
        "source_id": "case-4471",
        "version": "1",
        "span_id": w.secret_span["span_id"],
        "receipt_id": receipt_id,
        "claim_id": claim["claim_id"],
        "policy_version": "default",
        "name": "trusted-app",  # the API key that opened the investigator's receipt
    }
    pinnable = [s.value for s in Scope if s.value not in UNPINNABLE]
    keys = {
        scope: runtime.api_keys.issue(f"pinned-{scope.replace(':', '-')}", [scope], "t", PINS)
        for scope in pinnable
    }
    operations = _operations(client)
    assert len(operations) > 30
    for scope, secret in keys.items():
        headers = {"Authorization": f"Bearer {secret}"}
        for method, path, needed in operations:
            url = re.sub(r"\{([^}]+)\}", lambda m: values[m.group(1)], path)
            body = {"json": {}} if method == "post" else {}
            response = client.request(method, url, headers=headers, **body)
            where = (scope, method, path, response.status_code, response.text[:200])
            assert response.status_code < 500, where
            if needed != scope:
                assert response.status_code == 403, where
            else:
                assert response.status_code != 403 or "entitlement" in response.text, where
            assert [w for w in leaks(response.text) if w != "case-4471"] == [], where
