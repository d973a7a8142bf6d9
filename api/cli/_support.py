"""Helpers shared by the command modules: the settings, the open services, the actor, progress."""

from __future__ import annotations

import getpass
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from api.services import Services, build_services
from api.settings import Settings
from ledger.errors import LedgerError


def cli_settings() -> Settings:
    """This command's settings, from ``PROVLEDGER_*`` environment variables."""
    return Settings()


def actor() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"cli:{user}@{socket.gethostname()}"


@contextmanager
def open_services(settings: Settings | None = None) -> Iterator[Services]:
    """The services of the configured ledger (see :func:`api.services.build_services`), closed
    on exit; a domain error becomes a one-line ``ClickException``."""
    try:
        services = build_services(settings or cli_settings())
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        yield services
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        services.close()


@contextmanager
def progress_bar(enabled: bool, total: int) -> Iterator[Callable[[int], None]]:
    if not enabled:
        yield lambda position: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("verifying", total=total or None)
        yield lambda position: bar.update(task, completed=position)
