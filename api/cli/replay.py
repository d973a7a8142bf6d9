"""``provledger replay`` and ``provledger projections``: rebuild read models from the events."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from api.cli._support import cli_settings, open_services, progress_bar
from ledger.errors import LedgerError


@click.command()
@click.option("--until", required=True, help="RFC 3339 time or a notification position")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--progress/--no-progress", default=None, help="progress bar (default: on a tty)")
def replay(until: str, out_dir: Path, progress: bool | None) -> None:
    """Rebuild every read model from the events up to a point into a fresh SQLite database.

    Re-verifies each event's signature and chain link on the way; prints the digest of the
    rebuilt state on its last line.
    """
    from projections.replay import parse_until
    from projections.replay import replay as run_replay

    settings = cli_settings()
    try:
        position, moment = parse_until(until)
        keyring = settings.keystore().load_keyring()
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    show_progress = sys.stderr.isatty() if progress is None else progress
    with (
        open_services(settings) as services,
        progress_bar(show_progress, services.ledger.last_position(), "replaying events") as bar,
    ):
        result = run_replay(
            services.ledger.recorder,
            services.ledger.signed_mapper,
            keyring,
            out_dir,
            until_position=position,
            until_time=moment,
            progress=bar,
        )
    click.echo(
        f"replayed {result.events} events (to position {result.last_position}, recorded at "
        f"{result.last_recorded_at}) in {result.seconds:.2f}s into {result.database}"
    )
    click.echo(result.digest)


@click.group()
def projections() -> None:
    """Manage read models."""


@projections.command("rebuild")
def projections_rebuild() -> None:
    """Replay every read model from the first event; prints the read models' digest last."""
    with open_services() as services:
        read_side = services.read_side
        digest = read_side.rebuild()
        position = read_side.registry.position()
    if read_side.transparency_rebuilt:
        click.echo(
            "the transparency log held events the store no longer has (or nodes that do not "
            "give its signed root): rebuilt it from the store; checkpoints signed before "
            "this rebuild no longer hold beyond the events the store still has"
        )
    click.echo(f"rebuilt read models to position {position}")
    click.echo(digest)
