"""``provledger serve``: run the REST API."""

from __future__ import annotations

import click

from api.cli._support import cli_settings, open_services
from api.settings import Settings


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="interface to bind")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
def serve(host: str, port: int) -> None:
    """Run the REST API."""
    import uvicorn

    from api.main import create_app
    from api.observability import configure_logging

    settings = cli_settings()
    configure_logging(settings.log_level, settings.log_json)
    check_read_models_start(settings)
    uvicorn.run(create_app(settings), host=host, port=port, log_config=None, access_log=False)


def check_read_models_start(settings: Settings) -> None:
    """Catch the read models up before serving: read models ahead of the event store (a store
    restored from an older backup) or a tampered transparency tree stop ``serve`` with the
    reason on one line, not a stack trace from the server's start-up."""
    with open_services(settings) as services:  # the refusal: one line and exit code 1
        services.read_side.catch_up()
