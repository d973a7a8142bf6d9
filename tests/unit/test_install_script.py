"""scripts/serve and scripts/check install the project only when pyproject.toml changed.

The install step (scripts/_install.sh) runs here against a stand-in ``.venv/bin/python`` that
records each pip call, so the test needs neither the network nor a real install."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "scripts" / "_install.sh"
STAND_IN = """#!/usr/bin/env bash
echo "$@" >> "$(dirname "$0")/../pip-calls"
touch "$(dirname "$0")/provledger" && chmod +x "$(dirname "$0")/provledger"
echo "Collecting something"
echo "WARNING: noise pip prints" >&2
echo "Successfully installed provledger-0.1.0"
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A project folder with a pyproject.toml and a .venv whose python is the stand-in."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "provledger"\n')
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("version = 3.11.7\n")
    python = bin_dir / "python"
    python.write_text(STAND_IN)
    python.chmod(0o755)
    return tmp_path


def _install(checkout: Path, extra: str = "") -> str:
    done = subprocess.run(
        ["bash", "-c", f"set -euo pipefail; . {SCRIPT}; install_project {extra}"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stderr


def _pip_calls(checkout: Path) -> list[str]:
    calls = checkout / ".venv" / "pip-calls"
    return calls.read_text().splitlines() if calls.exists() else []


def test_first_run_installs_and_says_so_on_screen(checkout: Path) -> None:
    screen = _install(checkout)

    assert _pip_calls(checkout) == [
        "-m pip install --disable-pip-version-check --progress-bar off -e ."
    ]
    assert "installing provledger (.) and its dependencies into .venv" in screen
    assert "Collecting something" in screen
    assert "WARNING" not in screen


def test_second_run_with_the_same_pyproject_installs_nothing(checkout: Path) -> None:
    _install(checkout)

    screen = _install(checkout)

    assert len(_pip_calls(checkout)) == 1
    assert screen == ""


def test_a_changed_pyproject_reinstalls(checkout: Path) -> None:
    _install(checkout)
    (checkout / "pyproject.toml").write_text('[project]\nname = "provledger"\nversion = "2"\n')

    screen = _install(checkout)

    assert len(_pip_calls(checkout)) == 2
    assert "pyproject.toml changed since the last install" in screen


def test_a_development_install_serves_but_a_plain_one_does_not_run_the_checks(
    checkout: Path,
) -> None:
    _install(checkout)
    _install(checkout, "dev")
    _install(checkout)

    assert _pip_calls(checkout) == [
        "-m pip install --disable-pip-version-check --progress-bar off -e .",
        "-m pip install --disable-pip-version-check --progress-bar off -e .[dev]",
    ]


def test_a_failed_install_stops_and_is_tried_again_next_time(checkout: Path) -> None:
    python = checkout / ".venv" / "bin" / "python"
    python.write_text(STAND_IN + 'echo "ERROR: No matching distribution"\nexit 1\n')

    with pytest.raises(subprocess.CalledProcessError) as failed:
        _install(checkout)

    assert "ERROR: No matching distribution" in failed.value.stderr
    assert not list((checkout / ".venv").glob(".installed*"))
