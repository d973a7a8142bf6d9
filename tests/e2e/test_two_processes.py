"""Two processes on one ledger: a server plus `provledger ingest`, or two projection runners.

Each process keeps its own copy of the transparency tree's right edge and of its projections'
positions. When another process moves the read models on, the stale one must notice the
conflict, drop what it holds in memory and re-read: the audit endpoints keep answering and
the CLI exits cleanly.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.settings import Settings
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import commit_verbatim, open_receipt, register

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice in 2023."
CLI = Path(sys.executable).parent / "provledger"


def _env(settings: Settings) -> dict[str, str]:
    env = {**os.environ, "PROVLEDGER_DATA_DIR": str(settings.data_dir)}
    env.pop("PROVLEDGER_DATABASE_URL", None)
    env.pop("PROVLEDGER_SIGNING_KEY_FILE", None)
    if settings.database_url:
        env["PROVLEDGER_DATABASE_URL"] = settings.database_url
    return env


def _cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args],
        env=_env(settings),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture
def headers(auth) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return auth("admin", name="auditor")


def _audit_answers(client: TestClient, headers: dict[str, str], claim_id: str) -> int:
    """Every audit endpoint answers 200; returns the checkpoint's tree size."""
    checkpoint = client.get("/v1/audit/checkpoint", headers=headers)
    assert checkpoint.status_code == 200, checkpoint.text
    size = int(checkpoint.headers["X-Tree-Size"])
    for path in (
        f"/v1/audit/proofs/inclusion?size={size}&index=0",
        f"/v1/audit/proofs/consistency?first=1&second={size}",
        f"/v1/claims/{claim_id}/bundle",
    ):
        response = client.get(path, headers=headers)
        assert response.status_code == 200, (path, response.text)
    return size


def _claim(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    spans = register(client, headers, "s", TEXT)
    receipt = open_receipt(client, headers, [spans[0]["span_id"]])
    return commit_verbatim(client, headers, receipt, spans[0])


def test_audit_endpoints_keep_answering_after_an_ingest_from_another_process(
    client: TestClient,
    headers: dict[str, str],
    settings: Settings,
    runtime: LedgerRuntime,
    tmp_path: Path,
) -> None:
    claim = _claim(client, headers)
    _audit_answers(client, headers, claim["claim_id"])  # the server's tree edge is in memory
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("Sales fell 3% in 2022.", encoding="utf-8")

    result = _cli(settings, "ingest", "--no-progress", str(tmp_path / "docs"))

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "1 documents: 0 created" not in result.stdout
    register(client, headers, "t", "Costs rose 1% in 2024.")  # the server writes after it
    size = _audit_answers(client, headers, claim["claim_id"])
    assert size == runtime.ledger.last_position()


def test_two_projection_processes_and_repeated_ingests_all_finish_cleanly(
    client: TestClient,
    headers: dict[str, str],
    settings: Settings,
    runtime: LedgerRuntime,
    tmp_path: Path,
) -> None:
    claim = _claim(client, headers)
    _audit_answers(client, headers, claim["claim_id"])
    project = subprocess.Popen(
        [str(CLI), "project", "--interval", "0.01"],
        env=_env(settings),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for round_ in range(3):
            folder = tmp_path / f"round{round_}"
            folder.mkdir()
            for n in range(3):
                (folder / f"d{n}.txt").write_text(f"Item {round_}.{n} rose {n}%.", "utf-8")
            result = _cli(settings, "ingest", "--no-progress", str(folder))
            assert result.returncode == 0, result.stderr
            assert "Traceback" not in result.stderr
            register(client, headers, f"http{round_}", f"Costs rose {round_}% in 2024.")
            _audit_answers(client, headers, claim["claim_id"])
    finally:
        project.terminate()
        _, errors = project.communicate(timeout=60)
    assert "Traceback" not in errors, errors
    assert _audit_answers(client, headers, claim["claim_id"]) == runtime.ledger.last_position()
