"""One name for the trust root of every command that checks signatures (`--keyring`), the old
names still accepted; progress bars that say what the command is doing."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from api.cli import main
from api.settings import Settings
from tests.e2e.flows import commit_verbatim, open_receipt, register

TRUST_COMMANDS = [["verify"], ["audit", "verify"], ["audit", "log"], ["envelope", "verify"]]


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize("command", TRUST_COMMANDS, ids=" ".join)
def test_every_trust_root_flag_is_keyring_and_the_old_names_are_hidden(
    command: list[str],
) -> None:
    code, output = _run(*command, "--help")

    assert code == 0, output
    assert "--keyring FILE" in output
    assert "--public-key" not in output


@pytest.fixture
def saved(client: TestClient, auth: Any, settings_env: Settings, tmp_path: Path) -> dict[str, str]:
    """A claim's bundle, its receipt's envelope and the public keys, saved as files."""
    headers = auth("admin", name="app")
    spans = register(client, headers, "s", "Sales rose 4% in 2023.")
    receipt = open_receipt(client, headers, [spans[0]["span_id"]])
    claim = commit_verbatim(client, headers, receipt, spans[0])
    files = {
        "envelope": client.get(f"/v1/receipts/{receipt}/envelope", headers=headers).text,
        "bundle": client.get(f"/v1/claims/{claim['claim_id']}/bundle", headers=headers).text,
        "keys": client.get("/v1/keys").text,
        "checkpoint": client.get("/v1/audit/checkpoint", headers=headers).text,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return {name: str(tmp_path / name) for name in files}


def _commands(saved: dict[str, str]) -> list[list[str]]:
    return [
        ["verify", "--no-progress"],
        ["audit", "verify", saved["bundle"]],
        ["audit", "log", "--checkpoint", saved["checkpoint"]],
        ["envelope", "verify", saved["envelope"]],
    ]


@pytest.mark.parametrize("flag", ["--keyring", "--public-key", "--public-key-file"])
def test_each_trust_command_takes_the_keyring_under_every_name(
    saved: dict[str, str], flag: str
) -> None:
    for command in _commands(saved):
        code, output = _run(*command, flag, saved["keys"])
        assert code == 0, (command, output)


def test_a_keyring_that_does_not_verify_fails_under_every_name(
    saved: dict[str, str], tmp_path: Path
) -> None:
    stranger = json.loads(Path(saved["keys"]).read_text())
    for key in stranger["keys"]:
        key["public_key"] = "A" * 43 + "="
    (tmp_path / "stranger.json").write_text(json.dumps(stranger))
    for flag in ("--keyring", "--public-key"):
        for command in _commands(saved):
            code, output = _run(*command, flag, str(tmp_path / "stranger.json"))
            assert code != 0, (command, flag, output)


def test_the_keyring_given_twice_under_two_names_is_a_usage_error(saved: dict[str, str]) -> None:
    code, output = _run(
        "audit",
        "verify",
        saved["bundle"],
        "--keyring",
        saved["keys"],
        "--public-key",
        saved["keys"],
    )

    assert code == 2
    assert "give --keyring once" in output


def test_audit_verify_still_needs_a_keyring(saved: dict[str, str]) -> None:
    code, output = _run("audit", "verify", saved["bundle"])

    assert code == 2
    assert "Missing option '--keyring'" in output


@pytest.mark.parametrize(
    ("module", "command", "label"),
    [
        ("api.cli.verify", ["verify"], "verifying events"),
        ("api.cli.ingest", ["ingest"], "ingesting documents"),
        ("api.cli.replay", ["replay", "--until", "1"], "replaying events"),
    ],
)
def test_each_progress_bar_says_what_its_command_does(
    settings_env: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    module: str,
    command: list[str],
    label: str,
) -> None:
    labels: list[str] = []

    @contextmanager
    def recording(enabled: bool, total: int, name: str) -> Iterator[Callable[[int], None]]:
        labels.append(name)
        yield lambda position: None

    monkeypatch.setattr(f"{module}.progress_bar", recording)
    (tmp_path / "a.txt").write_text("Sales rose 4% in 2023.")
    _run("ingest", "--no-progress", str(tmp_path / "a.txt"))
    labels.clear()
    extra = [str(tmp_path / "a.txt")] if command == ["ingest"] else []
    if command[0] == "replay":
        extra = ["--out", str(tmp_path / "replayed")]

    code, output = _run(*command, "--progress", *extra)

    assert code == 0, output
    assert labels == [label]
