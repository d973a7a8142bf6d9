"""The ``provledger`` command line: serve, manage keys, verify the log."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from api import cli_audit, cli_readside, cli_witness
from api.cli_support import actor, open_runtime, progress_bar
from api.settings import Settings
from ledger.audit.log_verify import VerificationReport, verify_log
from ledger.crypto.signing import Keyring, KeyStore
from ledger.errors import LedgerError


@click.group()
@click.version_option(package_name="provledger")
def main() -> None:
    """provledger: a signed, append-only provenance ledger.

    Configuration comes from PROVLEDGER_* environment variables (see docs/configuration.md).
    """


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="interface to bind")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
def serve(host: str, port: int) -> None:
    """Run the REST API."""
    import uvicorn

    from api.main import create_app
    from api.observability import configure_logging

    settings = Settings()
    configure_logging(settings.log_level, settings.log_json)
    cli_readside.check_read_models_start(settings)
    uvicorn.run(create_app(settings), host=host, port=port, log_config=None, access_log=False)


@main.group()
def keys() -> None:
    """Issue, revoke and list API keys."""


@keys.command("create")
@click.option("--name", required=True, help="unique key name, e.g. report-generator")
@click.option(
    "--scopes",
    required=True,
    help="comma-separated: read, ingest, claims:write, audit:read, admin",
)
def keys_create(name: str, scopes: str) -> None:
    """Issue a key. The secret is printed once, as the last line; only its hash is stored."""
    with open_runtime() as runtime:
        secret = runtime.ledger.issue_api_key(name, scopes.split(","), actor())
    click.echo(f"issued API key {name!r}; store the secret now, it is not shown again:")
    click.echo(secret)


@keys.command("revoke")
@click.argument("name")
@click.option("--reason", default="revoked by operator", show_default=True)
def keys_revoke(name: str, reason: str) -> None:
    """Revoke the key NAME."""
    with open_runtime() as runtime:
        runtime.ledger.revoke_api_key(name, reason, actor())
    click.echo(f"revoked API key {name!r}")


@keys.command("list")
def keys_list() -> None:
    """List keys with their scopes and status."""
    with open_runtime() as runtime:
        for key in runtime.ledger.list_api_keys():
            scopes = ",".join(key["scopes"])
            click.echo(f"{key['name']}\t{key['status']}\t{scopes}\t{key['issued_at']:%Y-%m-%d}")


@main.group("signing-keys")
def signing_keys() -> None:
    """Inspect and rotate the Ed25519 keys that sign events."""


@signing_keys.command("list")
def signing_keys_list() -> None:
    """List the keyring: key ids, status and dates."""
    settings = Settings()
    keyring = KeyStore(settings.keys_dir, settings.signing_key_file).load_keyring()
    for entry in keyring.to_json()["keys"]:
        click.echo(f"{entry['kid']}\t{entry['status']}\t{entry['created_at']}")


@signing_keys.command("rotate")
def signing_keys_rotate() -> None:
    """Generate a new signing key; the old one is retired and still verifies old events.

    A running service keeps signing with the key it started with until it restarts.
    """
    settings = Settings()
    try:
        signing_key, _ = KeyStore(settings.keys_dir, settings.signing_key_file).rotate()
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"new signing key {signing_key.kid}; restart the service to use it")


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


@main.command()
@click.option(
    "--keyring",
    "keyring_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="trusted public keys (keyring.json or a saved GET /v1/keys); default: the data dir's",
)
@click.option("--progress/--no-progress", default=None, help="progress bar (default: on a tty)")
@click.option(
    "--read-models",
    is_flag=True,
    help="also recompute the read models from the verified events; name the first bad row",
)
@cli_witness.witness_options
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
    settings = Settings()
    witnessed = cli_witness.fetch_witnessed(witness_url, witness_vkey, settings.log_origin)
    try:
        keyring = (
            Keyring.load(keyring_file)
            if keyring_file
            else KeyStore(settings.keys_dir, settings.signing_key_file).load_keyring()
        )
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    show_progress = sys.stderr.isatty() if progress is None else progress
    with open_runtime() as runtime:
        total = runtime.ledger.last_position()
        with progress_bar(show_progress, total) as advance:
            report = verify_log(runtime.ledger.recorder, keyring, progress=advance)
        witness_ok, witness_line = (
            cli_witness.check_store(runtime, keyring, witnessed) if witnessed else (True, "")
        )
        _print_report(report)
        if witness_line:
            click.echo(witness_line)
        if report.ok and witness_ok and read_models:
            sys.exit(0 if cli_readside.check_read_models(runtime, keyring) else 1)
    sys.exit(0 if report.ok and witness_ok else 1)


for command in (
    cli_readside.ingest,
    cli_readside.project,
    cli_readside.expire,
    cli_readside.replay,
    cli_readside.projections,
    cli_audit.envelope,
    cli_audit.audit,
    cli_witness.witness,
):
    main.add_command(command)
