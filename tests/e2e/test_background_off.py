"""An API process with ``PROVLEDGER_BACKGROUND=false``: no poller of its own; the projections
and the expiry process run elsewhere (``provledger expire``), and its own reads still see its
own writes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from ledger.receipts.expiry_desk import ExpiryDesk
from ledger.runtime import LedgerRuntime
from processes.expiry import ExpiryProcess
from projections.service import ReadSide
from tests.e2e.flows import commit_verbatim, open_receipt, register


@pytest.fixture
def quiet_client(settings: Settings, runtime: LedgerRuntime) -> Iterator[TestClient]:
    app = create_app(settings.model_copy(update={"background": False}), runtime)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def test_without_background_work_the_api_still_reads_its_own_writes(
    quiet_client: TestClient,
    runtime: LedgerRuntime,
    auth,  # type: ignore[no-untyped-def]
) -> None:
    headers = auth("ingest", "read", "claims:write", "admin", name="app")
    read_side = quiet_client.app.state.services.read_side  # type: ignore[attr-defined]
    assert read_side._poller is None

    spans = register(quiet_client, headers, "src", "Revenue rose 2.2% in 2023. Costs fell.")
    receipt_id = open_receipt(quiet_client, headers, [spans[0]["span_id"]])
    claim = commit_verbatim(quiet_client, headers, receipt_id, spans[0])
    assert claim["status"] == "verified"
    read = quiet_client.get(f"/v1/claims/{claim['claim_id']}", headers=headers)
    assert read.status_code == 200, read.text

    # A new version answers once the expiries it causes are recorded, background or not; a
    # separate expiry process (here, one pass of it) then finds nothing left to record.
    body = {"text": "Revenue rose 2.5% in 2023. Costs fell."}
    added = quiet_client.post("/v1/sources/src/versions", json=body, headers=headers)
    assert added.status_code == 201, added.text
    after = quiet_client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()
    assert after["status"]["status"] == "expired"

    worker = ReadSide(runtime.ledger, runtime.database)
    process = ExpiryProcess(worker, ExpiryDesk(worker.ledger))
    process.run_once()
    worker.close()
    assert process.expired == 0
    again = quiet_client.get(f"/v1/receipts/{receipt_id}", headers=headers).json()
    assert again["status"]["expiries"] == after["status"]["expiries"]
