"""``provledger witness``: run a C2SP tlog-witness that cosigns the ledger's checkpoints; and the
helpers that compare a log or a bundle with what a witness cosigned."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from api.cli._support import cli_settings
from ledger.audit.witness_store import DEFAULT_NAME, WitnessDataDir
from ledger.crypto.cosignature import WitnessKey, parse_witness_vkey
from ledger.crypto.signing import Keyring
from ledger.errors import LedgerError, WitnessError

if TYPE_CHECKING:
    from api.services import Services

_DATA_DIR = click.option(
    "--data-dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="the witness's own directory (its key and state; never the ledger's data dir)",
)


@click.group()
def witness() -> None:
    """Run a witness that cosigns checkpoints of logs it knows (C2SP tlog-witness)."""


@witness.command("init")
@_DATA_DIR
@click.option("--name", default=DEFAULT_NAME, show_default=True, help="the witness's key name")
@click.option(
    "--log",
    "logs",
    multiple=True,
    help="a log's checkpoint verifier key (`provledger witness log-vkey`); repeatable",
)
def witness_init(data_dir: Path, name: str, logs: tuple[str, ...]) -> None:
    """Create the witness's Ed25519 key; print its verifier key as the last line."""
    try:
        key = WitnessDataDir(data_dir).init(name, list(logs))
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"witness {name} created in {data_dir}; its verifier key:")
    click.echo(key.vkey)


@witness.command("add-log")
@_DATA_DIR
@click.argument("vkey")
def witness_add_log(data_dir: Path, vkey: str) -> None:
    """Trust one more log checkpoint key VKEY (restart the witness to use it)."""
    try:
        WitnessDataDir(data_dir).add_log(vkey)
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"the witness now knows {vkey.partition('+')[0]}")


@witness.command("vkey")
@_DATA_DIR
def witness_vkey(data_dir: Path) -> None:
    """Print the witness's verifier key."""
    try:
        click.echo(WitnessDataDir(data_dir).public_key().vkey)
    except (LedgerError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc


@witness.command("log-vkey")
def witness_log_vkey() -> None:
    """Print this ledger's checkpoint verifier keys (one per signing key, newest last),
    for `provledger witness init --log` on the witness's side."""
    from ledger.crypto.checkpoint import vkey

    settings = cli_settings()
    try:
        _, keyring = settings.keystore().open()
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    records = sorted(keyring.records.values(), key=lambda r: (r.status == "active", r.created_at))
    for record in records:
        click.echo(vkey(settings.log_origin, record.public_key))


@witness.command("serve")
@_DATA_DIR
@click.option("--host", default="127.0.0.1", show_default=True, help="interface to bind")
@click.option("--port", default=8010, show_default=True, type=click.IntRange(1, 65535))
def witness_serve(data_dir: Path, host: str, port: int) -> None:
    """Serve POST /add-checkpoint (and GET /checkpoint?origin=...)."""
    import uvicorn

    from api.observability import configure_logging
    from api.witness_app import create_witness_app

    try:
        opened = WitnessDataDir(data_dir).open()
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    settings = cli_settings()
    configure_logging(settings.log_level, settings.log_json)
    app = create_witness_app(opened)
    uvicorn.run(app, host=host, port=port, log_config=None, access_log=False)


def witness_options(command: Callable[..., None]) -> Callable[..., None]:
    """``--witness-url`` and ``--witness-vkey``, for commands that compare with a witness."""
    command = click.option(
        "--witness-vkey",
        help="the witness's verifier key (`provledger witness init` printed it)",
    )(command)
    return click.option(
        "--witness-url",
        help="fail unless the log extends the newest checkpoint this witness cosigned",
    )(command)


def fetch_witnessed(
    url: str | None, vkey: str | None, origin: str
) -> tuple[WitnessKey, str] | None:
    """The witness's key and its newest cosigned note for ``origin`` (None: no witness asked)."""
    if url is None and vkey is None:
        return None
    if not url or not vkey:
        raise click.UsageError("give --witness-url and --witness-vkey together")
    if not origin:
        raise click.ClickException("witness: the bundle names no log origin to ask about")
    from processes.witness_client import WitnessClient

    try:
        key = parse_witness_vkey(vkey)
    except LedgerError as exc:
        raise click.UsageError(f"--witness-vkey: {exc}") from exc
    client = WitnessClient(url)
    try:
        return key, client.latest(origin)
    except WitnessError as exc:
        raise click.ClickException(f"witness: {exc}") from exc
    finally:
        client.close()


def check_store(
    services: Services, keyring: Keyring, witnessed: tuple[WitnessKey, str]
) -> tuple[bool, str]:
    """Compare the event store with the witnessed checkpoint: ``(ok, the line to print)``."""
    from ledger.audit.witness_check import check_log_against_witness
    from projections.transparency_queries import logged_leaves

    key, note = witnessed
    try:
        cosigned = check_log_against_witness(
            services.ledger.recorder,
            keyring,
            note,
            key,
            services.settings.log_origin,
            logged_leaves(services.read_side.db.sync),
        )
    except WitnessError as exc:
        return False, f"FAILED: witness: {exc}"
    return True, (
        f"OK: the log extends the checkpoint of size {cosigned.checkpoint.size} that witness "
        f"{key.name} cosigned at {cosigned.timestamp}"
    )


def check_bundle(
    bundle: dict[str, Any], keyring: Keyring, witnessed: tuple[WitnessKey, str]
) -> tuple[bool, str, str]:
    """Compare a bundle's checkpoint with the witnessed one: ``(ok, the checklist text, the
    reason code of a refusal or "")``."""
    from ledger.audit.witness_check import check_bundle_against_witness

    key, note = witnessed
    try:
        cosigned = check_bundle_against_witness(bundle, note, key, keyring)
    except WitnessError as exc:
        return False, f"witness {key.name}: {exc}", exc.reason.value
    text = (
        f"the checkpoint is, or extends, the one of size {cosigned.checkpoint.size} that "
        f"witness {key.name} cosigned at {cosigned.timestamp}"
    )
    return True, text, ""


def follow_witness(services: Services) -> None:
    """Submit each new checkpoint to the configured witness, if any, after every catch-up
    (for worker processes: ``provledger project`` and ``provledger expire``)."""
    try:
        submitter = services.witness
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    if submitter is not None:
        services.read_side.followers.append(submitter.run_once)
