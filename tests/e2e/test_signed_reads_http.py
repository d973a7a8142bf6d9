"""Every route that signs, or serves signed material, signs only what it verified: attackers
first.

:data:`SIGNING_ROUTES` lists every route that signs a receipt envelope (the API's and the
console's, the bundles' included); a check below keeps the list whole by finding every module
that calls ``seal_envelope``. Under each route the database is tampered with three ways (a
claim's text edited in its ``claims_committed`` event, a frozen text edited in its ``version
added`` event, a receipt event deleted from the middle), and each route must refuse with
``ledger-integrity`` or sign only what the signed events say: the edited text is never signed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from ledger.crypto.canonical import canonical_json
from ledger.runtime import LedgerRuntime
from tests.e2e.console.conftest import sign_in
from tests.e2e.flows import open_receipt, register
from tests.tamper import Tamperer

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice."
EDITED = "Revenue rose 9.9% to $8.8 million in 2023."
PROBLEM = "https://provledger.dev/problems/ledger-integrity"
ROOT = Path(__file__).parents[2]

SIGNING_ROUTES: dict[str, tuple[str, str]] = {
    "api envelope": ("get", "/v1/receipts/{receipt_id}/envelope"),
    "api bundle": ("get", "/v1/claims/{claim_id}/bundle"),
    "console envelope": ("get", "/console/receipts/{receipt_id}/envelope.json"),
    "console bundle": ("get", "/console/claims/{claim_id}/bundle.json"),
    "console verify": ("post", "/console/claims/{claim_id}/verify"),
}
SIGNING_MODULES = {
    "projections/receipt_read_desk.py",
    "projections/bundle.py",
}
"""Every module that signs a receipt envelope: the routes above reach each of them."""


def test_every_module_that_signs_an_envelope_is_reached_by_a_route_listed_here() -> None:
    signers = {
        str(path.relative_to(ROOT))
        for folder in ("api", "projections")
        for path in (ROOT / folder).rglob("*.py")
        if "seal_envelope(" in path.read_text()
    }

    assert signers == SIGNING_MODULES


@pytest.fixture
def quiet(settings: Settings, runtime: LedgerRuntime) -> Iterator[TestClient]:
    """The service without its background poller: the log moves only when asked."""
    app = create_app(settings.model_copy(update={"background": False}), runtime)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def _edit(runtime: LedgerRuntime, position: int, change: Callable[[dict[str, Any]], None]) -> None:
    tamper = Tamperer(runtime)
    document = json.loads(tamper.state(position))
    change(document["body"]["payload"])
    tamper.set_state(position, canonical_json(document))


def _positions(runtime: LedgerRuntime, topic: str) -> list[int]:
    return [n.id for n in runtime.ledger.notifications([topic])]


def _edit_claim(runtime: LedgerRuntime) -> None:
    [position, *_] = _positions(runtime, "provledger.receipt.claims_committed")
    _edit(runtime, position, lambda p: p["claims"][0].update(text=EDITED))


def _edit_frozen_text(runtime: LedgerRuntime) -> None:
    [position] = _positions(runtime, "provledger.source.version_added")
    _edit(runtime, position, lambda p: p.update(text=p["text"].replace("2.2%", "9.9%")))


def _delete_middle_event(runtime: LedgerRuntime) -> None:
    [first, _second] = _positions(runtime, "provledger.receipt.claims_committed")
    Tamperer(runtime).delete(first)


TAMPERS = {
    "claim-text-edited": _edit_claim,
    "frozen-text-edited": _edit_frozen_text,
    "middle-receipt-event-deleted": _delete_middle_event,
}


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
@pytest.mark.parametrize("route", sorted(SIGNING_ROUTES))
def test_a_signing_route_refuses_or_signs_only_what_the_signed_events_say(
    quiet: TestClient, auth: Any, runtime: LedgerRuntime, route: str, tamper: str
) -> None:
    headers = auth("ingest", "read", "claims:write", "audit:read", name="app")
    spans = register(quiet, headers, "memo", TEXT)
    receipt_id = open_receipt(quiet, headers, [s["span_id"] for s in spans])
    claims = []
    for span in spans:
        body = {"claims": [{"text": span["text"], "bindings": [{"span_id": span["span_id"]}]}]}
        answer = quiet.post(f"/v1/receipts/{receipt_id}/claims", json=body, headers=headers)
        assert answer.status_code == 201, answer.text
        claims.append(answer.json()["committed"][0]["claim_id"])
    assert quiet.get("/v1/audit/checkpoint", headers=headers).status_code == 200  # logged
    csrf = sign_in(quiet, headers["Authorization"].split()[1])
    TAMPERS[tamper](runtime)

    method, template = SIGNING_ROUTES[route]
    url = template.format(receipt_id=receipt_id, claim_id=claims[-1])
    if route.startswith("console"):
        response = quiet.request(method, url, data={"csrf": csrf} if method == "post" else None)
    else:
        response = quiet.request(method, url, headers=headers)

    assert "9.9%" not in response.text, (route, tamper)
    assert EDITED not in response.text, (route, tamper)
    if response.status_code != 200:
        assert response.status_code == 500, response.text
        assert PROBLEM in response.text or "ledger-integrity" in response.text
    elif "bundle" in route or "verify" in route:
        pytest.fail(f"{route} answered 200 over a tampered {tamper}: {response.text[:300]}")
