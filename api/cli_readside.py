"""Commands for the read side: ingest files, run projections and processes, replay."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from api.cli_support import actor, open_runtime, progress_bar
from api.cli_witness import follow_witness
from api.settings import Settings
from ledger.crypto.signing import Keyring, KeyStore
from ledger.errors import LedgerError
from ledger.eventlog.runtime import LedgerRuntime


@click.command()
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
        with progress_bar(show_progress, len(documents)) as advance:
            outcomes, failures = ingest_documents(documents, sink, advance)
    else:
        with open_runtime() as runtime:
            read_side = ReadSide(
                runtime.ledger, runtime.database, Settings().log_origin, runtime.keyring
            )
            try:
                read_side.catch_up()  # read models out of step with the store: write nothing
                sink = LocalSink(runtime.ledger, actor())
                with progress_bar(show_progress, len(documents)) as advance:
                    outcomes, failures = ingest_documents(documents, sink, advance)
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


@click.command()
@click.option("--interval", default=0.5, show_default=True, help="seconds between polls")
def project(interval: float) -> None:
    """Run the projections as their own process, until interrupted."""
    import signal

    from projections.service import ReadSide

    with open_runtime() as runtime:
        read_side = ReadSide(
            runtime.ledger, runtime.database, Settings().log_origin, runtime.keyring
        )
        follow_witness(read_side)
        signal.signal(signal.SIGTERM, lambda *_: read_side.stop())
        click.echo(f"projecting from position {read_side.registry.position()}")
        try:
            read_side.run_forever(interval)
        except KeyboardInterrupt:
            pass
        finally:
            read_side.close()


@click.command()
@click.option("--interval", default=0.5, show_default=True, help="seconds between polls")
@click.option("--once", is_flag=True, help="handle what is there, then exit")
def expire(interval: float, once: bool) -> None:
    """Run the expiry process as its own process, until interrupted (or once)."""
    import signal

    from processes.expiry import ExpiryProcess
    from projections.service import ReadSide

    with open_runtime() as runtime:
        read_side = ReadSide(
            runtime.ledger, runtime.database, Settings().log_origin, runtime.keyring
        )
        process = ExpiryProcess(read_side)
        signal.signal(signal.SIGTERM, lambda *_: read_side.stop())
        try:
            if once:
                process.run_once()
            else:
                read_side.followers.append(process.run_once)
                follow_witness(read_side)
                read_side.run_forever(interval)
        except KeyboardInterrupt:
            pass
        finally:
            read_side.close()
        click.echo(f"expiry process at position {process.position()}; {process.expired} expired")


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

    settings = Settings()
    try:
        position, moment = parse_until(until)
        keyring = KeyStore(settings.keys_dir, settings.signing_key_file).load_keyring()
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    show_progress = sys.stderr.isatty() if progress is None else progress
    with (
        open_runtime() as runtime,
        progress_bar(show_progress, runtime.ledger.last_position()) as bar,
    ):
        result = run_replay(
            runtime.ledger.recorder,
            runtime.ledger.signed_mapper,
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
    from projections.service import ReadSide

    with open_runtime() as runtime:
        read_side = ReadSide(
            runtime.ledger, runtime.database, Settings().log_origin, runtime.keyring
        )
        try:
            digest = read_side.rebuild()
            position = read_side.registry.position()
        finally:
            read_side.close()
    if read_side.transparency_rebuilt:
        click.echo(
            "the transparency log held events the store no longer has (or nodes that do not "
            "give its signed root): rebuilt it from the store; checkpoints signed before "
            "this rebuild no longer hold beyond the events the store still has"
        )
    click.echo(f"rebuilt read models to position {position}")
    click.echo(digest)


def check_read_models(runtime: LedgerRuntime, keyring: Keyring) -> bool:
    """``verify --read-models``: compare the stored read models with the verified events;
    print the outcome and return whether they match."""
    from projections.database import ReadModelDatabase
    from projections.read_model_check import check_read_models as run_check
    from projections.replay import ReplayError

    database = ReadModelDatabase.open(runtime.database)
    try:
        report = run_check(
            runtime.ledger.recorder, runtime.ledger.signed_mapper, keyring, database.sync
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


def check_read_models_start(settings: Settings) -> None:
    """Catch the read models up before serving: read models ahead of the event store (a store
    restored from an older backup) or a tampered transparency tree stop ``serve`` with the
    reason on one line, not a stack trace from the server's start-up."""
    from projections.service import ReadSide

    with open_runtime() as runtime:  # turns the refusal into one line and exit code 1
        read_side = ReadSide(runtime.ledger, runtime.database, settings.log_origin, runtime.keyring)
        try:
            read_side.catch_up()
        finally:
            read_side.close()
