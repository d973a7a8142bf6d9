"""``provledger serve``: run the REST API."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from api.cli._support import cli_settings, open_services

if TYPE_CHECKING:
    from api.settings import Settings

WORKER_HEALTHCHECK_SECONDS = 30
"""How long uvicorn's supervisor waits for an API process to answer its health ping before it
kills and replaces it. Its default, 5 s, is shorter than an API process's start on a busy
machine (spawning, importing, opening the ledger): replicas were killed while starting, over
and over, and requests queued on the shared socket meanwhile."""


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="interface to bind")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--workers",
    type=click.IntRange(1),
    default=None,
    help="run N API processes (uvicorn workers); none of them runs background work unless"
    " --background is given: run `provledger worker` beside them",
)
@click.option(
    "--background/--no-background",
    default=None,
    help="run the projections and processes inside the API process(es); default: yes alone,"
    " no with --workers",
)
def serve(host: str, port: int, workers: int | None, background: bool | None) -> None:
    """Run the REST API."""
    import os

    import uvicorn

    from api.http_protocol import PROTOCOL
    from api.main import create_app
    from api.observability import configure_logging

    if background is not None:
        os.environ["PROVLEDGER_BACKGROUND"] = "true" if background else "false"
    elif workers is not None:
        os.environ["PROVLEDGER_BACKGROUND"] = "false"
    settings = cli_settings()
    configure_logging(settings.log_level, settings.log_json)
    check_read_models_start(settings)
    if workers is None:
        uvicorn.run(
            create_app(settings),
            host=host,
            port=port,
            log_config=None,
            access_log=False,
            http=PROTOCOL,
        )
        return
    uvicorn.run(  # each worker process builds its app from the (inherited) environment
        "api.main:app_from_environment",
        factory=True,
        workers=workers,
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS,
        http=PROTOCOL,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
    )


def check_read_models_start(settings: Settings) -> None:
    """Catch the read models up before serving: read models ahead of the event store (a store
    restored from an older backup) or a tampered transparency tree stop ``serve`` with the
    reason on one line, not a stack trace from the server's start-up."""
    with open_services(settings) as services:  # the refusal: one line and exit code 1
        services.read_side.catch_up()
