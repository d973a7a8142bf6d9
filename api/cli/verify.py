"""``provledger verify``: check every event's signature and chain link (and the read models)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from api.cli._support import (
    KEYRING_HELP,
    cli_settings,
    keyring_option,
    open_services,
    progress_bar,
)
from api.cli.witness import (
    check_store,
    fetch_witnessed,
    witness_options,
)
from ledger.audit.log_verify import VerificationReport, verify_log
from ledger.crypto.signing import Keyring, load_public_keys
from ledger.errors import LedgerError

if TYPE_CHECKING:
    from api.services import Services


def _print_report(report: VerificationReport) -> None:
    if report.failure is None:
        keys_used = ", ".join(f"{kid} ({count})" for kid, count in sorted(report.keys_used.items()))
        click.echo(
            f"OK: {report.events} events in {report.aggregates} aggregates verified "
            f"(last notification {report.last_notification_id}) in "
            f"{report.elapsed_seconds:.2f}s, {report.events_per_second:,.0f} events/s; "
            f"keys used: {keys_used or 'none'}"
        )
        return
    failure = report.failure
    click.echo(
        f"FAILED at notification {failure.notification_id}: aggregate {failure.originator_id} "
        f"version {failure.originator_version}: {failure.reason.value}: {failure.detail} "
        f"({report.events} events verified before it)"
    )


@click.command()
@keyring_option(help=KEYRING_HELP + "; default: the data dir's keyring")
@click.option("--progress/--no-progress", default=None, help="progress bar (default: on a tty)")
@click.option(
    "--read-models",
    is_flag=True,
    help="also recompute the read models from the verified events; name the first bad row",
)
@witness_options
def verify(
    keyring_file: Path | None,
    progress: bool | None,
    read_models: bool,
    witness_url: str | None,
    witness_vkey: str | None,
) -> None:
    """Check every event's signature and chain link, in notification order.

    Exits 0 when the whole log is intact, 1 at the first bad event (named with its
    notification id, aggregate and reason). With --read-models, also 1 at the first
    read-model row (table and primary key) that the verified events do not give. With a
    witness, also 1 when the log is shorter than, or inconsistent with, the newest checkpoint
    the witness cosigned.
    """
    settings = cli_settings()
    witnessed = fetch_witnessed(witness_url, witness_vkey, settings.log_origin)
    try:
        keyring = (
            load_public_keys(keyring_file) if keyring_file else settings.keystore().load_keyring()
        )
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    show_progress = sys.stderr.isatty() if progress is None else progress
    with open_services(settings) as services:
        total = services.ledger.last_position()
        with progress_bar(show_progress, total, "verifying events") as advance:
            report = verify_log(services.ledger.recorder, keyring, progress=advance)
        witness_ok, witness_line = (
            check_store(services, keyring, witnessed) if witnessed else (True, "")
        )
        _print_report(report)
        if witness_line:
            click.echo(witness_line)
        if report.ok and witness_ok and read_models:
            sys.exit(0 if check_read_models(services, keyring) else 1)
    sys.exit(0 if report.ok and witness_ok else 1)


def check_read_models(services: Services, keyring: Keyring) -> bool:
    """``verify --read-models``: compare the stored read models with the verified events;
    print the outcome and return whether they match."""
    from ledger.errors import ReplayError
    from projections.database import ReadModelDatabase
    from projections.read_model_check import check_read_models as run_check

    database = ReadModelDatabase.open(services.runtime.database)
    try:
        report = run_check(
            services.ledger.recorder, services.ledger.signed_mapper, keyring, database.sync
        )
    except ReplayError as exc:
        click.echo(f"FAILED read models: the events they are built from: {exc}")
        return False
    finally:
        database.close()
    if report.difference is not None:
        click.echo(f"FAILED read models: {report.difference}")
        return False
    click.echo(
        f"OK: read models match the verified events (registry at {report.registry_position}, "
        f"receipts at {report.receipts_position}; transparency log of {report.leaves} leaves, "
        f"{report.checkpoints} checkpoints)"
    )
    click.echo(report.digest)
    return True
