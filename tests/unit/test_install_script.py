"""scripts/serve and scripts/check install the project only when pyproject.toml or setup.py
changed (never compiling the gate on the way), add only the development tools to a plain
install, and compile the gate only when its sources changed, once per change where it cannot.

The install step (scripts/_install.sh) runs here against a stand-in ``.venv/bin/python`` that
records each pip call, so the test needs neither the network nor a real install."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from ledger.gate._compiled import digests

REPO = Path(__file__).parents[2]
SCRIPT = REPO / "scripts" / "_install.sh"
STAND_IN = """#!/usr/bin/env bash
if [ "$1" = "-" ] || [ "$1" = "-c" ]; then exec REAL_PYTHON "$@"; fi
echo "${PROVLEDGER_GATE_PURE:+pure }$*" >> "$(dirname "$0")/../pip-calls"
touch "$(dirname "$0")/provledger" && chmod +x "$(dirname "$0")/provledger"
echo "Collecting something"
echo "WARNING: noise pip prints" >&2
echo "Successfully installed provledger-0.1.0"
"""


PYPROJECT = (
    '[project]\nname = "provledger"\n[project.optional-dependencies]\ndev = ["pytest>=8", "ruff"]\n'
)
INSTALL = "pure -m pip install --disable-pip-version-check --progress-bar off --no-compile -e ."
COMPILE = (
    "-m pip install --disable-pip-version-check --progress-bar off --no-compile --no-deps -e ."
)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A project folder with a pyproject.toml and a .venv whose python is the stand-in."""
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("version = 3.11.7\n")
    python = bin_dir / "python"
    python.write_text(STAND_IN.replace("REAL_PYTHON", sys.executable))
    python.chmod(0o755)
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    (tmp_path / "scripts").mkdir()
    shutil.copy(SCRIPT, tmp_path / "scripts")
    return tmp_path


def _install(checkout: Path, extra: str = "", compile_mode: str = "") -> str:
    done = subprocess.run(
        [
            "bash",
            "-c",
            f"set -euo pipefail; . scripts/_install.sh; install_project {extra}; "
            f"compile_gate {compile_mode}",
        ],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stderr


def _pip_calls(checkout: Path) -> list[str]:
    calls = checkout / ".venv" / "pip-calls"
    return calls.read_text().splitlines() if calls.exists() else []


def test_first_run_installs_without_compiling_and_says_so_on_screen(checkout: Path) -> None:
    screen = _install(checkout)

    assert _pip_calls(checkout) == [INSTALL]
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
    (checkout / "pyproject.toml").write_text(PYPROJECT + "# a new dependency\n")

    screen = _install(checkout)

    assert _pip_calls(checkout) == [INSTALL, INSTALL]
    assert "pyproject.toml or setup.py changed since the last install" in screen


def test_a_changed_setup_py_reinstalls(checkout: Path) -> None:
    _install(checkout)
    (checkout / "setup.py").write_text("from setuptools import setup\nsetup(name='x')\n")

    _install(checkout)

    assert len(_pip_calls(checkout)) == 2


def test_the_checks_after_serving_add_the_tools_and_leave_the_project_as_it_is(
    checkout: Path,
) -> None:
    _install(checkout)

    screen = _install(checkout, "dev")
    _install(checkout, "dev")
    _install(checkout)

    assert _pip_calls(checkout) == [
        INSTALL,
        "-m pip install --disable-pip-version-check --progress-bar off --no-compile pytest>=8 ruff",
    ]
    assert "adding the development tools" in screen
    assert "changed" not in screen


def test_a_development_install_from_scratch_installs_the_dev_extra(checkout: Path) -> None:
    _install(checkout, "dev")
    _install(checkout)

    assert _pip_calls(checkout) == [f"{INSTALL}[dev]"]


def _gate(checkout: Path) -> Path:
    """A gate package in the checkout with one compiled module, its extension and a manifest
    of its source (as setup.py writes them)."""
    gate = checkout / "ledger" / "gate"
    gate.mkdir(parents=True)
    shutil.copy(REPO / "ledger" / "gate" / "_compiled.py", gate)
    (gate / "alignment.py").write_text("RULE = 1\n")
    (gate / f"alignment{sysconfig.get_config_var('EXT_SUFFIX')}").write_bytes(b"\x7fELF")
    (gate / "compiled.json").write_text(json.dumps(digests(gate)))
    return gate


def test_current_compiled_gate_is_left_alone(checkout: Path) -> None:
    _gate(checkout)
    _install(checkout)

    screen = _install(checkout)

    assert _pip_calls(checkout) == [INSTALL]
    assert screen == ""


def test_a_changed_gate_source_is_compiled_again(checkout: Path) -> None:
    gate = _gate(checkout)
    _install(checkout)
    (gate / "alignment.py").write_text("RULE = 2\n")

    screen = _install(checkout)

    assert _pip_calls(checkout)[1:] == [COMPILE]
    assert "compiling the commit gate" in screen


def test_a_gate_that_cannot_compile_is_tried_once_for_its_sources(checkout: Path) -> None:
    gate = _gate(checkout)
    (gate / f"alignment{sysconfig.get_config_var('EXT_SUFFIX')}").unlink()

    first = _install(checkout)
    _install(checkout)

    assert _pip_calls(checkout) == [INSTALL, COMPILE]
    assert "could not be compiled" in first
    (gate / "alignment.py").write_text("RULE = 2\n")
    _install(checkout)
    assert _pip_calls(checkout)[2:] == [COMPILE]


def test_serving_compiles_the_gate_in_the_background(checkout: Path) -> None:
    gate = _gate(checkout)
    (gate / "alignment.py").write_text("RULE = 2\n")

    screen = _install(checkout, compile_mode="background")

    assert "build in the background" in screen
    for _ in range(600):  # the compile goes on after the script returned (a loaded machine)
        if COMPILE in _pip_calls(checkout):
            break
        time.sleep(0.1)
    assert _pip_calls(checkout) == [INSTALL, COMPILE]


def test_a_failed_install_stops_and_is_tried_again_next_time(checkout: Path) -> None:
    python = checkout / ".venv" / "bin" / "python"
    failing = 'echo "ERROR: No matching distribution"\nexit 1\n'
    python.write_text(STAND_IN.replace("REAL_PYTHON", sys.executable) + failing)

    with pytest.raises(subprocess.CalledProcessError) as failed:
        _install(checkout)

    assert "ERROR: No matching distribution" in failed.value.stderr
    assert not list((checkout / ".venv").glob(".installed*"))
