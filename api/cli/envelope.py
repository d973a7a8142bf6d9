"""``provledger envelope``: check a receipt envelope with no server."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from api.cli._support import keyring_option
from ledger.crypto.signing import load_public_keys
from ledger.errors import LedgerError


@click.group()
def envelope() -> None:
    """Work with receipt envelopes offline."""


@envelope.command("verify")
@click.argument("envelope_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--hmac-key-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="the ledger's shared HMAC key (64 hex digits)",
)
@keyring_option()
def envelope_verify(
    envelope_file: Path, hmac_key_file: Path | None, keyring_file: Path | None
) -> None:
    """Check a receipt envelope with no server: signatures, canonical payload, receipt id.

    Prints a checklist; exits 0 only if everything holds.
    """
    import json

    from ledger.audit.envelope_verification import verify_receipt_envelope
    from ledger.crypto.hmac_keys import HmacKey

    if hmac_key_file is None and keyring_file is None:
        raise click.UsageError("give --hmac-key-file, --keyring or both")
    try:
        document = json.loads(envelope_file.read_bytes())
        hmac_key = HmacKey.load(hmac_key_file) if hmac_key_file else None
        keyring = load_public_keys(keyring_file) if keyring_file else None
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
