"""The ``provledger`` command line: one module per command group, wired to
:func:`api.services.build_services` through :func:`api.cli._support.open_services`."""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="provledger")
def main() -> None:
    """provledger: a signed, append-only provenance ledger.

    Configuration comes from PROVLEDGER_* environment variables (see docs/configuration.md).
    """


def _register() -> None:
    from api.cli import audit, envelope, ingest, keys, replay, serve, verify, witness, workers

    for command in (
        serve.serve,
        keys.keys,
        keys.signing_keys,
        verify.verify,
        ingest.ingest,
        workers.project,
        workers.expire,
        workers.worker,
        replay.replay,
        replay.projections,
        envelope.envelope,
        audit.audit,
        witness.witness,
    ):
        main.add_command(command)


_register()
