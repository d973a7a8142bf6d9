"""``provledger project`` and ``provledger expire``: the read side and the expiry process, each
as its own process."""

from __future__ import annotations

import contextlib

import click

from api.cli._support import open_services
from api.cli.witness import follow_witness


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
