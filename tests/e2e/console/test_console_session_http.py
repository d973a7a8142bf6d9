"""Console sign-in, sessions, CSRF, origin and headers over HTTP (both backends)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient

from api.console.guard import CONTENT_SECURITY_POLICY, SESSION_COOKIE
from api.console.sessions import SESSION_SECONDS
from ledger.runtime import LedgerRuntime
from tests.e2e.console.conftest import HTML, Reader, sign_in

PAGES = ["/console/receipts", "/console/transparency", "/console/replay?at=2099-01-01"]


def _form_token(client: TestClient) -> str:
    page = client.get("/console/", headers=HTML)
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def test_sign_in_form_has_one_password_input_and_a_submit_button(client: TestClient) -> None:
    page = client.get("/console/", headers=HTML)
    assert page.status_code == 200
    assert len(re.findall(r'<input[^>]*type="password"', page.text)) == 1
    assert re.search(r'<button type="submit">Sign in</button>', page.text)
    assert "HttpOnly" in page.headers["set-cookie"]


def test_an_audit_key_is_exchanged_for_a_strict_httponly_session_cookie(
    client: TestClient, auth
) -> None:  # type: ignore[no-untyped-def]
    secret = auth("audit:read")["Authorization"].removeprefix("Bearer ")
    response = client.post(
        "/console/session",
        data={"csrf": _form_token(client), "api_key": secret},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/console/receipts"
    cookie = next(c for c in response.headers.get_list("set-cookie") if "provledger_console=" in c)
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    assert "Path=/console" in cookie
    assert "Max-Age=28800" in cookie
    assert "Secure" not in cookie  # plain HTTP: a Secure cookie would never come back
    assert secret not in cookie
    assert secret.split(".")[-1] not in cookie


def test_the_session_cookie_is_secure_over_tls(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    tls = TestClient(client.app, base_url="https://testserver")
    secret = auth("audit:read")["Authorization"].removeprefix("Bearer ")
    response = tls.post(
        "/console/session",
        data={"csrf": _form_token(tls), "api_key": secret},
        follow_redirects=False,
    )
    assert response.status_code == 303
    cookie = next(c for c in response.headers.get_list("set-cookie") if "provledger_console=" in c)
    assert "Secure" in cookie


def test_a_key_without_audit_read_cannot_sign_in(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    secret = auth("read", "claims:write")["Authorization"].removeprefix("Bearer ")
    response = client.post(
        "/console/session", data={"csrf": _form_token(client), "api_key": secret}
    )
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/problem+json"
    assert "audit:read" in response.json()["detail"]
    assert "provledger_console=" not in response.headers.get("set-cookie", "")


def test_an_unknown_key_is_401_and_shown_as_a_page_to_a_browser(client: TestClient) -> None:
    response = client.post(
        "/console/session",
        data={"csrf": _form_token(client), "api_key": "pl_nobody.secret"},
        headers=HTML,
    )
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("text/html")
    assert "unknown or revoked API key" in response.text


def test_sign_in_without_the_form_token_is_refused(client: TestClient, auth) -> None:  # type: ignore[no-untyped-def]
    secret = auth("audit:read")["Authorization"].removeprefix("Bearer ")
    _form_token(client)  # the sign-in cookie is set, the form field is missing
    response = client.post("/console/session", data={"api_key": secret})
    assert response.status_code == 403
    assert response.json()["detail"].startswith("csrf:")


def test_a_post_from_another_origin_is_refused(reader: Reader) -> None:
    response = reader.client.post(
        f"/console/claims/{reader.seeded.claim_id}/verify",
        data={"csrf": reader.csrf},
        headers={"Origin": "https://evil.example"},
    )
    assert response.status_code == 403
    assert "evil.example" in response.json()["detail"]


def test_every_form_post_refuses_a_missing_or_wrong_csrf_token(reader: Reader) -> None:
    client = reader.client
    for path in (
        f"/console/claims/{reader.seeded.claim_id}/verify",
        "/console/transparency",
        "/console/session/end",
    ):
        for data in ({}, {"csrf": "x" + reader.csrf[1:]}):
            response = client.post(path, data={**data, "checkpoint": "x"})
            assert response.status_code == 403, (path, data)
            assert response.json()["type"].endswith("/forbidden")
    assert client.get("/console/receipts", headers=HTML).status_code == 200  # still signed in


def test_a_form_that_is_not_urlencoded_is_422_naming_the_body(reader: Reader) -> None:
    response = reader.client.post(
        "/console/transparency", json={"csrf": reader.csrf, "checkpoint": "x"}
    )
    assert response.status_code == 422
    assert response.json()["errors"][0] == {
        "field": "body",
        "rule": "form",
        "message": "the console takes forms as application/x-www-form-urlencoded",
    }


def test_pages_send_a_reader_without_a_session_to_the_sign_in_form(client: TestClient) -> None:
    for path in PAGES:
        response = client.get(path, headers=HTML, follow_redirects=False)
        assert response.status_code == 303, path
        assert response.headers["location"] == "/console"
    response = client.get("/console/receipts", headers={"Accept": "application/json"})
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"


def test_signing_out_ends_the_session(reader: Reader) -> None:
    response = reader.client.post(
        "/console/session/end", data={"csrf": reader.csrf}, follow_redirects=False
    )
    assert response.status_code == 303
    reader.client.cookies.clear()
    page = reader.client.get("/console/receipts", headers=HTML, follow_redirects=False)
    assert page.status_code == 303


def test_a_revoked_key_ends_its_session_at_once(reader: Reader, runtime: LedgerRuntime) -> None:
    assert reader.client.get("/console/receipts", headers=HTML).status_code == 200
    runtime.api_keys.revoke("auditor", "left the team", "test:suite")
    response = reader.client.get("/console/receipts", headers=HTML, follow_redirects=False)
    assert response.status_code == 303


def test_a_reissued_key_does_not_keep_the_old_session(
    reader: Reader, runtime: LedgerRuntime
) -> None:
    runtime.api_keys.revoke("auditor", "rotated", "test:suite")
    new_secret = runtime.api_keys.issue("auditor", ["audit:read"], "test:suite")
    assert reader.client.get("/console/receipts", follow_redirects=False).status_code == 401
    sign_in(reader.client, new_secret)
    assert reader.client.get("/console/receipts", headers=HTML).status_code == 200


def test_every_page_carries_a_strict_policy_and_no_inline_script(reader: Reader) -> None:
    paths = [
        *PAGES,
        f"/console/receipts/{reader.seeded.receipt_id}",
        f"/console/receipts/{reader.seeded.hostile_receipt_id}",
        "/console/sources/returns-policy",
        "/console/sources/hostile",
    ]
    for path in paths:
        response = reader.client.get(path, headers=HTML)
        assert response.status_code == 200, path
        assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert "script-src 'self'" in CONTENT_SECURITY_POLICY
        assert "unsafe-inline" not in CONTENT_SECURITY_POLICY
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["cache-control"] == "no-store"
        scripts = re.findall(r"<script[^>]*>", response.text)
        assert scripts == ['<script src="/console/static/console.js" defer>'], path
        assert not re.search(r"<[a-z]+[^>]*\son[a-z]+=", response.text), path
        assert 'style="' not in response.text


def test_odd_console_inputs_are_4xx_never_5xx(reader: Reader) -> None:
    client, csrf = reader.client, reader.csrf
    gets = [
        "/console/receipts/" + "x" * 300,
        "/console/receipts?before=0",
        "/console/receipts?before=99999999999999999999",
        "/console/receipts?status=maybe",
        "/console/receipts?from=9999-12-31&to=9999-12-31",
        "/console/sources/nope",
        "/console/sources/nope?known_at=0001-01-01",
        "/console/sources/returns-policy?old=9",
        "/console/replay?at=9999-12-31",
        "/console/replay?at=%E2%80%AE",
        "/console/claims/nope/bundle.json",
        "/console/nowhere",
    ]
    for path in gets:
        response = client.get(path)
        assert 400 <= response.status_code < 500, (path, response.status_code, response.text)
        assert response.headers["content-type"] == "application/problem+json", path
    posts = [
        ("/console/transparency", {"csrf": csrf, "checkpoint": "\x01garbage"}),
        ("/console/transparency", {"csrf": csrf, "checkpoint": ""}),
        ("/console/claims/nope/verify", {"csrf": csrf}),
    ]
    for path, data in posts:
        response = client.post(path, data=data)
        assert response.status_code < 500, (path, response.text)
    odd = client.post(
        "/console/session",
        content=b"csrf=%ff%fe&api_key=x",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert odd.status_code in (403, 422)
    beacon = client.post(
        "/console/engagement",
        content=b"[1, 2",
        headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"},
    )
    assert beacon.status_code == 422


def test_a_session_ends_when_its_lifetime_is_over(reader: Reader) -> None:
    mount = next(r for r in reader.client.app.routes if getattr(r, "path", "") == "/console")  # type: ignore[attr-defined]
    sessions = mount.app.state.console.sessions
    cookie = reader.client.cookies.get(SESSION_COOKIE)
    now = datetime.now(UTC)
    assert sessions.find(cookie, now) is not None
    later = now + timedelta(seconds=SESSION_SECONDS + 1)
    assert sessions.find(cookie, later) is None
    assert sessions.find("not-a-session", now) is None
