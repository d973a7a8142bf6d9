"""``provledger ingest``: ingest files into the registry, here or through a running service."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from api.cli._support import actor, open_services, progress_bar


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--url", help="ingest into a running service at this base URL")
@click.option("--api-key", envvar="PROVLEDGER_API_KEY", help="key with the ingest scope")
@click.option("--progress/--no-progress", default=None, help="progress bar (default: on a tty)")
def ingest(
    paths: tuple[Path, ...], url: str | None, api_key: str | None, progress: bool | None
) -> None:
    """Ingest .txt, .md and .html files (folders recursively) into the registry.

    A file's source id is its path under the folder given (or its name). A changed file
    becomes a new version; an unchanged one is left alone. Files of other types are skipped
    and counted on the last line.
    """
    from api.ingest_files import (
        LocalSink,
        RemoteSink,
        Sink,
        describe_skipped,
        find_documents,
        ingest_documents,
    )

    skipped: list[Path] = []
    documents = find_documents(list(paths), skipped)
    show_progress = sys.stderr.isatty() if progress is None else progress
    if url:
        if not api_key:
            raise click.UsageError("--url needs --api-key (or PROVLEDGER_API_KEY)")
        sink: Sink = RemoteSink(url, api_key)
        with progress_bar(show_progress, len(documents), "ingesting documents") as advance:
            outcomes, failures = ingest_documents(documents, sink, advance)
    else:
        with open_services() as services:
            services.read_side.catch_up()  # read models out of step with the store: write nothing
            sink = LocalSink(services.sources, actor())
            with progress_bar(show_progress, len(documents), "ingesting documents") as advance:
                outcomes, failures = ingest_documents(documents, sink, advance)
            services.read_side.catch_up()
    for failure in failures:
        click.echo(f"failed: {failure}", err=True)
    summary = ", ".join(
        f"{outcomes[k]} {k}" for k in ("created", "new-version", "unchanged", "failed")
    )
    click.echo(f"{len(documents)} documents: {summary}")
    if skipped:
        click.echo(describe_skipped(skipped))
    sys.exit(1 if failures else 0)
