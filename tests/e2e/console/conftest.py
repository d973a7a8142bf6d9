"""A seeded ledger and a signed-in console reader for the console's HTTP tests."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient

from tests.e2e.console.seed import Seeded, seed

HTML = {"Accept": "text/html"}


def sign_in(client: TestClient, secret: str) -> str:
    """Sign in through the form with ``secret``; return the session's CSRF token."""
    form = client.get("/console/", headers=HTML)
    token = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert token is not None, form.text
    response = client.post(
        "/console/session",
        data={"csrf": token.group(1), "api_key": secret},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    page = client.get("/console/receipts", headers=HTML)
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert csrf is not None, page.text
    return csrf.group(1)


@dataclass
class Reader:
    """A signed-in console reader over a seeded ledger."""

    client: TestClient
    csrf: str
    seeded: Seeded
    admin: dict[str, str]


@pytest.fixture
def reader(client: TestClient, auth) -> Reader:  # type: ignore[no-untyped-def]
    admin = auth("admin", name="seeder")
    seeded = seed(client, admin)
    secret = auth("audit:read", name="auditor")["Authorization"].removeprefix("Bearer ")
    return Reader(client, sign_in(client, secret), seeded, admin)
