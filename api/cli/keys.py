"""``provledger keys`` and ``provledger signing-keys``: API keys and the keys that sign events."""

from __future__ import annotations

import click

from api.cli._support import actor, cli_settings, open_services
from ledger.access.attributes import Pins
from ledger.errors import LedgerError
from ledger.keys.signing_keys import KeyStore


@click.group()
def keys() -> None:
    """Issue, revoke and list API keys."""


@keys.command("create")
@click.option("--name", required=True, help="unique key name, e.g. report-generator")
@click.option(
    "--scopes",
    required=True,
    help="comma-separated: read, ingest, claims:write, audit:read, admin",
)
@click.option(
    "--pin",
    "pins",
    multiple=True,
    metavar="DIMENSION=V1,V2",
    help="pin what the key's requests may claim as their principal: roles, units, groups, "
    "purposes or destinations (repeatable; an empty list pins nothing claimable)",
)
def keys_create(name: str, scopes: str, pins: tuple[str, ...]) -> None:
    """Issue a key. The secret is printed once, as the last line; only its hash is stored."""
    pinned: dict[str, list[str]] = {}
    for pin in pins:
        dimension, sep, values = pin.partition("=")
        if not sep:
            raise click.BadParameter(f"{pin!r} is not DIMENSION=V1,V2", param_hint="--pin")
        pinned.setdefault(dimension.strip(), []).extend(v for v in values.split(",") if v)
    try:
        parsed = Pins.parse(pinned) if pins else None
        with open_services() as services:
            secret = services.api_keys.issue(name, scopes.split(","), actor(), parsed)
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"issued API key {name!r}; store the secret now, it is not shown again:")
    click.echo(secret)


@keys.command("revoke")
@click.argument("name")
@click.option("--reason", default="revoked by operator", show_default=True)
def keys_revoke(name: str, reason: str) -> None:
    """Revoke the key NAME."""
    with open_services() as services:
        services.api_keys.revoke(name, reason, actor())
    click.echo(f"revoked API key {name!r}")


@keys.command("list")
def keys_list() -> None:
    """List keys with their scopes and status."""
    with open_services() as services:
        for key in services.api_keys.list():
            scopes = ",".join(key["scopes"])
            line = f"{key['name']}\t{key['status']}\t{scopes}\t{key['issued_at']:%Y-%m-%d}"
            if key["pins"] is not None:
                line += "\t" + " ".join(f"{d}={','.join(v)}" for d, v in key["pins"].items())
            click.echo(line)


@click.group("signing-keys")
def signing_keys() -> None:
    """Inspect and rotate the Ed25519 keys that sign events."""


@signing_keys.command("list")
def signing_keys_list() -> None:
    """List the keyring: key ids, status and dates."""
    settings = cli_settings()
    keyring = KeyStore(settings.keys_dir, settings.signing_key_file).load_keyring()
    for entry in keyring.to_json()["keys"]:
        click.echo(f"{entry['kid']}\t{entry['status']}\t{entry['created_at']}")


@signing_keys.command("rotate")
def signing_keys_rotate() -> None:
    """Generate a new signing key; the old one is retired and still verifies old events.

    A running service keeps signing with the key it started with until it restarts.
    """
    settings = cli_settings()
    try:
        signing_key, _ = KeyStore(settings.keys_dir, settings.signing_key_file).rotate()
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"new signing key {signing_key.kid}; restart the service to use it")
