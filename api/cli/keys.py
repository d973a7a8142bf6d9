"""``provledger keys`` and ``provledger signing-keys``: API keys and the keys that sign events."""

from __future__ import annotations

import json
from typing import Any

import click

from api.cli._support import actor, cli_settings, open_services
from ledger.access.attributes import Pins
from ledger.errors import LedgerError
from ledger.eventlog.clock import format_time


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
    """Revoke the key NAME. The receipts it opened expire (api_key_revoked) before this
    returns; the last line says how many (their actions: GET /v1/expiries?cause=n<position>)."""
    with open_services() as services:
        position = services.api_keys.revoke(name, reason, actor())
        services.expiry.settle(position)
        expired = services.expiry.expired_by(position)
    click.echo(f"revoked API key {name!r} at position {position}")
    click.echo(f"{expired} receipts expired (cause n{position})")


@keys.command("list")
@click.option("--json", "as_json", is_flag=True, help="one JSON array, for scripts")
def keys_list(as_json: bool) -> None:
    """List keys with their scopes and status (a header, then one key per line)."""
    with open_services() as services:
        found = services.api_keys.list()
    if as_json:
        click.echo(json.dumps([_key_json(key) for key in found], indent=2))
        return
    rows = [
        (
            key["name"],
            key["status"],
            ",".join(key["scopes"]),
            _pins_text(key["pins"]),
            f"{key['issued_at']:%Y-%m-%d}",
        )
        for key in found
    ]
    header = ("NAME", "STATUS", "SCOPES", "PINS", "ISSUED")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    for *padded, issued in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(padded, widths, strict=True)]
        click.echo("  ".join([*cells, issued]))


def _pins_text(pins: dict[str, list[str]] | None) -> str:
    """A key's pinned principal attributes (``-`` for none), one column wide, e.g.
    ``groups=finance;purposes=qa,audit``."""
    if pins is None:
        return "-"
    return ";".join(f"{name}={','.join(values)}" for name, values in pins.items())


def _key_json(key: dict[str, Any]) -> dict[str, Any]:
    """An API key's name, scopes, status and issue time (the ledger's time format)."""
    return {**key, "issued_at": format_time(key["issued_at"])}


@click.group("signing-keys")
def signing_keys() -> None:
    """Inspect and rotate the Ed25519 keys that sign events."""


@signing_keys.command("list")
def signing_keys_list() -> None:
    """List the keyring: key ids, status and dates."""
    settings = cli_settings()
    keyring = settings.keystore().load_keyring()
    for entry in keyring.to_json()["keys"]:
        click.echo(f"{entry['kid']}\t{entry['status']}\t{entry['created_at']}")


@signing_keys.command("rotate")
def signing_keys_rotate() -> None:
    """Generate a new signing key; the old one is retired and still verifies old events.

    A running service keeps signing with the key it started with until it restarts.
    """
    settings = cli_settings()
    try:
        signing_key, _ = settings.keystore().rotate()
    except LedgerError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"new signing key {signing_key.kid}; restart the service to use it")
