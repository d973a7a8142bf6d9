"""``provledger audit``: verify a citation-chain bundle, or the stored log against a checkpoint."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from api.cli._support import KEYRING_HELP, cli_settings, keyring_option, open_services
from api.cli.witness import (
    check_bundle,
    check_store,
    fetch_witnessed,
    witness_options,
)
from ledger.crypto.signing import load_public_keys
from ledger.errors import LedgerError


@click.group()
def audit() -> None:
    """Audit citation chains offline."""


@audit.command("verify")
@click.argument("bundle_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@keyring_option(required=True)
@click.option(
    "--previous-checkpoint",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="a checkpoint seen earlier: demand and check a consistency proof from it",
)
@click.option("--origin", help="the log's origin the checkpoint must name (default: the bundle's)")
@witness_options
def audit_verify(
    bundle_file: Path,
    keyring_file: Path,
    previous_checkpoint: Path | None,
    origin: str | None,
    witness_url: str | None,
    witness_vkey: str | None,
) -> None:
    """Verify a citation-chain bundle with no server and no database.

    Prints each check that held, then the first that failed with its reason code
    (docs/audit.md); exits 0 only if everything holds.
    """
    import json

    from ledger.audit.bundle.verify import verify_bundle
    from ledger.crypto.signing import load_public_keys

    try:
        bundle = json.loads(bundle_file.read_bytes())
        keyring = load_public_keys(keyring_file)
        previous = previous_checkpoint.read_text("utf-8") if previous_checkpoint else None
    except (ValueError, OSError, RecursionError, LedgerError) as exc:
        raise click.ClickException(str(exc)) from exc
    bundle_origin = bundle.get("origin") if isinstance(bundle, dict) else None
    witnessed = fetch_witnessed(witness_url, witness_vkey, str(origin or bundle_origin or ""))
    checklist = verify_bundle(bundle, keyring, previous, origin=origin)
    for ok, text in checklist.items:
        click.echo(f"[{'ok  ' if ok else 'FAIL'}] {text}")
    witness_ok, witness_reason = True, ""
    if witnessed is not None:
        witness_ok, text, witness_reason = check_bundle(bundle, keyring, witnessed)
        click.echo(f"[{'ok  ' if witness_ok else 'FAIL'}] {text}")
    if checklist.expired:
        click.echo(f"[note] {checklist.standing}")
    if checklist.ok and witness_ok:
        click.echo("VERIFIED (receipt expired)" if checklist.expired else "VERIFIED")
    else:
        click.echo(f"NOT VERIFIED ({checklist.reason or witness_reason})")
    sys.exit(0 if checklist.ok and witness_ok else 1)


# Over 60 lines with its options: click declares each option above the function; the body
# itself is 56 lines (the saved-checkpoint check, then the witness check, one exit code).
@audit.command("log")
@click.option(
    "--checkpoint",
    "checkpoint_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="a signed checkpoint saved earlier (GET /v1/audit/checkpoint)",
)
@keyring_option(help=KEYRING_HELP + "; default: the data dir's keyring")
@witness_options
def audit_log_command(
    checkpoint_file: Path | None,
    keyring_file: Path | None,
    witness_url: str | None,
    witness_vkey: str | None,
) -> None:
    """Check that the event store still reproduces a signed checkpoint (a saved one, the
    newest a witness cosigned, or both).

    Detects edited, deleted and truncated events, naming the first one that differs.
    """
    if checkpoint_file is None and witness_url is None:
        raise click.UsageError("give --checkpoint, --witness-url/--witness-vkey, or both")
    from ledger.audit.log_audit import audit_log
    from projections.transparency_queries import logged_leaves

    settings = cli_settings()
    try:
        keyring = (
            load_public_keys(keyring_file) if keyring_file else settings.keystore().load_keyring()
        )
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    witnessed = fetch_witnessed(witness_url, witness_vkey, settings.log_origin)
    if checkpoint_file is None:
        assert witnessed is not None
        with open_services(settings) as services:
            ok, line = check_store(services, keyring, witnessed)
        click.echo(line)
        sys.exit(0 if ok else 1)
    note = checkpoint_file.read_text("utf-8")
    with open_services(settings) as services:
        result = audit_log(
            services.ledger.recorder,
            keyring,
            note,
            settings.log_origin,
            logged_leaves(services.read_side.db.sync),
        )
        ok, line = check_store(services, keyring, witnessed) if witnessed else (True, "")
    if result.ok:
        assert result.checkpoint is not None
        click.echo(
            f"OK: {result.events} stored events reproduce the checkpoint of size "
            f"{result.checkpoint.size}"
        )
    for problem in result.problems:
        click.echo(f"FAILED: {problem}")
    if line:
        click.echo(line)
    sys.exit(0 if result.ok and ok else 1)
