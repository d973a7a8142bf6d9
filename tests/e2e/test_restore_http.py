"""The restore procedure end to end: a store restored from an older backup under newer read
models stops the service at start with the positions named; `projections rebuild` recovers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from api.cli import main
from api.main import create_app
from api.settings import Settings
from ledger.errors import ReadModelsAhead
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import register
from tests.tamper import Tamperer


def test_service_refuses_to_start_on_a_rolled_back_store_and_rebuild_recovers(
    settings_env: Settings, runtime: LedgerRuntime
) -> None:
    admin = runtime.api_keys.issue("admin", ["admin"], "test:suite")
    headers = {"Authorization": f"Bearer {admin}"}
    with TestClient(create_app(settings_env, runtime)) as client:
        register(client, headers, "kept", "Revenue rose 2.2% in 2023.")
        kept = runtime.ledger.last_position()
        register(client, headers, "lost", "Costs fell 1% in 2023.")
        end = runtime.ledger.last_position()
        assert client.get("/v1/audit/checkpoint", headers=headers).status_code == 200
    for notification_id in range(end, kept, -1):  # the backup ended at ``kept``
        Tamperer(runtime).delete(notification_id)

    with (
        pytest.raises(ReadModelsAhead, match=rf"is at notification {end} but the event store "),
        TestClient(create_app(settings_env, runtime)),
    ):
        pass  # pragma: no cover - start-up raises

    result = CliRunner().invoke(main, ["projections", "rebuild"])
    assert result.exit_code == 0, result.output
    assert "\nthe transparency log held events the store no longer has" in result.output
    with TestClient(create_app(settings_env, runtime)) as client:
        assert client.get("/v1/sources/kept", headers=headers).status_code == 200
        assert client.get("/v1/sources/lost", headers=headers).status_code == 404
        register(client, headers, "new", "Sales rose 3% in 2024.")
        assert client.get("/v1/sources/new", headers=headers).status_code == 200
        checkpoint = client.get("/v1/audit/checkpoint", headers=headers)
        assert checkpoint.status_code == 200
    assert CliRunner().invoke(main, ["verify", "--read-models"]).exit_code == 0


def test_serve_and_ingest_on_a_rolled_back_store_stop_with_one_line_naming_the_positions(
    settings_env: Settings, runtime: LedgerRuntime, tmp_path: Path
) -> None:
    runtime.api_keys.issue("one", ["read"], "test:suite")
    kept = runtime.ledger.last_position()
    runtime.api_keys.issue("two", ["read"], "test:suite")
    end = runtime.ledger.last_position()
    assert CliRunner().invoke(main, ["projections", "rebuild"]).exit_code == 0
    Tamperer(runtime).delete(end)
    (tmp_path / "a.txt").write_text("Sales rose 3% in 2022.", encoding="utf-8")
    expected = f"Error: read model 'registry' is at notification {end} but the event store ends at "

    for args in (["serve", "--port", "1"], ["ingest", "--no-progress", str(tmp_path / "a.txt")]):
        result = subprocess.run(  # the real console script, as an operator runs it
            [str(Path(sys.executable).parent / "provledger"), *args],
            env=os.environ.copy(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 1, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert result.stderr.startswith(expected + str(kept) + ": ")
        assert runtime.ledger.last_position() == kept  # nothing was written


def test_a_running_service_answers_503_read_models_ahead_after_the_store_rolls_back(
    settings_env: Settings, runtime: LedgerRuntime
) -> None:
    admin = runtime.api_keys.issue("admin", ["admin"], "test:suite")
    headers = {"Authorization": f"Bearer {admin}"}
    with TestClient(create_app(settings_env, runtime), raise_server_exceptions=False) as client:
        register(client, headers, "kept", "Revenue rose 2.2% in 2023.")
        assert client.get("/v1/audit/checkpoint", headers=headers).status_code == 200
        Tamperer(runtime).delete(runtime.ledger.last_position())

        response = client.get("/v1/audit/checkpoint", headers=headers)

    assert response.status_code == 503
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"] == "https://provledger.dev/problems/read-models-ahead"
