"""The command line loads a command's module only when that command runs, and its help
lists every command with the line the command's own docstring gives."""

from __future__ import annotations

import importlib
import subprocess
import sys

import click
from click.testing import CliRunner

from api.cli import COMMANDS, main


def test_every_listed_command_is_the_commands_own_name_and_first_help_line() -> None:
    for name, (module, attribute, line) in COMMANDS.items():
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        assert command.name == name
        assert command.get_short_help_str(limit=500) == line


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(main, ["--help"])

    assert result.exit_code == 0, result.output
    listed = [line.split()[0] for line in result.output.split("Commands:")[1].splitlines() if line]
    assert listed == sorted(COMMANDS)


def test_help_and_a_groups_help_import_none_of_the_services() -> None:
    probe = (
        "import sys; from api.cli import main\n"
        "for args in (['--help'], ['keys', '--help'], ['verify', '--help']):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = [m for m in ('api.services', 'api.main', 'sqlalchemy', 'fastapi') "
        "if m in sys.modules]\n"
        "print('heavy:', heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )

    assert "heavy: []" in done.stdout, done.stdout
