"""Helpers shared by the command-line modules: the actor name, the open ledger, progress."""

from __future__ import annotations

import getpass
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from api.services import open_ledger
from api.settings import Settings
from ledger.errors import LedgerError
from ledger.eventlog.runtime import LedgerRuntime


def actor() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"cli:{user}@{socket.gethostname()}"


@contextmanager
def open_runtime() -> Iterator[LedgerRuntime]:
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
