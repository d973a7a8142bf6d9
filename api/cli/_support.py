"""Helpers shared by the command modules: the settings, the open services, the actor, progress."""

from __future__ import annotations

import functools
import getpass
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ledger.errors import LedgerError

if TYPE_CHECKING:  # the services take seconds to import; a command imports them when it runs
    from api.services import Services
    from api.settings import Settings


def cli_settings() -> Settings:
    """This command's settings, from ``PROVLEDGER_*`` environment variables."""
    from api.settings import Settings

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
    from api.services import build_services

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
def progress_bar(enabled: bool, total: int, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr named ``label`` (what the command is doing), or nothing."""
    if not enabled:
        yield lambda position: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total or None)
        yield lambda position: bar.update(task, completed=position)


KEYRING_HELP = "trusted public keys: a keyring JSON (saved GET /v1/keys) or an Ed25519 PEM key"
OLD_KEYRING_FLAGS = ("--public-key", "--public-key-file")
"""Earlier names of ``--keyring``, still accepted (hidden from the help)."""
_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


def keyring_option(
    required: bool = False, help: str = KEYRING_HELP
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--keyring FILE``: the trust root of every command that checks signatures, passed to
    the command as ``keyring_file``. ``--public-key`` and ``--public-key-file`` are hidden
    aliases, so scripts written for the old names keep working."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def merged(*args: Any, keyring_alias: Path | None = None, **kwargs: Any) -> Any:
            if kwargs.get("keyring_file") is not None and keyring_alias is not None:
                raise click.UsageError("give --keyring once (--public-key is its old name)")
            if kwargs.get("keyring_file") is None:
                kwargs["keyring_file"] = keyring_alias
            if required and kwargs["keyring_file"] is None:
                raise click.UsageError("Missing option '--keyring'.")
            return command(*args, **kwargs)

        merged = click.option(*OLD_KEYRING_FLAGS, "keyring_alias", type=_FILE, hidden=True)(merged)
        label = help + ("" if not required else " [required]")
        return click.option("--keyring", "keyring_file", type=_FILE, help=label)(merged)

    return decorate
