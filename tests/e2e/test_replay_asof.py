"""Regulator replay: as-of reads, replay to a date, and their agreement."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.ext.asyncio import create_async_engine

from api.cli import main
from api.settings import Settings
from ledger.eventlog.clock import format_time
from ledger.runtime import LedgerRuntime
from projections import registry_queries
from projections.schema import receipt_claims, receipts
from tests.e2e.flows import commit_verbatim, open_receipt, register

V1 = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice."
V2 = "Revenue rose 2.4% to $4.6 million in 2023. The board met twice."


@pytest.fixture
def headers(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return auth("admin", name="regulator")


@pytest.fixture
def history(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    """v1 with a verified claim; time T; then v2 supersedes v1 and the receipt expires."""
    spans = register(
        client,
        headers,
        "rep",
        V1,
        title="Report",
        authority="source_of_record",
        effective_from="2024-01-01T00:00:00Z",
    )
    receipt = open_receipt(client, headers, [spans[0]["span_id"]], as_of="2024-03-01T00:00:00Z")
    claim = commit_verbatim(client, headers, receipt, spans[0])
    time.sleep(0.01)
    moment = format_time(datetime.now(UTC))
    time.sleep(0.01)
    client.post(
        "/v1/sources/rep/versions",
        json={"text": V2, "effective_from": "2024-06-01T00:00:00Z"},
        headers=headers,
    )
    client.app.state.services.expiry.run_once()  # type: ignore[attr-defined]
    return {"span": spans[0], "receipt": receipt, "claim": claim, "T": moment}


def test_as_of_reads_show_the_ledger_as_it_stood(
    client: TestClient, headers: dict[str, str], history: dict[str, Any]
) -> None:
    then = {"known_at": history["T"]}
    source = client.get("/v1/sources/rep", params=then, headers=headers).json()
    assert [v["status"] for v in source["versions"]] == ["current"]
    now = client.get("/v1/sources/rep", headers=headers).json()
    assert [v["status"] for v in now["versions"]] == ["superseded", "current"]

    receipt_then = client.get(
        f"/v1/receipts/{history['receipt']}", params=then, headers=headers
    ).json()
    assert receipt_then["status"]["status"] == "open"
    receipt_now = client.get(f"/v1/receipts/{history['receipt']}", headers=headers).json()
    assert receipt_now["status"]["reason"] == "source_superseded"

    span_then = client.get(
        f"/v1/spans/{history['span']['span_id']}", params=then, headers=headers
    ).json()
    assert span_then["status"] == "current"
    claim_then = client.get(
        f"/v1/claims/{history['claim']['claim_id']}", params=then, headers=headers
    ).json()
    assert claim_then["receipt_status"] == "open"
    assert claim_then["bindings"][0]["status"] == "current"


def test_valid_at_names_the_version_in_force(
    client: TestClient, headers: dict[str, str], history: dict[str, Any]
) -> None:
    early = client.get(
        "/v1/sources/rep", params={"valid_at": "2024-02-01T00:00:00Z"}, headers=headers
    )
    late = client.get(
        "/v1/sources/rep", params={"valid_at": "2024-07-01T00:00:00Z"}, headers=headers
    )
    before = client.get(
        "/v1/sources/rep", params={"valid_at": "2023-07-01T00:00:00Z"}, headers=headers
    )
    assert early.json()["in_force_version"] == 1
    assert late.json()["in_force_version"] == 2
    assert before.json()["in_force_version"] is None


def test_times_before_anything_are_404_and_malformed_ones_422(
    client: TestClient, headers: dict[str, str], history: dict[str, Any]
) -> None:
    old = {"known_at": "2000-01-01T00:00:00Z"}
    assert client.get("/v1/sources/rep", params=old, headers=headers).status_code == 404
    assert (
        client.get(f"/v1/receipts/{history['receipt']}", params=old, headers=headers).status_code
        == 404
    )
    bad = client.get("/v1/sources/rep", params={"known_at": "last tuesday"}, headers=headers)
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["field"] == "query.known_at"


def test_replay_to_a_time_agrees_with_the_as_of_reads(
    client: TestClient,
    headers: dict[str, str],
    history: dict[str, Any],
    settings: Settings,
    runtime: LedgerRuntime,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("PROVLEDGER_DATA_DIR", str(settings.data_dir))
    if settings.database_url:
        monkeypatch.setenv("PROVLEDGER_DATABASE_URL", settings.database_url)
    out = tmp_path / "replay"

    result = CliRunner().invoke(main, ["replay", "--until", history["T"], "--out", str(out)])

    assert result.exit_code == 0, result.output
    digest = result.output.strip().splitlines()[-1]
    assert digest.startswith("sha256:")

    async def replayed() -> tuple[dict[str, Any], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        engine = create_async_engine(f"sqlite+aiosqlite:///{out / 'readmodels.sqlite3'}")
        async with engine.connect() as conn:
            source = await registry_queries.get_source(conn, "rep")
            rows = (await conn.execute(select(receipts.c.receipt_id, receipts.c.expired_at))).all()
            claims = (
                await conn.execute(select(receipt_claims.c.claim_id, receipt_claims.c.status))
            ).all()
        await engine.dispose()
        return source, [tuple(r) for r in rows], [tuple(c) for c in claims]

    source, receipt_rows, claim_rows = asyncio.run(replayed())
    as_of = client.get("/v1/sources/rep", params={"known_at": history["T"]}, headers=headers).json()
    as_of.pop("as_of")
    assert as_of == source
    assert receipt_rows == [(history["receipt"], None)]
    receipt_then = client.get(
        f"/v1/receipts/{history['receipt']}", params={"known_at": history["T"]}, headers=headers
    ).json()
    assert claim_rows == [(c["claim_id"], c["status"]) for c in receipt_then["claims"]]

    again = CliRunner().invoke(
        main, ["replay", "--until", history["T"], "--out", str(tmp_path / "r2")]
    )
    assert again.output.strip().splitlines()[-1] == digest
    client.app.state.services.read_side.catch_up()  # type: ignore[attr-defined]
    full = CliRunner().invoke(
        main,
        ["replay", "--until", str(runtime.ledger.last_position()), "--out", str(tmp_path / "r3")],
    )
    assert full.output.strip().splitlines()[-1] == client.app.state.services.read_side.digest()  # type: ignore[attr-defined]


def test_replay_refuses_a_malformed_bound(settings_env: Settings, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["replay", "--until", "soon", "--out", str(tmp_path / "x")])
    assert result.exit_code == 1
    assert "not a position or RFC 3339 time" in result.output


def test_provenance_exports_load_as_w3c_prov(
    client: TestClient, headers: dict[str, str], history: dict[str, Any], runtime: LedgerRuntime
) -> None:
    from prov.model import ProvDocument

    for path in (f"/v1/receipts/{history['receipt']}/provenance", "/v1/sources/rep/provenance"):
        response = client.get(path, headers=headers)
        assert response.status_code == 200, response.text
        document = ProvDocument.deserialize(content=response.text, format="json")
        records = {type(record).__name__ for record in document.get_records()}
        assert {"ProvEntity", "ProvActivity", "ProvAgent"} <= records
        assert {"ProvGeneration", "ProvUsage", "ProvDerivation", "ProvAttribution"} <= records
        ids = {str(record.identifier) for record in document.get_records() if record.identifier}
        assert any(i.endswith("claim.2F" + history["claim"]["claim_id"]) for i in ids)
        assert any(i.endswith("source.2Frep.2Fv2") for i in ids)

    lines = client.get(
        f"/v1/receipts/{history['receipt']}/provenance", params={"format": "jsonl"}, headers=headers
    ).text.splitlines()
    stored = {n.state.decode() for n in runtime.ledger.read_log(0, 1000)}
    assert lines
    assert set(lines) <= stored
    assert client.get("/v1/receipts/rcpt_nope/provenance", headers=headers).status_code == 404
    assert (
        client.get(
            "/v1/sources/rep/provenance", params={"format": "xml"}, headers=headers
        ).status_code
        == 422
    )
