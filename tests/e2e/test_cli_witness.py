"""``provledger witness`` set-up commands: init, vkey, add-log, and serve's refusals."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from api.cli import main
from ledger.crypto.checkpoint import vkey
from ledger.crypto.cosignature import parse_witness_vkey
from ledger.crypto.signing import SigningKey

LOG_VKEY = vkey("ledger.example/log", SigningKey.generate().public_key)


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_init_prints_the_witness_verifier_key_last_and_keeps_the_key_private(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "w"
    code, output = _run("witness", "init", "--data-dir", str(data_dir), "--log", LOG_VKEY)

    assert code == 0, output
    printed = output.strip().splitlines()[-1]
    assert parse_witness_vkey(printed).name == "provledger.local/witness"
    assert (data_dir / "witness.pem").stat().st_mode & 0o777 == 0o600
    assert json.loads((data_dir / "witness.json").read_text())["logs"] == [LOG_VKEY]
    assert _run("witness", "vkey", "--data-dir", str(data_dir)) == (0, printed + "\n")


def test_init_twice_fails_and_keeps_the_first_key(tmp_path: Path) -> None:
    data_dir = str(tmp_path / "w")
    _, first = _run("witness", "init", "--data-dir", data_dir, "--name", "w.example")
    code, output = _run("witness", "init", "--data-dir", data_dir, "--name", "w.example")

    assert code == 1
    assert "a witness key is never replaced" in output
    assert _run("witness", "vkey", "--data-dir", data_dir)[1] == first.splitlines()[-1] + "\n"


def test_add_log_trusts_another_key_and_refuses_a_malformed_one(tmp_path: Path) -> None:
    data_dir = str(tmp_path / "w")
    _run("witness", "init", "--data-dir", data_dir)

    assert _run("witness", "add-log", "--data-dir", data_dir, LOG_VKEY)[0] == 0
    code, output = _run("witness", "add-log", "--data-dir", data_dir, "ledger.example/log+00+AA")
    assert code == 1
    assert "log key: verifier key 'ledger.example/log+00+AA'" in output
    logs = json.loads((tmp_path / "w" / "witness.json").read_text())["logs"]
    assert logs == [LOG_VKEY]


def test_serve_refuses_an_uninitialised_or_logless_witness(tmp_path: Path) -> None:
    code, output = _run("witness", "serve", "--data-dir", str(tmp_path / "none"))
    assert code == 1
    assert "witness.json is missing: run `provledger witness init` first" in output
    _run("witness", "init", "--data-dir", str(tmp_path / "w"))
    code, output = _run("witness", "serve", "--data-dir", str(tmp_path / "w"))
    assert code == 1
    assert "names no log: add one with `provledger witness add-log`" in output
