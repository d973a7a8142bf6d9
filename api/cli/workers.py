"""``provledger project`` and ``provledger expire``: the read side and the expiry process, each
as its own process; ``provledger worker``: all the background work, once for the ledger."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from api.cli._support import open_services
from api.cli.witness import follow_witness
from ledger.errors import LedgerError


@click.command()
@click.option("--interval", default=0.5, show_default=True, help="seconds between polls")
def project(interval: float) -> None:
    """Run the projections as their own process, until interrupted."""
    import signal

    with open_services() as services:
        read_side = services.read_side
        follow_witness(services)
        signal.signal(signal.SIGTERM, lambda *_: read_side.stop())
        click.echo(f"projecting from position {read_side.registry.position()}")
        with contextlib.suppress(KeyboardInterrupt):
            read_side.run_forever(interval)


@click.command()
@click.option("--interval", default=0.5, show_default=True, help="seconds between polls")
@click.option("--once", is_flag=True, help="handle what is there, then exit")
def expire(interval: float, once: bool) -> None:
    """Run the expiry process as its own process, until interrupted (or once)."""
    import signal

    with open_services() as services:
        read_side = services.read_side
        process = services.expiry
        signal.signal(signal.SIGTERM, lambda *_: read_side.stop())
        try:
            if once:
                process.run_once()
            else:
                read_side.followers.append(process.run_once)
                follow_witness(services)
                read_side.run_forever(interval)
        except KeyboardInterrupt:
            pass
        click.echo(f"expiry process at position {process.position()}; {process.expired} expired")


@click.command()
@click.option("--interval", default=0.5, show_default=True, help="seconds between polls")
@click.option(
    "--heartbeat",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="touch this file after every round while holding the lease (a health check reads its age)",
)
def worker(interval: float, heartbeat: Path | None) -> None:
    """Run the ledger's background work once for the ledger, until interrupted.

    The projections, the expiry process, entailment sampling (when configured) and witness
    submission (when configured), under the worker lease: a second worker on the same ledger
    waits, and takes over when the first exits (see docs/deployment.md)."""
    import signal
    import threading

    from api.tracing import start_tracing
    from processes.lease import WorkerLease

    stop = threading.Event()
    tracing = start_tracing()  # projection batches and appends, when OTEL_* asks for it
    with contextlib.ExitStack() as cleanup, open_services() as services:
        if tracing is not None:
            cleanup.callback(tracing.close)
        read_side = services.read_side

        def interrupt(*_: object) -> None:
            stop.set()
            read_side.stop()

        signal.signal(signal.SIGTERM, interrupt)
        signal.signal(signal.SIGINT, interrupt)
        lease = WorkerLease(services.runtime.database)

        def waiting() -> None:
            click.echo(
                f"waiting for the worker lease ({lease.describe()}): another worker holds it"
            )

        try:
            if not lease.acquire(stop, waiting):
                return
            click.echo(
                f"worker lease held ({lease.describe()}); working from position "
                f"{read_side.registry.position()}"
            )
            try:
                services.follow()
            except LedgerError as exc:
                raise click.ClickException(str(exc)) from exc

            def check_lease() -> None:
                if not lease.still_held():
                    raise click.ClickException(
                        f"lost the worker lease ({lease.describe()}); stopping"
                    )

            read_side.followers.append(check_lease)
            if heartbeat is not None:
                read_side.followers.append(heartbeat.touch)
            read_side.run_forever(interval)
        finally:
            lease.release()
        click.echo("worker stopped; lease released")
