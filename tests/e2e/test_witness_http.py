"""A real witness process and a service using it; then an attacker who edits the database.

Deleting the newest event of an aggregate, or the newest events of the log, leaves every
remaining chain intact, so ``provledger verify`` alone passes. Against the witness, which
cosigned the longer log, ``verify``, ``audit log`` and ``audit verify`` fail and say why.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from api.cli import main
from api.cli.witness import follow_witness
from api.main import create_app
from api.services import build_services
from api.settings import Settings
from ledger.crypto.checkpoint import verify_note, vkey
from ledger.crypto.cosignature import parse_witness_vkey, verify_cosignature, witness_vkey
from ledger.crypto.signing import SigningKey
from ledger.runtime import LedgerRuntime
from tests.e2e.flows import commit_verbatim, open_receipt, register
from tests.e2e.witness_server import RunningWitness, free_port, running_witness
from tests.tamper import Tamperer

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice in 2023."


@pytest.fixture
def witness(settings_env: Settings, tmp_path: Path) -> Iterator[RunningWitness]:
    result = CliRunner().invoke(main, ["witness", "log-vkey"])
    assert result.exit_code == 0, result.output
    log_vkeys = result.output.split()
    with running_witness(tmp_path / "witness", log_vkeys) as running:
        yield running


@pytest.fixture
def witnessed(
    settings_env: Settings, runtime: LedgerRuntime, witness: RunningWitness
) -> Iterator[TestClient]:
    settings = settings_env.model_copy(
        update={"witness_url": witness.url, "witness_vkey": witness.vkey, "background": False}
    )
    with TestClient(create_app(settings, runtime), raise_server_exceptions=False) as client:
        yield client


@pytest.fixture
def headers(runtime: LedgerRuntime) -> dict[str, str]:
    secret = runtime.api_keys.issue("auditor", ["admin"], "test:suite")
    return {"Authorization": f"Bearer {secret}"}


def _checkpoint(client: TestClient, headers: dict[str, str]) -> str:
    response = client.get("/v1/audit/checkpoint", headers=headers)
    assert response.status_code == 200, response.text
    return response.text


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def _witness_args(witness: RunningWitness) -> list[str]:
    return ["--witness-url", witness.url, "--witness-vkey", witness.vkey]


def test_log_vkey_is_the_checkpoint_verifier_key_of_the_ledger(
    settings_env: Settings, runtime: LedgerRuntime
) -> None:
    code, output = _cli("witness", "log-vkey")
    assert code == 0, output
    assert output.strip() == vkey(settings_env.log_origin, runtime.ledger.signing_key.public_key)


def test_the_served_checkpoint_carries_the_witness_cosignature(
    witnessed: TestClient,
    headers: dict[str, str],
    runtime: LedgerRuntime,
    witness: RunningWitness,
    settings_env: Settings,
) -> None:
    runtime.api_keys.issue("alpha", ["read"], "t")
    response = witnessed.get("/v1/audit/checkpoint", headers=headers)

    assert response.status_code == 200, response.text
    assert response.headers["X-Witness-State"] == "cosigned"
    cosigned = verify_cosignature(response.text, parse_witness_vkey(witness.vkey))
    origin = settings_env.log_origin
    checkpoint = verify_note(
        response.text, origin, runtime.ledger.signing_key.public_key, origin=origin
    )
    assert cosigned.checkpoint == checkpoint
    assert checkpoint.size == runtime.ledger.last_position() == 2
    ready = witnessed.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["witness"]["state"] == "cosigned"
    assert ready.json()["witness"]["witnessed_size"] == 2


def test_verify_with_the_witness_passes_on_an_intact_log(
    witnessed: TestClient, headers: dict[str, str], witness: RunningWitness
) -> None:
    _checkpoint(witnessed, headers)
    code, output = _cli("verify", "--no-progress", *_witness_args(witness))
    assert code == 0, output
    assert "OK: the log extends the checkpoint of size 1 that witness" in output


def test_deleting_a_revocation_passes_verify_but_fails_against_the_witness(
    witnessed: TestClient,
    headers: dict[str, str],
    runtime: LedgerRuntime,
    witness: RunningWitness,
) -> None:
    secret = runtime.api_keys.issue("alpha", ["read"], "t")
    runtime.api_keys.revoke("alpha", "leaked", "t")
    runtime.api_keys.issue("beta", ["read"], "t")
    _checkpoint(witnessed, headers)  # the witness cosigns all 4 events
    revocation = runtime.ledger.read_log(0, 10)[2]
    assert revocation.topic == "provledger.api_key.revoked"

    Tamperer(runtime).delete(revocation.id)

    assert runtime.api_keys.authenticate(secret) is not None  # the attack: the key works again
    code, output = _cli("verify", "--no-progress")
    assert code == 0, output  # every remaining chain is intact
    code, output = _cli("verify", "--no-progress", *_witness_args(witness))
    assert code == 1, output
    assert "FAILED: witness: log_shorter_than_witnessed: the witness" in output
    assert "log truncated: the store holds 3 events but the checkpoint commits to 4" in output
    assert f"notification {revocation.id} (leaf 2) is in the log but was deleted" in output
    code, output = _cli("audit", "log", *_witness_args(witness))
    assert code == 1, output
    assert "FAILED: witness: log_shorter_than_witnessed" in output


def test_truncating_the_log_fails_verify_and_audit_log_against_the_witness(
    witnessed: TestClient,
    headers: dict[str, str],
    runtime: LedgerRuntime,
    witness: RunningWitness,
    tmp_path: Path,
) -> None:
    runtime.api_keys.issue("alpha", ["read"], "t")
    runtime.api_keys.issue("beta", ["read"], "t")
    saved = tmp_path / "checkpoint.txt"
    saved.write_text(_checkpoint(witnessed, headers))
    for stored in runtime.ledger.read_log(0, 10)[1:]:
        Tamperer(runtime).delete(stored.id)

    code, output = _cli("verify", "--no-progress")
    assert code == 0, output
    code, output = _cli("verify", "--no-progress", *_witness_args(witness))
    assert code == 1, output
    assert "log truncated: the store holds 1 events but the checkpoint commits to 3" in output
    code, output = _cli("audit", "log", "--checkpoint", str(saved), *_witness_args(witness))
    assert code == 1, output
    assert output.count("log truncated") == 2


def test_deleting_an_older_event_is_inconsistent_with_the_witness(
    witnessed: TestClient,
    headers: dict[str, str],
    runtime: LedgerRuntime,
    witness: RunningWitness,
) -> None:
    runtime.api_keys.issue("alpha", ["read"], "t")
    _checkpoint(witnessed, headers)  # the witness cosigns size 2
    runtime.api_keys.issue("beta", ["read"], "t")
    runtime.api_keys.issue("gamma", ["read"], "t")
    alpha = runtime.ledger.read_log(0, 10)[1]
    Tamperer(runtime).delete(alpha.id)  # 3 events remain: more than the witness's 2

    code, output = _cli("verify", "--no-progress")
    assert code == 0, output
    code, output = _cli("audit", "log", *_witness_args(witness))
    assert code == 1, output
    assert "FAILED: witness: log_inconsistent_with_witness: the witness" in output
    assert "the stored events give root" in output
    assert f"notification {alpha.id} (leaf 1) is in the log but was deleted" in output


def _bundle(client: TestClient, headers: dict[str, str], **params: int) -> dict[str, Any]:
    spans = register(client, headers, "s", TEXT)
    receipt = open_receipt(client, headers, [spans[0]["span_id"]])
    claim = commit_verbatim(client, headers, receipt, spans[0])
    response = client.get(f"/v1/claims/{claim['claim_id']}/bundle", headers=headers, params=params)
    assert response.status_code == 200, response.text
    bundle: dict[str, Any] = response.json()
    return bundle


def test_audit_verify_checks_the_bundle_against_the_witness(
    witnessed: TestClient,
    headers: dict[str, str],
    runtime: LedgerRuntime,
    witness: RunningWitness,
    tmp_path: Path,
) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(witnessed.get("/v1/keys").json()))
    bundle = _bundle(witnessed, headers)
    witnessed_size = bundle["checkpoint_size"]
    _checkpoint(witnessed, headers)  # the witness cosigns the bundle's checkpoint
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))

    code, output = _cli(
        "audit", "verify", str(path), "--public-key", str(keys), *_witness_args(witness)
    )
    assert code == 0, output
    assert f"[ok  ] the checkpoint is, or extends, the one of size {witnessed_size}" in output

    runtime.api_keys.issue("later", ["read"], "t")
    _checkpoint(witnessed, headers)  # the witness moves past the saved bundle
    code, output = _cli(
        "audit", "verify", str(path), "--public-key", str(keys), *_witness_args(witness)
    )
    assert code == 1, output
    assert "log_shorter_than_witnessed: the bundle's checkpoint has size" in output
    assert output.rstrip().endswith("NOT VERIFIED (log_shorter_than_witnessed)")


def test_a_worker_process_submits_checkpoints_to_the_witness(
    settings_env: Settings,
    runtime: LedgerRuntime,
    witness: RunningWitness,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PROVLEDGER_WITNESS_URL", witness.url)
    monkeypatch.setenv("PROVLEDGER_WITNESS_VKEY", witness.vkey)
    runtime.api_keys.issue("alpha", ["read"], "t")
    services = build_services(Settings(), runtime)  # the environment names the witness
    try:
        follow_witness(services)  # what `provledger project` and `provledger expire` do
        services.read_side.catch_up()
        for follower in services.read_side.followers:
            follower()
    finally:
        services.close()
    monkeypatch.delenv("PROVLEDGER_WITNESS_URL")
    monkeypatch.delenv("PROVLEDGER_WITNESS_VKEY")

    code, output = _cli("verify", "--no-progress", *_witness_args(witness))
    assert code == 0, output
    assert "OK: the log extends the checkpoint of size 1 that witness" in output


def test_witness_options_must_come_together_and_be_valid(settings_env: Settings) -> None:
    code, output = _cli("verify", "--no-progress", "--witness-url", "http://127.0.0.1:9")
    assert code == 2
    assert "give --witness-url and --witness-vkey together" in output
    code, output = _cli(
        "verify", "--no-progress", "--witness-url", "http://127.0.0.1:9", "--witness-vkey", "x+1+AA"
    )
    assert code == 2
    assert "--witness-vkey: witness key 'x+1+AA'" in output
    code, output = _cli("audit", "log")
    assert code == 2
    assert "give --checkpoint, --witness-url/--witness-vkey, or both" in output


def test_an_unreachable_witness_fails_verify_rather_than_passing_it(
    settings_env: Settings, runtime: LedgerRuntime, tmp_path: Path
) -> None:
    key = witness_vkey("w.example", SigningKey.generate().public_key)
    url = f"http://127.0.0.1:{free_port()}"
    code, output = _cli("verify", "--no-progress", "--witness-url", url, "--witness-vkey", key)
    assert code == 1
    assert f"Error: witness: witness_unavailable: {url} does not answer: ConnectError" in output


def test_deleting_a_withdrawal_brings_the_source_back_but_fails_against_the_witness(
    witnessed: TestClient,
    headers: dict[str, str],
    runtime: LedgerRuntime,
    witness: RunningWitness,
) -> None:
    register(witnessed, headers, "policy-7", TEXT)
    response = witnessed.post(
        "/v1/sources/policy-7/withdraw", json={"reason": "retracted"}, headers=headers
    )
    assert response.status_code == 200, response.text
    _checkpoint(witnessed, headers)  # the witness cosigns the withdrawal
    withdrawal = runtime.ledger.read_log(0, 100)[-1]
    assert withdrawal.topic.endswith("withdrawn")

    Tamperer(runtime).delete(withdrawal.id)

    assert runtime.sources.get("policy-7").withdrawn is False  # the attack

    code, output = _cli("verify", "--no-progress")
    assert code == 0, output
    code, output = _cli("verify", "--no-progress", *_witness_args(witness))
    assert code == 1, output
    assert "FAILED: witness: log_shorter_than_witnessed" in output
    assert (
        f"notification {withdrawal.id} (leaf {withdrawal.id - 1}) is in the log but was deleted"
        in output
    )
