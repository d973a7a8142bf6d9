"""The world the pinned-key attacks run in: a restricted source, an open one, and the keys.

``case-4471`` is for group ``investigations`` and purpose ``fraud-review``; ``refund-policy``
is open. A key pinned to group ``support`` (purpose ``fraud-review``) may see only the open
source; an unpinned key is a trusted application. :func:`leaks` names every protected word a
response body carries, and :func:`same_refusal` compares a refusal about the restricted source
with the refusal about a missing one, the ids swapped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fastapi.testclient import TestClient

from ledger.access.attributes import Pins
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import register

SECRET_TITLE = "Investigation 4471 into the Northwind account"
SECRET_TEXT = "Project Falcon will acquire Acme Robotics for $41 million in March."
OPEN_TEXT = "The refund policy allows reversal within 30 days of the charge."
RESTRICTED = {"groups": ["investigations"], "purposes": ["fraud-review"]}
SUPPORT = {"roles": [], "units": [], "groups": ["support"], "purpose": "fraud-review"}
PROTECTED = ("case-4471", SECRET_TITLE, "Northwind", "investigations", "Falcon", "Acme")


@dataclass
class World:
    """The sources' first spans, the keys' headers and the runtime."""

    secret_span: dict[str, Any]
    open_span: dict[str, Any]
    ingester: dict[str, str]
    trusted: dict[str, str]
    support: dict[str, str]
    runtime: LedgerRuntime

    def position(self) -> int:
        """The log's last position (a refused request must not move it)."""
        return self.runtime.ledger.last_position()


def pinned(
    runtime: LedgerRuntime, name: str, scopes: list[str], **pins: list[str]
) -> dict[str, str]:
    """The headers of a new key with ``scopes`` pinning ``pins``."""
    secret = runtime.api_keys.issue(name, scopes, "test:suite", Pins.parse(pins))
    return {"Authorization": f"Bearer {secret}"}


def world(client: TestClient, auth: Any, runtime: LedgerRuntime) -> World:
    """Register the two sources and issue the keys."""
    ingester = auth("ingest", "read", name="ingester")
    secret = register(
        client, ingester, "case-4471", SECRET_TEXT, title=SECRET_TITLE, access=RESTRICTED
    )
    public = register(client, ingester, "refund-policy", OPEN_TEXT)
    scopes = ["read", "claims:write", "ingest", "retrieve"]
    return World(
        secret_span=secret[0],
        open_span=public[0],
        ingester=ingester,
        trusted=auth(*scopes, name="trusted-app"),
        support=pinned(
            runtime, "support-app", scopes, groups=["support"], purposes=["fraud-review"]
        ),
        runtime=runtime,
    )


def leaks(body: Any, sent: tuple[str, ...] = ()) -> list[str]:
    """The protected words ``body`` carries (none, for a key that may not see them), but for
    those the caller ``sent`` itself (an id named in the request)."""
    text = json.dumps(body) if not isinstance(body, str) else body
    return [word for word in PROTECTED if word in text and word not in sent]


def same_refusal(denied: Any, missing: Any, denied_id: str, missing_id: str) -> bool:
    """Whether two responses are the same but for the id each names."""
    if denied.status_code != missing.status_code:
        return False
    return bool(denied.text.replace(denied_id, "ID") == missing.text.replace(missing_id, "ID"))
