"""Rows the registry's read model renders are served only as the signed events hold them:
attackers first.

An attacker with write access to the read-model database edits a span's text, a version's
frozen text, a source's title, metadata and URI, and erases a withdrawal. Every read that
renders those rows (a claim with its citations, its bundle, the source and its version, the
span, the source list, the console's pages) must refuse with ``ledger-integrity`` or serve
what the events say; the edited words are never served.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.runtime import LedgerRuntime
from tests.e2e.console.conftest import sign_in
from tests.e2e.flows import commit_verbatim, open_receipt, register
from tests.tamper import Tamperer

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice."
EDITED = "FORGED"


def _span_text(tamper: Tamperer) -> None:
    tamper.read_model(
        "UPDATE registry_spans SET text = %s WHERE source_id = %s AND ord = 0",
        f"{EDITED} revenue rose 9.9%.",
        "memo",
    )


def _frozen_text(tamper: Tamperer) -> None:
    tamper.read_model(
        "UPDATE registry_versions SET frozen_text = %s WHERE source_id = %s",
        TEXT.replace("2.2%", f"9.9% {EDITED}"),
        "memo",
    )


def _title(tamper: Tamperer) -> None:
    tamper.read_model("UPDATE registry_sources SET title = %s WHERE source_id = %s", EDITED, "memo")
    tamper.read_model(
        "UPDATE registry_versions SET title = %s WHERE source_id = %s", EDITED, "memo"
    )


def _uri_and_metadata(tamper: Tamperer) -> None:
    tamper.read_model(
        "UPDATE registry_sources SET uri = %s, metadata = %s WHERE source_id = %s",
        f"https://{EDITED}.example/",
        f'{{"owner": "{EDITED}"}}',
        "memo",
    )


def _erased_withdrawal(tamper: Tamperer) -> None:
    tamper.read_model(
        "UPDATE registry_sources SET withdrawn_at = NULL, withdraw_reason = NULL, "
        "withdrawn_position = NULL WHERE source_id = %s",
        "memo",
    )


EDITS: dict[str, Callable[[Tamperer], None]] = {
    "span-text-edited": _span_text,
    "frozen-text-edited": _frozen_text,
    "title-edited": _title,
    "uri-and-metadata-edited": _uri_and_metadata,
    "withdrawal-erased": _erased_withdrawal,
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_read_model_edit_is_never_served(
    client: TestClient, auth: Any, runtime: LedgerRuntime, edit: str
) -> None:
    headers = auth("ingest", "read", "claims:write", "audit:read", name="app")
    spans = register(client, headers, "memo", TEXT, uri="https://example.org/memo")
    receipt_id = open_receipt(client, headers, [spans[0]["span_id"]])
    claim = commit_verbatim(client, headers, receipt_id, spans[0])
    if edit == "withdrawal-erased":
        client.post("/v1/sources/memo/withdraw", json={"reason": "retracted"}, headers=headers)
    sign_in(client, headers["Authorization"].split()[1])
    EDITS[edit](Tamperer(runtime))

    reads = {
        "claim": client.get(f"/v1/claims/{claim['claim_id']}", headers=headers),
        "bundle": client.get(f"/v1/claims/{claim['claim_id']}/bundle", headers=headers),
        "source": client.get("/v1/sources/memo", headers=headers),
        "version": client.get("/v1/sources/memo/versions/1", headers=headers),
        "span": client.get(f"/v1/spans/{spans[0]['span_id']}", headers=headers),
        "list": client.get("/v1/sources", headers=headers),
        "console source": client.get("/console/sources/memo", headers={"Accept": "text/html"}),
        "console receipt": client.get(
            f"/console/receipts/{receipt_id}", headers={"Accept": "text/html"}
        ),
    }

    for name, response in reads.items():
        assert EDITED not in response.text, (name, edit)
        assert "9.9%" not in response.text, (name, edit)
        assert response.status_code in (200, 500), (name, edit, response.text[:300])
        if response.status_code == 500:
            assert "ledger-integrity" in response.text, (name, edit)
        elif edit == "withdrawal-erased" and name in ("source", "list", "claim"):
            body = response.json()
            if name == "source":
                shown = body["status"]
            elif name == "list":
                shown = body["items"][0]["status"]
            else:
                shown = body["bindings"][0]["status"]
            assert shown == "withdrawn", (name, response.text[:300])
