"""The ``provledger`` command line: one module per command group, wired to
:func:`api.services.build_services` through :func:`api.cli._support.open_services`.

A command's module is imported only when that command runs (:class:`LazyGroup`): the service's
modules take seconds to import, and ``provledger --help`` or ``provledger keys --help`` need
none of them. :data:`COMMANDS` names each command's module and the line ``--help`` shows for
it; ``tests/e2e/test_cli_flags.py`` holds that line to the command's own docstring.
"""

from __future__ import annotations

import importlib

import click

COMMANDS: dict[str, tuple[str, str, str]] = {
    "audit": ("api.cli.audit", "audit", "Audit citation chains offline."),
    "envelope": ("api.cli.envelope", "envelope", "Work with receipt envelopes offline."),
    "expire": (
        "api.cli.workers",
        "expire",
        "Run the expiry process as its own process, until interrupted (or once).",
    ),
    "ingest": (
        "api.cli.ingest",
        "ingest",
        "Ingest .txt, .md and .html files (folders recursively) into the registry.",
    ),
    "keys": ("api.cli.keys", "keys", "Issue, revoke and list API keys."),
    "project": (
        "api.cli.workers",
        "project",
        "Run the projections as their own process, until interrupted.",
    ),
    "projections": ("api.cli.replay", "projections", "Manage read models."),
    "replay": (
        "api.cli.replay",
        "replay",
        "Rebuild every read model from the events up to a point into a fresh SQLite database.",
    ),
    "serve": ("api.cli.serve", "serve", "Run the REST API."),
    "signing-keys": (
        "api.cli.keys",
        "signing_keys",
        "Inspect and rotate the Ed25519 keys that sign events.",
    ),
    "verify": (
        "api.cli.verify",
        "verify",
        "Check every event's signature and chain link, in notification order.",
    ),
    "witness": (
        "api.cli.witness",
        "witness",
        "Run a witness that cosigns checkpoints of logs it knows (C2SP tlog-witness).",
    ),
    "worker": (
        "api.cli.workers",
        "worker",
        "Run the ledger's background work once for the ledger, until interrupted.",
    ),
}
"""Command name: (module, attribute, the first line of its help)."""


class LazyGroup(click.Group):
    """A group whose commands (:data:`COMMANDS`) are imported when one is invoked."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command, by name."""
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, its module imported now."""
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module, attribute, _ = COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the table, importing nothing."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [
            (name, click.Command(name, help=COMMANDS[name][2]).get_short_help_str(limit))
            for name in self.list_commands(ctx)
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup)
@click.version_option(package_name="provledger")
def main() -> None:
    """provledger: a signed, append-only provenance ledger.

    Configuration comes from PROVLEDGER_* environment variables (see docs/configuration.md).
    """
