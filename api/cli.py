"""The ``provledger`` command line: serve, manage keys, verify the log."""

from __future__ import annotations

import getpass
import socket
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ledger.bootstrap import LedgerRuntime, open_ledger
from ledger.errors import LedgerError
from ledger.settings import Settings
from ledger.signing import Keyring, KeyStore, load_public_keys
from ledger.verify import VerificationReport, verify_log


def _actor() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"cli:{user}@{socket.gethostname()}"


@contextmanager
def _runtime() -> Iterator[LedgerRuntime]:
    try:
        runtime = open_ledger(Settings())
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        yield runtime
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        runtime.close()


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
    uvicorn.run(create_app(settings), host=host, port=port, log_config=None, access_log=False)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--url", help="ingest into a running service at this base URL")
@click.option("--api-key", envvar="PROVLEDGER_API_KEY", help="key with the ingest scope")
@click.option("--progress/--no-progress", default=None, help="progress bar (default: on a tty)")
def ingest(
    paths: tuple[Path, ...], url: str | None, api_key: str | None, progress: bool | None
) -> None:
    """Ingest .txt, .md and .html files (folders recursively) into the registry.

    A file's source id is its path under the folder given (or its name). A changed file
    becomes a new version; an unchanged one is left alone.
    """
    from api.ingest_files import LocalSink, RemoteSink, Sink, find_documents, ingest_documents
    from projections.service import ReadSide

    documents = find_documents(list(paths))
    show_progress = sys.stderr.isatty() if progress is None else progress
    if url:
        if not api_key:
            raise click.UsageError("--url needs --api-key (or PROVLEDGER_API_KEY)")
        sink: Sink = RemoteSink(url, api_key)
        with _progress_bar(show_progress, len(documents)) as advance:
            outcomes, failures = ingest_documents(documents, sink, advance)
    else:
        with _runtime() as runtime:
            sink = LocalSink(runtime.ledger, _actor())
            with _progress_bar(show_progress, len(documents)) as advance:
                outcomes, failures = ingest_documents(documents, sink, advance)
            read_side = ReadSide(runtime.ledger, runtime.database, Settings().log_origin)
            try:
                read_side.catch_up()
            finally:
                read_side.close()
    for failure in failures:
        click.echo(f"failed: {failure}", err=True)
    summary = ", ".join(
        f"{outcomes[k]} {k}" for k in ("created", "new-version", "unchanged", "failed")
    )
    click.echo(f"{len(documents)} documents: {summary}")
    sys.exit(1 if failures else 0)


@main.command()
@click.option("--interval", default=0.5, show_default=True, help="seconds between polls")
def project(interval: float) -> None:
    """Run the projections as their own process, until interrupted."""
    import signal

    from projections.service import ReadSide

    with _runtime() as runtime:
        read_side = ReadSide(runtime.ledger, runtime.database, Settings().log_origin)
        signal.signal(signal.SIGTERM, lambda *_: read_side.stop())
        click.echo(f"projecting from position {read_side.registry.position()}")
        try:
            read_side.run_forever(interval)
        except KeyboardInterrupt:
            pass
        finally:
            read_side.close()


@main.command()
@click.option("--interval", default=0.5, show_default=True, help="seconds between polls")
@click.option("--once", is_flag=True, help="handle what is there, then exit")
def expire(interval: float, once: bool) -> None:
    """Run the expiry process as its own process, until interrupted (or once)."""
    import signal

    from projections.expiry_process import ExpiryProcess
    from projections.service import ReadSide

    with _runtime() as runtime:
        read_side = ReadSide(runtime.ledger, runtime.database, Settings().log_origin)
        process = ExpiryProcess(read_side)
        signal.signal(signal.SIGTERM, lambda *_: read_side.stop())
        try:
            if once:
                process.run_once()
            else:
                read_side.followers.append(process.run_once)
                read_side.run_forever(interval)
        except KeyboardInterrupt:
            pass
        finally:
            read_side.close()
        click.echo(f"expiry process at position {process.position()}; {process.expired} expired")


@main.command()
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

    settings = Settings()
    try:
        position, moment = parse_until(until)
        keyring = KeyStore(settings.keys_dir, settings.signing_key_file).load_keyring()
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    show_progress = sys.stderr.isatty() if progress is None else progress
    with _runtime() as runtime, _progress_bar(show_progress, runtime.ledger.last_position()) as bar:
        result = run_replay(
            runtime.ledger.recorder,
            runtime.ledger.mapper,
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


@main.group()
def projections() -> None:
    """Manage read models."""


@projections.command("rebuild")
def projections_rebuild() -> None:
    """Replay every read model from the first event; prints the read models' digest last."""
    from projections.service import ReadSide

    with _runtime() as runtime:
        read_side = ReadSide(runtime.ledger, runtime.database, Settings().log_origin)
        try:
            digest = read_side.rebuild()
            position = read_side.registry.position()
        finally:
            read_side.close()
    click.echo(f"rebuilt read models to position {position}")
    click.echo(digest)


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
    with _runtime() as runtime:
        secret = runtime.ledger.issue_api_key(name, scopes.split(","), _actor())
    click.echo(f"issued API key {name!r}; store the secret now, it is not shown again:")
    click.echo(secret)


@keys.command("revoke")
@click.argument("name")
@click.option("--reason", default="revoked by operator", show_default=True)
def keys_revoke(name: str, reason: str) -> None:
    """Revoke the key NAME."""
    with _runtime() as runtime:
        runtime.ledger.revoke_api_key(name, reason, _actor())
    click.echo(f"revoked API key {name!r}")


@keys.command("list")
def keys_list() -> None:
    """List keys with their scopes and status."""
    with _runtime() as runtime:
        for key in runtime.ledger.list_api_keys():
            scopes = ",".join(key["scopes"])
            click.echo(f"{key['name']}\t{key['status']}\t{scopes}\t{key['issued_at']:%Y-%m-%d}")


@main.group()
def envelope() -> None:
    """Work with receipt envelopes offline."""


@envelope.command("verify")
@click.argument("envelope_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--hmac-key-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="the ledger's shared HMAC key (64 hex digits)",
)
@click.option(
    "--public-key-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="keyring JSON (GET /v1/keys) or an Ed25519 public key in PEM",
)
def envelope_verify(
    envelope_file: Path, hmac_key_file: Path | None, public_key_file: Path | None
) -> None:
    """Check a receipt envelope with no server: signatures, canonical payload, receipt id.

    Prints a checklist; exits 0 only if everything holds.
    """
    import json

    from ledger.envelope_verification import verify_receipt_envelope
    from ledger.hmac_keys import HmacKey

    if hmac_key_file is None and public_key_file is None:
        raise click.UsageError("give --hmac-key-file, --public-key-file or both")
    try:
        document = json.loads(envelope_file.read_bytes())
        hmac_key = HmacKey.load(hmac_key_file) if hmac_key_file else None
        keyring = load_public_keys(public_key_file) if public_key_file else None
    except (ValueError, LedgerError) as exc:
        raise click.ClickException(str(exc)) from exc
    result = verify_receipt_envelope(document, hmac_key, keyring)
    for signature in result["signatures"]:
        mark = "ok  " if signature["valid"] else "FAIL"
        click.echo(
            f"[{mark}] {signature['alg']} signature {signature['keyid']}: {signature['reason']}"
        )
    for reason in result["reasons"]:
        click.echo(f"[FAIL] {reason}")
    if result["valid"]:
        status = result["status"] or {}
        click.echo(
            f"[ok  ] payload canonical, receipt id {result['receipt_id']} matches its content"
        )
        click.echo(f"VALID: receipt {result['receipt_id']} ({status.get('status')})")
    else:
        click.echo("INVALID")
    sys.exit(0 if result["valid"] else 1)


@main.group()
def audit() -> None:
    """Audit citation chains offline."""


@audit.command("verify")
@click.argument("bundle_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--public-key",
    "public_key_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="trusted keys: keyring JSON (GET /v1/keys) or an Ed25519 public key in PEM",
)
@click.option(
    "--previous-checkpoint",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="a checkpoint seen earlier: demand and check a consistency proof from it",
)
def audit_verify(
    bundle_file: Path, public_key_file: Path, previous_checkpoint: Path | None
) -> None:
    """Verify a citation-chain bundle with no server and no database.

    Prints a checklist; exits 0 only if everything holds.
    """
    import json

    from ledger.bundle_verify import verify_bundle
    from ledger.signing import load_public_keys

    try:
        bundle = json.loads(bundle_file.read_bytes())
        keyring = load_public_keys(public_key_file)
        previous = previous_checkpoint.read_text("utf-8") if previous_checkpoint else None
    except (ValueError, OSError, LedgerError) as exc:
        raise click.ClickException(str(exc)) from exc
    checklist = verify_bundle(bundle, keyring, previous)
    for ok, text in checklist.items:
        click.echo(f"[{'ok  ' if ok else 'FAIL'}] {text}")
    click.echo("VERIFIED" if checklist.ok else "NOT VERIFIED")
    sys.exit(0 if checklist.ok else 1)


@audit.command("log")
@click.option(
    "--checkpoint",
    "checkpoint_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="a signed checkpoint saved earlier (GET /v1/audit/checkpoint)",
)
@click.option(
    "--keyring",
    "keyring_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="trusted public keys; default: the data dir's keyring",
)
def audit_log_command(checkpoint_file: Path, keyring_file: Path | None) -> None:
    """Check that the event store still reproduces a signed checkpoint.

    Detects edited, deleted and truncated events, naming the first one that differs.
    """
    from ledger.log_audit import audit_log
    from projections.service import ReadSide
    from projections.transparency_queries import logged_leaves

    settings = Settings()
    try:
        keyring = (
            load_public_keys(keyring_file)
            if keyring_file
            else KeyStore(settings.keys_dir, settings.signing_key_file).load_keyring()
        )
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    note = checkpoint_file.read_text("utf-8")
    with _runtime() as runtime:
        read_side = ReadSide(runtime.ledger, runtime.database, settings.log_origin)
        try:
            result = audit_log(
                runtime.ledger.recorder,
                keyring,
                note,
                settings.log_origin,
                logged_leaves(read_side.db.sync),
            )
        finally:
            read_side.close()
    if result.ok:
        assert result.checkpoint is not None
        click.echo(
            f"OK: {result.events} stored events reproduce the checkpoint of size "
            f"{result.checkpoint.size}"
        )
        return
    for problem in result.problems:
        click.echo(f"FAILED: {problem}")
    sys.exit(1)


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
def verify(keyring_file: Path | None, progress: bool | None) -> None:
    """Check every event's signature and chain link, in notification order.

    Exits 0 when the whole log is intact, 1 at the first bad event (named with its
    notification id, aggregate and reason).
    """
    settings = Settings()
    try:
        keyring = (
            Keyring.load(keyring_file)
            if keyring_file
            else KeyStore(settings.keys_dir, settings.signing_key_file).load_keyring()
        )
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    show_progress = sys.stderr.isatty() if progress is None else progress
    with _runtime() as runtime:
        total = runtime.ledger.last_position()
        with _progress_bar(show_progress, total) as advance:
            report = verify_log(runtime.ledger.recorder, keyring, progress=advance)
    _print_report(report)
    sys.exit(0 if report.ok else 1)


@contextmanager
def _progress_bar(enabled: bool, total: int) -> Iterator[Callable[[int], None]]:
    if not enabled:
        yield lambda position: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("verifying", total=total or None)
        yield lambda position: bar.update(task, completed=position)
